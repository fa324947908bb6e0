import { randomBytes } from 'node:crypto';
import { ApiClient } from '../helpers/http';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { startStack, type TestStack } from '../helpers/stack';
import { Ledger, type Account } from '../../src/ledger';
import { accountList, entryPage } from '../../src/contract/schemas/accounts';
import { problemSchema } from '../../src/contract/problems';

// GET /v1/accounts and /v1/accounts/{id}/entries through HTTP, on money moved by the real ledger.
describe('accounts API', () => {
  let stack: TestStack;
  let ledger: Ledger;
  let alice: TestMerchant;
  let bob: TestMerchant;
  let api: ApiClient;
  let bobApi: ApiClient;
  let xof: Account;
  let usd: Account;

  const fund = async (to: Account, amount: number, reason = 'sandbox funding') => {
    const funding = await ledger.systemAccount('sandbox-funding', to.currency, 'test');
    await ledger.transfer({
      sourceRef: `fund:${randomBytes(6).toString('hex')}`,
      fromAccountId: funding.id,
      toAccountId: to.id,
      amount,
      reason,
    });
  };

  beforeAll(async () => {
    stack = await startStack();
    ledger = Ledger.on(stack.mongo);
    await ledger.init();
    [alice, bob] = await Promise.all([createTestMerchant(stack, 'Alice'), createTestMerchant(stack, 'Bob')]);
    api = new ApiClient(stack.baseUrl, alice.credentials);
    bobApi = new ApiClient(stack.baseUrl, bob.credentials);

    xof = await ledger.mainAccount(alice.merchantId, 'XOF');
    usd = await ledger.mainAccount(alice.merchantId, 'USD');
    for (let i = 1; i <= 5; i++) {
      await fund(xof, i * 1_000, `funding ${i}`);
      await new Promise((r) => setTimeout(r, 5)); // distinct timestamps for the date filter
    }
    // A payout-like debit to the fees account, and 12.34 USD held in cents.
    const fees = await ledger.systemAccount('fees', 'XOF', 'test');
    await ledger.transfer({
      sourceRef: 'pr_demo:debit',
      fromAccountId: xof.id,
      toAccountId: fees.id,
      amount: 2_500,
      reason: 'payout',
      transactionId: 'pr_demo',
    });
    await fund(usd, 1_234);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("lists the caller's accounts with their available balance", async () => {
    const res = await api.get('/v1/accounts');
    expect(res.status).toBe(200);
    const body = accountList.parse(res.body);
    expect(body.data).toEqual([
      expect.objectContaining({ id: usd.id, currency: 'USD', kind: 'main', available: 12.34, pending: 0 }),
      expect.objectContaining({ id: xof.id, currency: 'XOF', kind: 'main', available: 12_500, pending: 0 }),
    ]);
    // The API's balance is the ledger's, which is the sum of its entries.
    expect(await ledger.verify(xof.id)).toMatchObject({ balance: 12_500, sumOfEntries: 12_500 });

    const single = await api.get(`/v1/accounts/${xof.id}`);
    expect(single.body).toMatchObject({ id: xof.id, available: 12_500 });
    // Another merchant sees only its own (none yet).
    expect((await bobApi.get('/v1/accounts')).body).toEqual({ data: [] });
  });

  it('pages the statement newest first with a cursor', async () => {
    const first = await api.get(`/v1/accounts/${xof.id}/entries?limit=4`);
    expect(first.status).toBe(200);
    const p1 = entryPage.parse(first.body);
    expect(p1.data.map((e) => [e.direction, e.amount, e.balanceAfter])).toEqual([
      ['debit', -2_500, 12_500],
      ['credit', 5_000, 15_000],
      ['credit', 4_000, 10_000],
      ['credit', 3_000, 6_000],
    ]);
    expect(p1.data[0]).toMatchObject({ reason: 'payout', transactionId: 'pr_demo', currency: 'XOF' });
    expect(p1.nextCursor).toEqual(expect.any(String));

    const p2 = entryPage.parse(
      (await api.get(`/v1/accounts/${xof.id}/entries?limit=4&cursor=${p1.nextCursor}`)).body,
    );
    expect(p2.data.map((e) => e.amount)).toEqual([2_000, 1_000]);
    expect(p2.nextCursor).toBeNull();
  });

  it('filters the statement by date, bounds included', async () => {
    const all = entryPage.parse((await api.get(`/v1/accounts/${xof.id}/entries`)).body).data;
    const third = all[3]!; // the 3 000 credit
    const from = encodeURIComponent(third.createdAt);
    const since = entryPage.parse((await api.get(`/v1/accounts/${xof.id}/entries?from=${from}`)).body);
    expect(since.data.map((e) => e.amount)).toEqual([-2_500, 5_000, 4_000, 3_000]);
    const until = entryPage.parse((await api.get(`/v1/accounts/${xof.id}/entries?to=${from}`)).body);
    expect(until.data.map((e) => e.amount)).toEqual([3_000, 2_000, 1_000]);

    // A date alone covers its whole UTC day; a day long past has nothing.
    const firstDay = all[all.length - 1]!.createdAt.slice(0, 10);
    const lastDay = all[0]!.createdAt.slice(0, 10);
    const days = entryPage.parse(
      (await api.get(`/v1/accounts/${xof.id}/entries?from=${firstDay}&to=${lastDay}`)).body,
    );
    expect(days.data).toHaveLength(6);
    const past = entryPage.parse((await api.get(`/v1/accounts/${xof.id}/entries?to=2001-01-01`)).body);
    expect(past).toEqual({ data: [], nextCursor: null, livemode: false });
  });

  it("answers another merchant's account exactly as an unknown one: 404", async () => {
    for (const path of [`/v1/accounts/${xof.id}`, `/v1/accounts/${xof.id}/entries`]) {
      const foreign = await bobApi.get(path, { 'accept-language': 'fr' });
      const unknown = await bobApi.get(path.replace(xof.id, 'acc_000000000000000000000000'), {
        'accept-language': 'fr',
      });
      expect(foreign.status).toBe(404);
      expect(foreign.headers.get('content-type')).toMatch(/application\/problem\+json/);
      const strip = (b: any) => ({ ...b, instance: undefined });
      expect(strip(foreign.body)).toEqual(strip(unknown.body));
      expect(problemSchema.parse(foreign.body)).toMatchObject({
        code: 'ACCOUNT_NOT_FOUND',
        title: 'Compte introuvable',
      });
    }
    // A system account has no merchant: no caller can read it either.
    const fees = await ledger.systemAccount('fees', 'XOF', 'test');
    expect((await api.get(`/v1/accounts/${fees.id}/entries`)).status).toBe(404);
  });

  it('rejects bad query parameters with 400 listing each, never a 500', async () => {
    const res = await api.get(
      `/v1/accounts/${xof.id}/entries?limit=0&cursor=nope&from=yesterday&to=2024-13-40&extra=1`,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      expect.arrayContaining(['cursor', 'from', 'limit', 'to']),
    );
    for (const q of [
      'limit=1000',
      'limit=2.5',
      'limit=-1',
      'from=2024-02-01&to=2024-01-01',
      'limit=1&limit=2',
    ]) {
      const r = await api.get(`/v1/accounts/${xof.id}/entries?${q}`);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
    expect((await new ApiClient(stack.baseUrl, null).get('/v1/accounts')).status).toBe(401);
  });
});
