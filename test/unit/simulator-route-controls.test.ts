import request from 'supertest';
import { createSimulatorApp, type Simulator } from '../../src/simulator/app';
import { configSchema } from '../../src/config';

// The sandbox routes' outage control (src/simulator/route-controls.ts): a closed or degraded route
// answers 503 to a request it does not hold, before taking anything (its status read then answers
// 404, which is what lets the service fail over); it always answers for what it holds; `slow` delays
// every answer of the pair; a control ends by itself.

const callbackSecrets = configSchema.parse({}).OPERATOR_CALLBACK_SECRETS;
const collection = (transactionId: string) => ({
  transactionId,
  country: 'CI',
  msisdn: '+2250500000001',
  amount: 1000,
  currency: 'XOF',
  sandboxScenario: 'pending',
});

describe('sandbox route outage controls', () => {
  let sim: Simulator;
  beforeEach(() => {
    sim = createSimulatorApp({ callbackSecrets, callbackBaseUrl: null, settleDelayMs: 10_000 });
  });
  afterEach(() => sim.close());

  const post = (path: string, body: object) => request(sim.app).post(path).send(body);

  it('closes one route of one pair: 503 before taking, 404 on its status, the other route and pair untouched', async () => {
    const set = await post('/routes/2/_sandbox/routes', { operator: 'MTN', country: 'CI', state: 'closed' });
    expect(set.status).toBe(200);
    expect(
      set.body.controls.map((c: { pair: string; operation: string }) => `${c.pair}:${c.operation}`).sort(),
    ).toEqual(['MTN_CI:payin', 'MTN_CI:payout']);
    const refused = await post('/routes/2/operators/MTN/collections', collection('pr_closed1'));
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('ROUTE_UNAVAILABLE');
    expect(
      (await request(sim.app).get('/routes/2/operators/MTN/collections/pr_closed1?country=CI')).status,
    ).toBe(404);
    expect(sim.routes[1]!.transactions.size).toBe(0);
    // The first route, and another pair at the second, take requests as before.
    expect((await post('/operators/MTN/collections', collection('pr_open1'))).status).toBe(201);
    expect(
      (
        await post('/routes/2/operators/MOOV/collections', {
          ...collection('pr_moov1'),
          msisdn: '+2250100000001',
        })
      ).status,
    ).toBe(201);
    expect(sim.routes[0]!.transactions.has('collection:pr_open1')).toBe(true);
    expect(sim.routes[1]!.transactions.has('collection:pr_open1')).toBe(false);
  });

  it("acts on one tenant's new requests only when scoped, before the whole route's control", async () => {
    const scope = 'mer_a_test';
    await post('/_sandbox/routes', {
      operator: 'MTN',
      country: 'CI',
      operation: 'payin',
      state: 'closed',
      scope,
    });
    expect((await request(sim.app).get(`/_sandbox/routes?scope=${scope}`)).body.controls).toEqual([
      expect.objectContaining({ pair: 'MTN_CI', operation: 'payin', state: 'closed' }),
    ]);
    expect((await request(sim.app).get('/_sandbox/routes')).body.controls).toEqual([]);
    const mine = await post('/operators/MTN/collections', {
      ...collection('pr_scoped1'),
      sandboxScope: scope,
    });
    expect(mine.status).toBe(503);
    const other = await post('/operators/MTN/collections', {
      ...collection('pr_scoped2'),
      sandboxScope: 'mer_b_test',
    });
    expect(other.status).toBe(201);
    expect((await post('/operators/MTN/collections', collection('pr_scoped3'))).status).toBe(201);
    // The tenant's own `operational` lifts its control only, never the route's.
    await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', operation: 'payin', state: 'closed' });
    await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', state: 'operational', scope });
    expect(
      (await post('/operators/MTN/collections', { ...collection('pr_scoped4'), sandboxScope: scope })).status,
    ).toBe(503);
    expect((await request(sim.app).get('/_sandbox/routes?scope=bad%20scope')).status).toBe(400);
  });

  it('always answers for a transaction the route holds, and reopens when cleared', async () => {
    expect((await post('/operators/MTN/collections', collection('pr_held1'))).status).toBe(201);
    await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', operation: 'payin', state: 'closed' });
    expect((await post('/operators/MTN/collections', collection('pr_held1'))).status).toBe(200);
    expect((await post('/operators/MTN/collections', collection('pr_new1'))).status).toBe(503);
    await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', state: 'operational' });
    expect((await post('/operators/MTN/collections', collection('pr_new1'))).status).toBe(201);
  });

  it('takes a share of new requests when degraded, and slows every answer when slow', async () => {
    await post('/_sandbox/routes', {
      operator: 'MTN',
      country: 'CI',
      operation: 'payin',
      state: 'degraded',
      successRate: 0.5,
    });
    const statuses = [];
    for (let i = 0; i < 40; i++)
      statuses.push((await post('/operators/MTN/collections', collection(`pr_deg${i}`))).status);
    const taken = statuses.filter((s) => s === 201).length;
    expect(taken).toBeGreaterThan(5);
    expect(taken).toBeLessThan(35);
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);

    await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', state: 'slow', delayMs: 300 });
    const started = Date.now();
    expect((await request(sim.app).get('/operators/MTN/collections/pr_deg0?country=CI')).status).not.toBe(
      503,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('refuses a control it cannot apply', async () => {
    expect(
      (await post('/_sandbox/routes', { operator: 'MTN', country: 'CI', state: 'closed', successRate: 0.2 }))
        .status,
    ).toBe(400);
    expect((await post('/_sandbox/routes', { operator: 'MTN', country: 'XX', state: 'closed' })).status).toBe(
      400,
    );
  });
});
