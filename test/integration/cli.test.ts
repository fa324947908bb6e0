import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { MerchantService } from '../../src/merchants';
import { Ledger } from '../../src/ledger';

// The real operator CLI as a child process, on its own database of the test FerretDB.
const bin = join(__dirname, '../../bin/payments.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', ...env }, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('operator CLI (npx payments)', () => {
  const uri = `${process.env.TEST_MONGODB_URL}/cli_${randomBytes(6).toString('hex')}`;
  const run = (...args: string[]) => cli(args, { MONGODB_URI: uri });
  let conn: Connection;
  let merchants: MerchantService;

  beforeAll(async () => {
    conn = await connectMongo(uri);
    merchants = MerchantService.on(conn);
  });
  afterAll(async () => {
    await conn?.close();
  });

  /** One line on stderr, nothing on stdout, a non-zero exit code. */
  function expectFailure(r: Run, message: RegExp) {
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^[^\n]+\n$/);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  }

  let first: { merchantId: string; apiKey: string; apiClient: string };

  it('creates a merchant and prints only its credentials as JSON', async () => {
    const r = await run('merchants', 'create', '--name', 'Boutique Awa', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    first = JSON.parse(r.stdout);
    // The test pair at the top, the live pair under `live`; each key resolves to its mode's scope.
    const created = first as typeof first & { live: { apiKey: string; apiClient: string } };
    expect(Object.keys(first).sort()).toEqual(['apiClient', 'apiKey', 'live', 'merchantId']);
    expect(first.merchantId).toMatch(/^mer_/);
    expect(first.apiKey).toMatch(/^mk_test_/);
    expect(created.live.apiKey).toMatch(/^mk_live_/);
    await expect(merchants.authenticate(first.apiKey, first.apiClient)).resolves.toBe(
      `${first.merchantId}_test`,
    );
    await expect(merchants.authenticate(created.live.apiKey, created.live.apiClient)).resolves.toBe(
      first.merchantId,
    );
    const { live: _live, ...testPair } = created;
    first = testPair;
  });

  it('creates with human output and lists merchants', async () => {
    const created = await run('merchants', 'create', '--name', 'Kiosque Yaoundé');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Merchant mer_[0-9a-f]{24} created\./);
    expect(created.stdout).toMatch(/api_client\s+sk_test_/);
    expect(created.stdout).toMatch(/api_client\s+sk_live_/);

    const human = await run('merchants', 'list');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(first.merchantId);
    expect(human.stdout).toContain('Boutique Awa');
    expect(human.stdout).toContain('Kiosque Yaoundé');

    const json = await run('merchants', 'list', '--json');
    const list = JSON.parse(json.stdout);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ merchantId: first.merchantId, name: 'Boutique Awa', status: 'active' });
  });

  it('rotates and revokes keys', async () => {
    const rotated = await run('keys', 'rotate', first.merchantId, '--json');
    expect(rotated.code).toBe(0);
    const pair = JSON.parse(rotated.stdout);
    expect(pair).toMatchObject({ merchantId: first.merchantId, apiKey: expect.stringMatching(/^mk_test_/) });
    expect(pair.apiKey).not.toBe(first.apiKey);
    // Both pairs work until the old one is revoked.
    await expect(merchants.authenticate(first.apiKey, first.apiClient)).resolves.toBe(
      `${first.merchantId}_test`,
    );
    await expect(merchants.authenticate(pair.apiKey, pair.apiClient)).resolves.toBe(
      `${first.merchantId}_test`,
    );

    const revoked = await run('keys', 'revoke', first.apiKey);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Key ${first.apiKey} of ${first.merchantId} revoked.`);
    await expect(merchants.authenticate(first.apiKey, first.apiClient)).resolves.toBeNull();
    await expect(merchants.authenticate(pair.apiKey, pair.apiClient)).resolves.toBe(
      `${first.merchantId}_test`,
    );

    const keys = JSON.parse((await run('keys', 'list', first.merchantId, '--json')).stdout);
    expect(keys.map((k: { mode: string; status: string }) => `${k.mode} ${k.status}`)).toEqual([
      'test revoked',
      'live active',
      'test active',
    ]);
    expect(JSON.stringify(keys)).not.toMatch(/secretHash|sk_test_/);
    first = { ...first, ...pair };
  });

  it('funds a merchant account through the ledger, with a reason', async () => {
    const r = await run(
      'accounts',
      'fund',
      '--merchant',
      first.merchantId,
      '--currency',
      'XOF',
      '--amount',
      '5000',
      '--reason',
      'sandbox top-up',
      '--json',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const funded = JSON.parse(r.stdout);
    expect(funded).toMatchObject({
      merchantId: first.merchantId,
      currency: 'XOF',
      amount: 5000,
      balance: 5000,
    });

    const ledger = Ledger.on(conn);
    const account = await ledger.mainAccount(`${first.merchantId}_test`, 'XOF');
    expect(account.id).toBe(funded.accountId);
    expect(account.balance).toBe(5000);
    const again = await run(
      'accounts',
      'fund',
      '--merchant',
      first.merchantId,
      '--currency',
      'XOF',
      '--amount',
      '2500',
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Credited 2500 XOF/);
    await expect(ledger.verify(account.id)).resolves.toMatchObject({ balance: 7500, sumOfEntries: 7500 });
    // Recorded entries, each with its reason: never a silent balance edit.
    const { entries } = await ledger.entries(account.id, {});
    expect(entries.map((e) => [e.amount, e.reason])).toEqual([
      [2500, 'sandbox funding'],
      [5000, 'sandbox top-up'],
    ]);
  });

  it('creates a sandbox merchant funded in XOF and XAF in one call; a refused amount makes no merchant', async () => {
    const r = await run('merchants', 'create', '--name', 'Boutique Kribi', '--fund', '250000', '--json');
    expect([r.stderr, r.code]).toEqual(['', 0]);
    const created = JSON.parse(r.stdout);
    expect(created.funded.map((f: { currency: string; balance: number }) => [f.currency, f.balance])).toEqual(
      [
        ['XOF', 250_000],
        ['XAF', 250_000],
      ],
    );
    const ledger = Ledger.on(conn);
    for (const currency of ['XOF', 'XAF'] as const) {
      const account = await ledger.mainAccount(`${created.merchantId}_test`, currency);
      await expect(ledger.verify(account.id)).resolves.toMatchObject({ balance: 250_000 });
    }
    const before = (await merchants.listMerchants()).length;
    expectFailure(
      await run('merchants', 'create', '--name', 'Boutique Limbé', '--fund', '12.5'),
      /XOF has no minor unit/,
    );
    expect((await merchants.listMerchants()).length).toBe(before);
  });

  it('suspends a merchant', async () => {
    const r = await run('merchants', 'suspend', first.merchantId);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Merchant ${first.merchantId} suspended.\n`);
    await expect(merchants.authenticate(first.apiKey, first.apiClient)).resolves.toBeNull();
    const list = JSON.parse((await run('merchants', 'list', '--json')).stdout);
    expect(list.find((m: { merchantId: string }) => m.merchantId === first.merchantId).status).toBe(
      'suspended',
    );
  });

  it("configures who pays a merchant's payin fees", async () => {
    const r = await run('merchants', 'configure', first.merchantId, '--pay-fee', 'customer', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).settings).toMatchObject({ payFee: false, refundWindowDays: 7 });
    expect((await merchants.getMerchant(first.merchantId))?.settings.payFee).toBe(false);
    expectFailure(
      await run('merchants', 'configure', first.merchantId, '--pay-fee', 'nobody'),
      /merchant or customer/,
    );
  });

  it('`transactions show` names the Temporal address it could not reach, and the merchant as typed', async () => {
    const [noTemporal, unknown] = await Promise.all([
      cli(['transactions', 'show', 'order-1', '--merchant', first.merchantId, '--kind', 'payin'], {
        MONGODB_URI: uri,
        TEMPORAL_ADDRESS: '127.0.0.1:1',
      }),
      run('transactions', 'show', 'nope', '--merchant', first.merchantId),
    ]);
    expectFailure(
      noTemporal,
      /^error: cannot reach Temporal at 127\.0\.0\.1:1 within 3s \(is `npm start` running, or TEMPORAL_ADDRESS set\?\)/,
    );
    // Without --kind the reference is looked up as each kind; the message never shows the internal
    // test scope (mer_…_test) of a merchant typed as mer_….
    expectFailure(
      unknown,
      new RegExp(
        `^error: no payin, payout or refund nope for merchant ${first.merchantId} \\(test mode\\); `,
      ),
    );
    expect(unknown.stderr).not.toContain('_test');
  }, 120_000);

  it('fails with one line on stderr and a non-zero exit code', async () => {
    const unknown = 'mer_000000000000000000000000';
    const [noMerchant, badCurrency, fraction, missing, unreachable] = await Promise.all([
      run('merchants', 'suspend', unknown),
      run('accounts', 'fund', '--merchant', first.merchantId, '--currency', 'GBP', '--amount', '10'),
      run('accounts', 'fund', '--merchant', first.merchantId, '--currency', 'XOF', '--amount', '12.5'),
      run('merchants', 'create'),
      cli(['merchants', 'list'], { MONGODB_URI: 'mongodb://127.0.0.1:1/none' }),
    ]);
    expectFailure(noMerchant, new RegExp(`no merchant ${unknown}`));
    expectFailure(badCurrency, /unknown currency "GBP"/);
    expectFailure(fraction, /XOF has no minor unit/);
    expectFailure(missing, /required option '--name <name>'/);
    expectFailure(unreachable, /cannot reach MongoDB/);
    // Nothing was credited by the failed attempts.
    expect((await Ledger.on(conn).mainAccount(`${first.merchantId}_test`, 'XOF')).balance).toBe(7500);
  }, 120_000);
});
