import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import {
  MeasuringGateway,
  ProviderHealth,
  type HealthOperation,
  type HealthState,
} from '../../src/operators/health';
import {
  OperatorRejectedError,
  OperatorUnavailableError,
  type OperatorGateway,
} from '../../src/operators/gateway';
import type { Mode } from '../../src/domain/modes';
import type { ProviderName } from '../../src/domain/operators';

// Live availability (src/operators/health) against the real stack and FerretDB: measured outcomes
// over the window, the ops override, GET /v1/providers, the checkout page and the 503 refusals.
const MIN = 60_000;

describe('provider health', () => {
  // The API's cached read (5 s by default) is what every change here waits out, a few times a test:
  // 500 ms shows the same cached view, ten times sooner (the file took 54 s in CI, 90 s loaded).
  const { stack, api, anonymous: customer } = useStack({ config: { PROVIDER_HEALTH_CACHE: '500ms' } });
  /** Ops' handle on the same database as the API (whose cached read lasts PROVIDER_HEALTH_CACHE). */
  let ops: ProviderHealth;
  let seq = 0;

  beforeAll(() => {
    ops = new ProviderHealth(stack.mongo, {
      windowMs: 10 * MIN,
      minAttempts: 5,
      cacheMs: 0,
      routed: () => true,
    });
  });
  afterEach(async () => {
    for (const mode of ['test', 'live'] as const)
      for (const provider of ['MTN_CI', 'ORANGE_CI', 'MOOV_CI', 'WAVE_CI'] as const)
        for (const op of ['payin', 'payout', 'refund'] as const) await ops.clearOverride(mode, provider, op);
    // The API reuses its read for PROVIDER_HEALTH_CACHE: the next test starts from a clean view.
    await eventually(
      async () => (await api.get('/v1/providers?country=CI')).body.providers,
      (list: { health: { payin: { state: string } } }[]) =>
        list.every((p) => p.health.payin.state === 'operational'),
    );
  });

  const force = (
    mode: Mode,
    provider: ProviderName,
    op: HealthOperation,
    state: HealthState,
    forMs = 10 * MIN,
  ) => ops.setOverride(mode, provider, op, state, forMs, 'provider-health test');
  const payin = (provider: string, msisdn: string) => ({
    reference: `health-${seq++}`,
    customerName: 'Awa Koné',
    payin: { amount: 5000, msisdn, provider, country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    sandboxScenario: 'completed',
  });
  const session = () => ({
    reference: `health-s-${seq++}`,
    amount: 5000,
    msisdn: '+2250500000001',
    country: 'CI',
    sandboxScenario: 'completed',
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });
  const mtnOf = (body: { providers: { name: string }[] }) =>
    body.providers.find((p) => p.name === 'MTN_CI') as any;
  /** Waits until the API (its cached read) sees `name`'s payin state, without side effects. */
  const visible = (name: string, state: HealthState) =>
    eventually(
      async () =>
        (await api.get('/v1/providers?country=CI')).body.providers.find((p: any) => p.name === name),
      (p) => p.health.payin.state === state,
    );

  it('measures outcomes through MeasuringGateway: half unanswered closes, refusals are answers, the window forgets', async () => {
    let now = Date.now();
    const health = new ProviderHealth(stack.mongo, {
      windowMs: 10 * MIN,
      minAttempts: 5,
      cacheMs: 0,
      routed: () => true,
      now: () => now,
      processId: `proc-${Date.now()}`,
    });
    let fail: Error | null = null;
    const inner = {
      requestCollection: async () => {
        if (fail) throw fail;
        return { outcome: 'pending' };
      },
    } as unknown as OperatorGateway;
    const gw = new MeasuringGateway(inner, 'live', health.recorder);
    const req = { operator: 'MOOV', country: 'CI' } as Parameters<OperatorGateway['requestCollection']>[0];
    for (let i = 0; i < 3; i++) await gw.requestCollection(req);
    fail = new OperatorRejectedError('refused');
    for (let i = 0; i < 3; i++) await expect(gw.requestCollection(req)).rejects.toBe(fail);
    await health.refresh();
    expect((await health.stateOf('live', 'MOOV', 'CI', 'payin')).state).toBe('operational');
    fail = new OperatorUnavailableError('timeout');
    for (let i = 0; i < 6; i++) await expect(gw.requestCollection(req)).rejects.toBe(fail);
    await health.refresh();
    // 6 of 12 unanswered: closed, since the minute of the first one; other operations and modes untouched.
    expect(await health.stateOf('live', 'MOOV', 'CI', 'payin')).toMatchObject({
      state: 'closed',
      retryAfterSeconds: 60,
      since: new Date(Math.floor(now / MIN) * MIN).toISOString(),
    });
    expect((await health.stateOf('live', 'MOOV', 'CI', 'payout')).state).toBe('operational');
    expect((await health.stateOf('test', 'MOOV', 'CI', 'payin')).state).toBe('operational');
    // Another process reading the same collection sees the same buckets.
    const reader = new ProviderHealth(stack.mongo, {
      windowMs: 10 * MIN,
      minAttempts: 5,
      cacheMs: 0,
      routed: () => true,
      now: () => now,
    });
    expect((await reader.stateOf('live', 'MOOV', 'CI', 'payin')).state).toBe('closed');
    now += 11 * MIN;
    expect((await health.stateOf('live', 'MOOV', 'CI', 'payin')).state).toBe('operational');
    await health.stop();
  });

  it('GET /v1/providers shows each provider state per operation, in the caller mode', async () => {
    const before = await api.get('/v1/providers?country=CI');
    expect(mtnOf(before.body)).toMatchObject({
      available: true,
      health: {
        payin: { state: 'operational', since: null, connector: 'sandbox' },
        payout: { state: 'operational', connector: 'sandbox' },
      },
    });
    await force('test', 'MTN_CI', 'payin', 'closed');
    await force('test', 'MTN_CI', 'payout', 'delayed');
    await force('live', 'ORANGE_CI', 'payin', 'closed');
    await eventually(
      async () => mtnOf((await api.get('/v1/providers?country=CI')).body),
      (p) => p.health.payin.state === 'closed',
    );
    const after = await api.get('/v1/providers?country=CI');
    expect(mtnOf(after.body)).toMatchObject({
      available: false,
      health: { payin: { state: 'closed' }, payout: { state: 'delayed' }, refund: { state: 'operational' } },
    });
    expect(typeof mtnOf(after.body).health.payin.since).toBe('string');
    // The live override is not the test key's business.
    const orange = after.body.providers.find((p: { name: string }) => p.name === 'ORANGE_CI');
    expect(orange).toMatchObject({ available: true, health: { payin: { state: 'operational' } } });
  });

  it('refuses a direct payin to a closed provider with 503 PROVIDER_UNAVAILABLE (en/fr, Retry-After), nothing stored', async () => {
    await force('test', 'MTN_CI', 'payin', 'closed', 5 * MIN);
    await visible('MTN_CI', 'closed');
    const body = payin('MTN', '+2250500000001');
    const res = await api.post('/v1/direct/payin', body);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      status: 503,
      title: 'Provider unavailable',
    });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(200);
    expect(retryAfter).toBeLessThanOrEqual(300);
    const fr = await api.post('/v1/direct/payin', payin('MTN', '+2250500000001'), {
      'accept-language': 'fr',
    });
    expect(fr.status).toBe(503);
    expect(fr.body.title).toBe('Opérateur indisponible');
    expect(fr.headers.get('retry-after')).toBeTruthy();
    expect((await api.get(`/v1/payin/${body.reference}`)).status).toBe(404);
    // Another provider, and the same one once ops reopen it, are served.
    expect((await api.post('/v1/direct/payin', payin('WAVE', '+2250500000001'))).status).toBe(201);
    await ops.clearOverride('test', 'MTN_CI', 'payin');
    await visible('MTN_CI', 'operational');
    expect((await api.post('/v1/direct/payin', payin('MTN', '+2250500000001'))).status).toBe(201);
  });

  it('a session is refused only when every provider of the country is closed', async () => {
    for (const p of ['ORANGE_CI', 'MTN_CI', 'MOOV_CI'] as const) await force('test', p, 'payin', 'closed');
    await visible('MOOV_CI', 'closed');
    await visible('MTN_CI', 'closed');
    expect((await api.post('/v1/payin/sessions', session())).status).toBe(201);
    await force('test', 'WAVE_CI', 'payin', 'closed', 2 * MIN);
    await visible('WAVE_CI', 'closed');
    const res = await api.post('/v1/payin/sessions', session());
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(120);
  });

  it('the checkout page shows a closed provider as unavailable, does not offer it, and confirm refuses it', async () => {
    const created = await api.post('/v1/payin/sessions', session());
    expect(created.status).toBe(201);
    const path = new URL(created.body.paymentUrl as string).pathname;
    await force('test', 'MTN_CI', 'payin', 'closed');
    const html = await eventually(
      async () => (await customer.get(path, { accept: 'text/html', 'accept-language': 'fr' })).body as string,
      (h) => h.includes('data-unavailable'),
    );
    expect(html).toMatch(/<option value="MTN" disabled data-unavailable>[^<]*temporairement indisponible/);
    // The number is MTN's, but the page does not preselect a closed provider.
    expect(html).not.toMatch(/<option value="MTN"[^>]*selected/);
    expect(html).toMatch(/<option value="ORANGE"/);
    const confirm = await customer.request('POST', `${path}/confirm`, {
      provider: 'MTN',
      msisdn: '+2250500000001',
    });
    expect(confirm.status).toBe(503);
    expect(confirm.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect(confirm.headers.get('retry-after')).toBeTruthy();
    // Nothing was answered: the session still waits for the customer, no provider recorded.
    const record = await api.get(`/v1/payin/${created.body.reference as string}`);
    expect(record.body.mobileMoney ?? null).toBeNull();
  });
});
