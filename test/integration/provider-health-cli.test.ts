import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { ProviderHealth } from '../../src/operators/health';

// The ops override through the CLI (`payments providers override|clear|health`), read back by a
// ProviderHealth on the same database, as the API and the worker read it.
const bin = join(__dirname, '../../bin/payments.js');

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', ...env }, timeout: 90_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('provider health override (CLI)', () => {
  const uri = `${process.env.TEST_MONGODB_URL}/health_cli_${randomBytes(6).toString('hex')}`;
  const run = (...args: string[]) => cli(args, { MONGODB_URI: uri });
  let conn: Connection;
  let health: ProviderHealth;

  beforeAll(async () => {
    conn = await connectMongo(uri);
    health = new ProviderHealth(conn, { windowMs: 600_000, minAttempts: 5, cacheMs: 0, routed: () => true });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('forces a state until it expires, shows it with its reason, and clears it', async () => {
    const set = await run(
      'providers',
      'override',
      'mtn_ci',
      'payin',
      'closed',
      '--for',
      '30m',
      '--reason',
      'outage',
      '--json',
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      mode: 'live',
      provider: 'MTN_CI',
      operation: 'payin',
      state: 'closed',
    });
    const live = await health.stateOf('live', 'MTN', 'CI', 'payin');
    expect(live.state).toBe('closed');
    expect(live.retryAfterSeconds).toBeGreaterThan(1700);
    // Other modes and operations keep their measure.
    expect((await health.stateOf('test', 'MTN', 'CI', 'payin')).state).toBe('operational');
    expect((await health.stateOf('live', 'MTN', 'CI', 'payout')).state).toBe('operational');

    const shown = await run('providers', 'health', '--mode', 'live', '--json');
    expect(shown.code).toBe(0);
    const states = JSON.parse(shown.stdout).states as {
      provider: string;
      operation: string;
      state: string;
      reason: string;
    }[];
    expect(states.find((s) => s.provider === 'MTN_CI' && s.operation === 'payin')).toMatchObject({
      state: 'closed',
      reason: 'override: outage',
    });
    expect(states).toHaveLength(18);

    expect((await run('providers', 'override', 'MTN_CI', 'payin', 'broken', '--reason', 'x')).code).not.toBe(
      0,
    );
    expect((await run('providers', 'override', 'MTN_SN', 'payin', 'closed', '--reason', 'x')).code).not.toBe(
      0,
    );

    const cleared = await run('providers', 'clear', 'MTN_CI', 'payin', '--json');
    expect(JSON.parse(cleared.stdout)).toEqual({ cleared: true });
    expect((await health.stateOf('live', 'MTN', 'CI', 'payin')).state).toBe('operational');
  });
});
