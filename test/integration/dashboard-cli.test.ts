import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { MerchantService } from '../../src/merchants';
import { DashboardIdentity } from '../../src/dashboard/identity';
import { loadConfig } from '../../src/config';

// `payments users invite` and `users reset-link`: the operator's links into the dashboard.
const bin = join(__dirname, '../../bin/payments.js');

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('payments users', () => {
  const uri = `${process.env.TEST_MONGODB_URL}/cli_users_${randomBytes(6).toString('hex')}`;
  const env = { MONGODB_URI: uri, PUBLIC_BASE_URL: 'https://pay.example' };
  let conn: Connection;
  let identity: DashboardIdentity;

  beforeAll(async () => {
    conn = await connectMongo(uri);
    identity = DashboardIdentity.on(conn, loadConfig({ NODE_ENV: 'test' }).DATA_ENCRYPTION_KEYS);
    await identity.init();
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('invite prints a one-time link under PUBLIC_BASE_URL; an unknown merchant is one line on stderr', async () => {
    const merchants = MerchantService.on(conn);
    await merchants.init();
    const { merchantId } = await merchants.createMerchant('Boutique Awa');
    const r = await cli(
      [
        'users',
        'invite',
        '--merchant',
        merchantId,
        '--email',
        'Owner@Shop.example',
        '--role',
        'owner',
        '--json',
      ],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { link } = JSON.parse(r.stdout) as { link: string };
    const token = /^https:\/\/pay\.example\/dashboard\/invitations\/([A-Za-z0-9_-]{43})$/.exec(link)![1]!;
    const inv = await identity.invitations.byToken(token);
    expect(inv).toMatchObject({
      merchantId,
      email: 'owner@shop.example',
      role: 'owner',
      invitedBy: 'operator',
    });

    const unknown = await cli(
      ['users', 'invite', '--merchant', 'mer_0000000000000000', '--email', 'a@b.example'],
      env,
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: [^\n]+\n$/);

    const noMember = await cli(
      ['users', 'reset-link', '--merchant', merchantId, '--email', 'owner@shop.example'],
      env,
    );
    expect(noMember.code).not.toBe(0);
    expect(noMember.stderr).toMatch(/no member/);
  });
});
