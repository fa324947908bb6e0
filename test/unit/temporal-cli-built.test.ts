import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporalCliBuilt } from '../../src/infra/tools';

// CI builds the Temporal CLI beside the tests that do not need it (scripts/provision holds
// temporal-cli.lock in the tool cache while it builds); what starts the CLI waits for that build.

describe('temporalCliBuilt', () => {
  const saved = process.env.MOMO_CACHE_DIR;
  let cache: string;
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'momo-cli-lock-'));
    mkdirSync(join(cache, 'tools'));
    process.env.MOMO_CACHE_DIR = cache;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.MOMO_CACHE_DIR;
    else process.env.MOMO_CACHE_DIR = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  it('waits while a provision holds the lock, and no longer', async () => {
    const lock = join(cache, 'tools', 'temporal-cli.lock');
    // A build that holds the lock for 1.5 s; `flock` prints once it holds it.
    const build = spawn('flock', [lock, 'sh', '-c', 'echo held; sleep 1.5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const ended = new Promise((res) => build.once('exit', res));
    await new Promise<void>((res) => build.stdout.once('data', () => res()));
    const started = Date.now();
    await temporalCliBuilt();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    await ended;
  });

  it('does not wait when no build ever started or the lock is free', async () => {
    const started = Date.now();
    await temporalCliBuilt();
    const lock = join(cache, 'tools', 'temporal-cli.lock');
    await new Promise((res) => spawn('flock', [lock, 'true']).once('exit', res));
    await temporalCliBuilt();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
