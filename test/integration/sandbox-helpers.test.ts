import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';

// The test helpers on the authenticated API (POST /v1/sandbox/...): the merchant's own test suite
// drives the sandbox operator's outcomes without reaching the simulator's own port (issue 29).

// One stack for the file: the fault proxy the race below needs forwards everything untouched when it
// has no rule (each test of the race clears its own), so the other tests run through it as they are.
const { stack, merchant, api } = useStack({ fund: 1_000_000, operatorProxy: true });

describe('sandbox test helpers (POST /v1/sandbox/...)', () => {
  const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
  const ref = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

  const directPayin = async (reference: string, sandboxScenario = 'pending', client = api) => {
    const created = await client.post('/v1/direct/payin', {
      reference,
      sandboxScenario,
      customerName: 'Awa Koné',
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  };
  const finalOf = (path: string, statuses: string[]) =>
    eventually(
      () => api.get(path),
      (r) => statuses.includes(r.body.status),
    );

  it('settles a payin right after its create: the final status follows, then a second settle is 409', async () => {
    const reference = ref('settle');
    await directPayin(reference);
    // No wait: the create answered before its workflow sent the request to the operator.
    const settled = await api.post(`/v1/sandbox/payins/${reference}/settle`, { outcome: 'completed' });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ reference, type: 'payin' });
    const read = await finalOf(`/v1/payin/${reference}`, ['success', 'failed']);
    expect(read.body.status).toBe('success');

    const again = await api.post(
      `/v1/sandbox/payins/${reference}/settle`,
      { outcome: 'failed' },
      { 'accept-language': 'fr' },
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ALREADY_FINAL', title: 'Déjà terminée' });
  });

  it('fails a payin with the chosen failure code', async () => {
    const reference = ref('fail');
    await directPayin(reference);
    const settled = await api.post(`/v1/sandbox/payins/${reference}/settle`, {
      outcome: 'failed',
      failureCode: 'INSUFFICIENT_FUNDS',
    });
    expect(settled.status).toBe(200);
    const read = await finalOf(`/v1/payin/${reference}`, ['success', 'failed']);
    expect(read.body).toMatchObject({ status: 'failed', failure: { code: 'INSUFFICIENT_FUNDS' } });

    // A failure code with a completed outcome is refused (localized), nothing settled.
    const bad = await api.post(`/v1/sandbox/payins/${ref('x')}/settle`, {
      outcome: 'completed',
      failureCode: 'PAYER_DECLINED',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['failureCode']);
  });

  it('an ambiguous failure (OPERATOR_TIMEOUT) is corrected to success once the partner finds the funds (collected)', async () => {
    const reference = ref('ambiguous');
    await directPayin(reference);
    const timedOut = await api.post(`/v1/sandbox/payins/${reference}/settle`, {
      outcome: 'failed',
      failureCode: 'OPERATOR_TIMEOUT',
    });
    expect(timedOut.status).toBe(200);
    const failed = await finalOf(`/v1/payin/${reference}`, ['success', 'failed']);
    expect(failed.body).toMatchObject({ status: 'failed', failure: { code: 'OPERATOR_TIMEOUT' } });

    const collected = await api.post(`/v1/sandbox/payins/${reference}/collected`, {});
    expect(collected.status).toBe(200);
    expect(collected.body).toMatchObject({ reference, status: 'failed' });
    await stack.env.sleep(3 * 3_600_000); // partner checks are at most 2 hours apart
    const corrected = await finalOf(`/v1/payin/${reference}`, ['success']);
    expect(corrected.body.failure).toBeNull();
  });

  it('refuses a live key with a clear problem, in French under Accept-Language: fr, before any idempotency key', async () => {
    const live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    const res = await live.post(
      `/v1/sandbox/payins/${ref('live')}/settle`,
      { outcome: 'completed' },
      { 'accept-language': 'fr', 'x-idempotency-key': '' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'TEST_MODE_ONLY', title: 'Mode test uniquement' });
    expect(res.body.detail).toContain('mk_test_');
    const en = await live.post(`/v1/sandbox/payouts/${ref('live')}/settle`, { outcome: 'completed' });
    expect(en.body).toMatchObject({ status: 403, title: 'Test mode only' });
  });

  it("answers 404 for another merchant's reference, and leaves that payin alone", async () => {
    const other = await createTestMerchant(stack, 'Other merchant');
    const otherApi = new ApiClient(stack.baseUrl, other.credentials);
    const reference = ref('theirs');
    await directPayin(reference, 'pending', otherApi);

    const res = await api.post(
      `/v1/sandbox/payins/${reference}/settle`,
      { outcome: 'completed' },
      { 'accept-language': 'fr' },
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'PAYMENT_NOT_FOUND', title: 'Paiement introuvable' });
    // The same reference in its owner's test mode, or a live payin of that reference: untouched.
    expect((await otherApi.get(`/v1/payin/${reference}`)).body.status).toBe('processing');
  });

  it('a session nobody confirmed is not at the operator: 503 with Retry-After, at once', async () => {
    const reference = ref('session');
    const created = await api.post('/v1/payin/sessions', {
      reference,
      sandboxScenario: 'pending',
      amount: 5000,
      msisdn: '+2250500000001',
      customerName: 'Awa Koné',
      country: 'CI',
      action,
    });
    expect(created.status).toBe(201);
    const started = Date.now();
    const res = await api.post(
      `/v1/sandbox/payins/${reference}/settle`,
      { outcome: 'completed' },
      { 'accept-language': 'fr' },
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ code: 'NOT_AT_OPERATOR_YET', title: "Pas encore chez l'opérateur" });
    expect(res.body.detail).toContain('confirmé');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('settles a payout and a refund', async () => {
    const payout = ref('payout');
    const created = await api.post('/v1/direct/payout', {
      reference: payout,
      sandboxScenario: 'pending',
      customerName: 'Awa Koné',
      payout: { amount: 2000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(created.status).toBe(201);
    const failed = await api.post(`/v1/sandbox/payouts/${payout}/settle`, { outcome: 'failed' });
    expect(failed.status).toBe(200);
    expect(failed.body.reference).toBe(payout);
    const read = await finalOf(`/v1/direct/payout/${payout}`, ['completed', 'failed', 'reversed']);
    expect(read.body.status).toMatch(/failed|reversed/);

    const payin = ref('refunded');
    await directPayin(payin, 'completed');
    await finalOf(`/v1/payin/${payin}`, ['success']);
    const refund = await api.post(`/v1/payin/${payin}/refund`, {
      reason: 'customer returned the goods',
      externalReference: ref('rf'),
      sandboxScenario: 'pending',
    });
    expect(refund.status).toBe(201);
    const settled = await api.post(`/v1/sandbox/refunds/${refund.body.reference}/settle`, {
      outcome: 'completed',
    });
    expect(settled.status).toBe(200);
    const done = await finalOf(`/v1/refunds/${refund.body.reference}`, ['completed', 'failed']);
    expect(done.body.status).toBe('completed');
  });
});

// The race of issue 29: a settle sent before the operator has the request. A fault proxy between the
// gateway (and the API's helpers) and the simulator holds the collection request back.
describe('a test helper sent before the request reaches the operator', () => {
  const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
  const collections = { method: 'POST', path: /^\/operators\/MTN\/collections$/ };

  const create = async (reference: string) => {
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'pending',
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  };
  afterEach(() => stack.proxy!.clear());

  it('waits for it, then settles', async () => {
    // The collection request reaches the operator 800 ms after it is sent.
    stack.proxy!.add({ ...collections, fault: { kind: 'hold', ms: 800 } });
    const reference = `late-${randomUUID().slice(0, 8)}`;
    const { id } = await create(reference);
    const settled = await api.post(`/v1/sandbox/payins/${reference}/settle`, { outcome: 'completed' });
    expect(settled.status).toBe(200);
    // The helper asked the operator before the request was there, and waited.
    const asks = stack.proxy!.log.filter((e) => e.path === `/_sandbox/transactions/collection/${id}`);
    expect(asks[0]?.status).toBe(404);
    expect(asks.at(-1)?.status).toBe(200);
    const read = await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status !== 'processing',
    );
    expect(read.body.status).toBe('success');
  });

  it('answers 503 NOT_AT_OPERATOR_YET with Retry-After past its wait; the same key retried later settles', async () => {
    // The operator is unreachable for collection requests until the rule is cleared.
    stack.proxy!.add({ ...collections, fault: { kind: 'error', status: 503 }, times: Infinity });
    const reference = `later-${randomUUID().slice(0, 8)}`;
    await create(reference);
    const key = randomUUID();
    const started = Date.now();
    const first = await api.post(
      `/v1/sandbox/payins/${reference}/settle`,
      { outcome: 'completed' },
      { 'x-idempotency-key': key, 'accept-language': 'fr' },
    );
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    expect(first.body).toMatchObject({ code: 'NOT_AT_OPERATOR_YET', title: "Pas encore chez l'opérateur" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);

    // The operator is back: the same key runs again (a 503 is not kept for replay) and settles.
    stack.proxy!.clear();
    const again = await eventually(
      () =>
        api.post(
          `/v1/sandbox/payins/${reference}/settle`,
          { outcome: 'completed' },
          { 'x-idempotency-key': key },
        ),
      (r) => r.status !== 503,
      40_000,
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  }, 90_000);
});
