import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant, fundMerchant } from '../helpers/merchants';
import { RouteBookStore } from '../../src/operators/routes/book';

// Issue 43 §5: the sandbox plays two routes to every pair (the simulator's root, `simulator`, and
// /routes/2, `simulator-2`, each with books of its own). A route taken down by the simulator's
// outage control (POST /_sandbox/routes) moves test payins and payouts to the other after the
// failover fence; the refund follows its payin's route; the test helpers settle at the route that
// holds the transaction; and no transaction is ever in both routes' books. A merchant's own control
// (POST /v1/sandbox/routes, a test helper) acts on that merchant's test traffic only.

const { stack, api } = useStack({
  config: { SANDBOX_ROUTES: '2', OPERATOR_FAILOVER_FENCE: '3s' },
  fund: 1_000_000,
});

const control = (route: 1 | 2, body: object) =>
  fetch(`${stack.simulator.url}${route === 2 ? '/routes/2' : ''}/_sandbox/routes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
const settled = (path: string) =>
  eventually(
    () => api.get(path),
    (r) => !['pending', 'processing', 'processed'].includes(r.body.status as string),
    60_000,
  );
/** The ids each route's books hold. */
const booksOf = (route: 0 | 1) => new Set(stack.simulator.simulator.routes[route]!.transactions.keys());

describe('two sandbox routes per pair, and the outage control', () => {
  afterEach(async () => {
    for (const route of [1, 2] as const)
      await control(route, { operator: 'MTN', country: 'CI', state: 'operational' });
  });

  it('lists both sandbox routes of every provider in GET /v1/providers (test mode: none measured)', async () => {
    const { providers } = (await api.get('/v1/providers?country=CI')).body as {
      providers: Array<{ name: string; health: { payin: { routes: unknown[] } } }>;
    };
    const mtn = providers.find((p) => p.name === 'MTN_CI')!;
    expect(mtn.health.payin.routes).toEqual(
      ['simulator', 'simulator-2'].map((connector) => ({
        connector,
        successRate: null,
        answerSeconds: null,
        eliminated: false,
        published: null,
      })),
    );
  });

  it('asks the first route while it is up', async () => {
    const reference = `up-${randomUUID()}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      payin: { amount: 1_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
    });
    expect((await settled(`/v1/payin/${reference}`)).body.status).toBe('success');
    const id = String(created.body.id);
    expect([...booksOf(0)].some((k) => k.endsWith(id))).toBe(true);
    expect([...booksOf(1)].some((k) => k.endsWith(id))).toBe(false);
  });

  it('fails a payin and a payout over to the second route while the first is closed, once; the refund follows', async () => {
    const closed = await control(1, { operator: 'MTN', country: 'CI', state: 'closed', forSeconds: 120 });
    expect(closed.status).toBe(200);
    expect(((await closed.json()) as { controls: unknown[] }).controls).toHaveLength(2);
    const reference = `closed-${randomUUID()}`;
    const payoutRef = `closed-po-${randomUUID()}`;
    const [payin, payout] = await Promise.all([
      api.post('/v1/direct/payin', {
        reference,
        payin: { amount: 20_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action,
      }),
      api.post('/v1/direct/payout', {
        reference: payoutRef,
        customerName: 'Awa Koné',
        payout: { amount: 1_000, msisdn: '+2250500000002', provider: 'MTN', country: 'CI' },
      }),
    ]);
    expect([payin.status, payout.status]).toEqual([201, 201]);
    expect((await settled(`/v1/payin/${reference}`)).body.status).toBe('success');
    expect((await settled(`/v1/direct/payout/${payoutRef}`)).body.status).toBe('completed');
    const refund = await api.post(`/v1/payin/${reference}/refund`, {
      reason: 'returned',
      amount: 5_000,
      externalReference: `rf-${reference}`,
    });
    expect(refund.status).toBe(201);
    expect((await settled(`/v1/refunds/${refund.body.reference}`)).body.status).toBe('completed');

    const book = new RouteBookStore(stack.mongo);
    for (const [kind, id] of [
      ['collection', payin.body.id],
      ['disbursement', payout.body.id],
    ] as const) {
      const { entries, verdicts } = await book.read(kind, String(id));
      expect(entries.map((e) => [e.connector, e.reason])).toEqual([
        ['simulator', 'ranked-first'],
        ['simulator-2', 'failover'],
      ]);
      expect(verdicts).toEqual([expect.objectContaining({ verdict: 'go', answer: 'unknown' })]);
    }
    // Each id in one route's books only: the payin, its refund and the payout at the second.
    const ids = [payin.body.id, payout.body.id].map(String);
    const [first, second] = [booksOf(0), booksOf(1)];
    for (const id of ids) {
      expect([...first].filter((k) => k.endsWith(id))).toEqual([]);
      expect([...second].filter((k) => k.endsWith(id))).toHaveLength(1);
    }
    expect([...second].filter((k) => k.startsWith('refund'))).toHaveLength(1);
  });

  it("takes a route down for one merchant's own traffic through the API's test helper", async () => {
    const set = await api.post('/v1/sandbox/routes', {
      operator: 'MTN',
      country: 'CI',
      operation: 'payin',
      state: 'closed',
      forSeconds: 120,
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual([
      expect.objectContaining({
        route: 1,
        operator: 'MTN',
        country: 'CI',
        operation: 'payin',
        state: 'closed',
      }),
    ]);
    expect((await api.get('/v1/sandbox/routes')).body.data).toEqual(set.body.data);
    // Nothing of it is a control of the whole route, nor another merchant's.
    const whole = (await (await fetch(`${stack.simulator.url}/_sandbox/routes`)).json()) as {
      controls: unknown[];
    };
    expect(whole.controls).toEqual([]);
    const other = await createTestMerchant(stack, 'Another shop');
    await fundMerchant(stack, other.merchantId, 100_000);
    const otherApi = new ApiClient(stack.baseUrl, other.credentials);
    expect((await otherApi.get('/v1/sandbox/routes')).body.data).toEqual([]);

    const pay = (client: ApiClient, reference: string) =>
      client.post('/v1/direct/payin', {
        reference,
        payin: { amount: 1_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action,
      });
    const [mine, theirs] = [`mine-${randomUUID()}`, `theirs-${randomUUID()}`];
    const [a, b] = await Promise.all([pay(api, mine), pay(otherApi, theirs)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await settled(`/v1/payin/${mine}`)).body.status).toBe('success');
    expect(
      (
        await eventually(
          () => otherApi.get(`/v1/payin/${theirs}`),
          (r) => r.body.status === 'success',
          60_000,
        )
      ).body.status,
    ).toBe('success');
    const book = new RouteBookStore(stack.mongo);
    expect((await book.read('collection', String(a.body.id))).entries.map((e) => e.connector)).toEqual([
      'simulator',
      'simulator-2',
    ]);
    expect((await book.read('collection', String(b.body.id))).entries.map((e) => e.connector)).toEqual([
      'simulator',
    ]);

    // Lifted: the merchant's next payin stays at the first route.
    const lifted = await api.post('/v1/sandbox/routes', {
      operator: 'MTN',
      country: 'CI',
      operation: 'payin',
      state: 'operational',
    });
    expect(lifted.body.data).toEqual([]);
    const again = `again-${randomUUID()}`;
    const c = await pay(api, again);
    expect((await settled(`/v1/payin/${again}`)).body.status).toBe('success');
    expect((await book.read('collection', String(c.body.id))).entries.map((e) => e.connector)).toEqual([
      'simulator',
    ]);
  });

  it("refuses a route control that says what its state does not use, in the caller's language", async () => {
    const res = await api.post(
      '/v1/sandbox/routes',
      { operator: 'MTN', country: 'CI', state: 'closed', successRate: 0.5 },
      { 'accept-language': 'fr' },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        path: 'successRate',
        message: 'Champ inconnu : retirez-le.',
      }),
    ]);
  });

  it('settles through the test helpers at the route that holds the transaction', async () => {
    await control(1, { operator: 'MTN', country: 'CI', operation: 'payin', state: 'closed' });
    const reference = `helper-${randomUUID()}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'pending',
      payin: { amount: 1_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
    });
    const id = String(created.body.id);
    await eventually(
      () => Promise.resolve([...booksOf(1)].some((k) => k.endsWith(id))),
      (held) => held,
      30_000,
    );
    const settle = await api.post(`/v1/sandbox/payins/${reference}/settle`, { outcome: 'completed' });
    expect(settle.status).toBe(200);
    expect((await settled(`/v1/payin/${reference}`)).body.status).toBe('success');
  });
});
