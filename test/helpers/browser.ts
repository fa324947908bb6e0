import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { noteToolUsed } from '../../src/infra/tools';

// Debian's chromium (scripts/provision-browser) driven by playwright-core, with the flags that keep
// it off the network here (no background requests, no component updates), in a fresh profile.

/** Screenshots go here (kept as CI artifacts). */
export const screenshotDir = join(process.cwd(), 'test-results');

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: Parameters<typeof chromium.launchPersistentContext>[1] = {},
): Promise<TestBrowser> {
  noteToolUsed('chromium');
  mkdirSync(screenshotDir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
