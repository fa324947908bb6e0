import { randomUUID } from 'node:crypto';
import { Ledger } from '../../src/ledger';
import { fundFromSandbox } from '../../src/ledger/postings';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';

// Test and live modes (issue 18): every merchant has a test pair and a live pair; what one mode
// creates, the other never sees (404 or absent), references repeat freely across modes, and records
// say which mode they belong to. Live routes go to the sandbox simulator here (development only), so
// live payins and payouts are taken like test ones, in their own mode.
describe('modes: test and live isolation', () => {
  // Live routes to the sandbox simulator (development only): live payins are taken and settle.
  const {
    stack,
    merchant,
    api: test,
  } = useStack({
    fund: 1_000_000,
    config: { OPERATOR_ROUTES: '{"*":"simulator"}' },
  });
  let live: ApiClient;

  beforeAll(async () => {
    live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    // Live money for the live payout below: a ledger transfer, as no API or CLI mints live money.
    await fundFromSandbox(Ledger.on(stack.mongo), {
      merchantId: merchant.live.merchantId,
      currency: 'XOF',
      amount: 50_000,
      reason: 'test set-up: live balance',
    });
  });

  const ref = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const directPayin = (reference: string, extra: Record<string, unknown> = {}) => ({
    reference,
    customerName: 'Awa Koné',
    payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    ...extra,
  });
  const directPayout = (reference: string, extra: Record<string, unknown> = {}) => ({
    reference,
    customerName: 'Awa Koné',
    payout: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    ...extra,
  });

  it('issues both pairs, each resolving to its own mode', () => {
    expect(merchant.credentials.apiKey).toMatch(/^mk_test_/);
    expect(merchant.live.credentials.apiKey).toMatch(/^mk_live_/);
    expect(merchant.merchantId).toBe(`${merchant.live.merchantId}_test`);
  });

  it('payins: the same reference in both modes makes two payins, each invisible to the other key', async () => {
    const reference = ref('both');
    const inTest = await test.post(
      '/v1/direct/payin',
      directPayin(reference, { sandboxScenario: 'completed' }),
    );
    expect(inTest.status).toBe(201);
    expect(inTest.body.livemode).toBe(false);
    const inLive = await live.post('/v1/direct/payin', directPayin(reference));
    expect(inLive.status).toBe(201);
    expect(inLive.body.livemode).toBe(true);
    expect(inLive.body.id).not.toBe(inTest.body.id);

    const readTest = await eventually(
      () => test.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    expect(readTest.body).toMatchObject({ id: inTest.body.id, livemode: false });
    const readLive = await live.get(`/v1/payin/${reference}`);
    expect(readLive.body).toMatchObject({ id: inLive.body.id, livemode: true });

    // A reference only one mode used is unknown to the other.
    const onlyTest = ref('only-test');
    expect((await test.post('/v1/direct/payin', directPayin(onlyTest))).status).toBe(201);
    const fromLive = await live.get(`/v1/payin/${onlyTest}`);
    expect(fromLive.status).toBe(404);
    expect(fromLive.body.code).toBe('PAYMENT_NOT_FOUND');
    const onlyLive = ref('only-live');
    expect((await live.post('/v1/direct/payin', directPayin(onlyLive))).status).toBe(201);
    expect((await test.get(`/v1/payin/${onlyLive}`)).status).toBe(404);
  });

  it('payouts: a test payout is 404 for the live key and the other way round', async () => {
    const inTest = ref('po-test');
    const created = await test.post('/v1/direct/payout', directPayout(inTest));
    expect(created.status).toBe(201);
    expect(created.body.livemode).toBe(false);
    expect((await live.get(`/v1/direct/payout/${inTest}`)).status).toBe(404);
    expect((await live.get(`/v1/payout/${inTest}`)).status).toBe(404);

    const inLive = ref('po-live');
    const livePayout = await live.post('/v1/direct/payout', directPayout(inLive));
    expect(livePayout.status).toBe(201);
    expect(livePayout.body.livemode).toBe(true);
    expect((await test.get(`/v1/direct/payout/${inLive}`)).status).toBe(404);
    expect((await live.get(`/v1/direct/payout/${inLive}`)).body.livemode).toBe(true);
  });

  it('refunds and events: a test refund and test events are invisible to the live key', async () => {
    const payinRef = ref('rf-payin');
    expect(
      (await test.post('/v1/direct/payin', directPayin(payinRef, { sandboxScenario: 'completed' }))).status,
    ).toBe(201);
    await eventually(
      () => test.get(`/v1/payin/${payinRef}`),
      (r) => r.body.status === 'success',
    );
    const refund = await test.post(`/v1/payin/${payinRef}/refund`, {
      reason: 'customer returned the goods',
      externalReference: ref('ext'),
    });
    expect(refund.status).toBe(201);
    expect(refund.body.livemode).toBe(false);
    const rf = refund.body.reference as string;
    expect((await test.get(`/v1/refunds/${rf}`)).body.livemode).toBe(false);
    expect((await live.get(`/v1/refunds/${rf}`)).status).toBe(404);
    // The live key cannot refund the test payin either: it does not exist in live mode.
    const wrongMode = await live.post(`/v1/payin/${payinRef}/refund`, {
      reason: 'wrong mode',
      externalReference: ref('ext'),
    });
    expect(wrongMode.status).toBe(404);

    const testEvents = await eventually(
      () => test.get(`/v1/events?reference=${payinRef}&limit=100`),
      (r) => r.body.data.length > 0,
    );
    for (const e of testEvents.body.data) expect(e.livemode).toBe(false);
    expect((await live.get(`/v1/events?reference=${payinRef}&limit=100`)).body.data).toEqual([]);
    expect((await live.get(`/v1/events/${testEvents.body.data[0].id}`)).status).toBe(404);
    const liveEvents = (await live.get('/v1/events?limit=100')).body.data as {
      id: string;
      livemode: boolean;
    }[];
    for (const e of liveEvents) expect(e.livemode).toBe(true);
    const testIds = new Set((testEvents.body.data as { id: string }[]).map((e) => e.id));
    expect(liveEvents.filter((e) => testIds.has(e.id))).toEqual([]);
  });

  it('webhook endpoints belong to the mode that created them', async () => {
    const made = await live.post('/v1/webhooks', { url: 'https://merchant.example/live-hook' });
    expect(made.status).toBe(201);
    expect(made.body.livemode).toBe(true);
    const testList = (await test.get('/v1/webhooks')).body.data as { id: string }[];
    expect(testList.map((e) => e.id)).not.toContain(made.body.id);
    expect((await test.request('DELETE', `/v1/webhooks/${made.body.id}`)).status).toBe(404);
    const liveList = (await live.get('/v1/webhooks')).body.data as { id: string; livemode: boolean }[];
    expect(liveList.find((e) => e.id === made.body.id)?.livemode).toBe(true);
  });

  it('accounts and statements: each mode has its own accounts, the other mode cannot read them', async () => {
    const testAccounts = (await test.get('/v1/accounts')).body.data as { id: string; livemode: boolean }[];
    const liveAccounts = (await live.get('/v1/accounts')).body.data as { id: string; livemode: boolean }[];
    expect(testAccounts.length).toBeGreaterThan(0);
    expect(liveAccounts.length).toBeGreaterThan(0);
    for (const a of testAccounts) expect(a.livemode).toBe(false);
    for (const a of liveAccounts) expect(a.livemode).toBe(true);
    const liveIds = new Set(liveAccounts.map((a) => a.id));
    expect(testAccounts.filter((a) => liveIds.has(a.id))).toEqual([]);
    const testAccount = testAccounts[0]!.id;
    const statement = await test.get(`/v1/accounts/${testAccount}/entries`);
    expect(statement.status).toBe(200);
    expect(statement.body.livemode).toBe(false);
    const liveStatement = await live.get(`/v1/accounts/${liveAccounts[0]!.id}/entries`);
    expect(liveStatement.body.livemode).toBe(true);
    expect((await live.get(`/v1/accounts/${testAccount}`)).status).toBe(404);
    expect((await live.get(`/v1/accounts/${testAccount}/entries`)).status).toBe(404);
    expect((await test.get(`/v1/accounts/${liveAccounts[0]!.id}/entries`)).status).toBe(404);
  });
});
