import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProvisioned, toolsOfTarget, unprovisionedTools } from '../setup/provisioned-tools';

// Each npm script that runs jest provisions its target first; every server its tests start must be
// in that target, or a new machine fails where CI's warm cache passes (issue 28: the test target
// did not build the Temporal CLI that four test files start).
describe('provision targets cover the servers their tests start', () => {
  const log = (lines: string[]) => {
    const file = join(mkdtempSync(join(tmpdir(), 'tools-used-')), 'tools-used.log');
    writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    return file;
  };

  it('the test target builds every server the test suite starts', () => {
    expect(toolsOfTarget('test')).toEqual(
      expect.arrayContaining(['temporal-cli', 'ferretdb', 'temporal-test-server', 'postgres', 'chromium']),
    );
  });

  it('the chaos target builds the dev server and the test server mongo-outage.test.ts starts', () => {
    expect(toolsOfTarget('chaos')).toEqual(
      expect.arrayContaining(['temporal-cli', 'ferretdb', 'temporal-test-server']),
    );
  });

  it('names a started server its target does not build, once', () => {
    const file = log(['ferretdb', 'temporal-server', 'temporal-server', 'ferretdb']);
    expect(unprovisionedTools('test', file)).toEqual(['temporal-server']);
    expect(() => checkProvisioned('test', file)).toThrow(/temporal-server.*scripts\/provision test/);
  });

  it('passes when every started server is provisioned, or when no target is named', () => {
    expect(() => checkProvisioned('test', log(['temporal-cli', 'ferretdb']))).not.toThrow();
    expect(() => checkProvisioned(undefined, log(['temporal-server']))).not.toThrow();
    expect(unprovisionedTools('test', join(tmpdir(), 'no-such-log'))).toEqual([]);
  });
});
