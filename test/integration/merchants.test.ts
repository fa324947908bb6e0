import { merchantOfScope, scopeOf } from '../../src/domain/modes';
import { createHash } from 'node:crypto';
import { ApiClient, type Credentials } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { MerchantService } from '../../src/merchants';

// Credentials and tenant isolation through HTTP, against the real API, FerretDB and Temporal.
// No auth cache in the API here: revocations made by this test apply to the next request.
const { stack } = useStack({ config: { AUTH_CACHE_TTL: '0ms' }, merchant: false });
let merchants: MerchantService;

beforeAll(async () => {
  merchants = MerchantService.on(stack.mongo);
  await merchants.init();
});

describe('merchants: authentication and tenant isolation', () => {
  const payin = (reference: string) => ({
    reference,
    sandboxScenario: 'completed',
    customerName: 'Awa Koné',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });

  /** An authenticated read that reaches the route: 404 PAYMENT_NOT_FOUND, not 401. */
  async function probe(credentials: Credentials | null, headers: Record<string, string> = {}) {
    return new ApiClient(stack.baseUrl, credentials).get('/v1/payin/probe', headers);
  }

  function expectUnauthorized(res: Awaited<ReturnType<typeof probe>>, lang: 'en' | 'fr' = 'en') {
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic\b/);
    expect(res.body).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      title: lang === 'en' ? 'Unauthorized' : 'Non autorisé',
      type: expect.any(String),
      detail: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
  }

  it('lets valid credentials through', async () => {
    const m = await createTestMerchant(stack);
    // Test keys resolve to the merchant's test scope (src/domain/modes.ts).
    expect(m.merchantId).toMatch(/^mer_[0-9a-f]{24}_test$/);
    expect(m.credentials.apiKey).toMatch(/^mk_test_[0-9a-f]{24}$/);
    const res = await probe(m.credentials);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('PAYMENT_NOT_FOUND');
  });

  it('stores only a hash of the secret', async () => {
    const m = await createTestMerchant(stack);
    const raw = await stack.mongo.db!.collection('api_credentials').findOne({ apiKey: m.credentials.apiKey });
    expect(raw).not.toBeNull();
    expect(JSON.stringify(raw)).not.toContain(m.credentials.apiClient);
    expect(raw!.secretHash).toBe(createHash('sha256').update(m.credentials.apiClient).digest('hex'));
  });

  it('answers 401 problem+json with WWW-Authenticate to missing and malformed headers', async () => {
    expectUnauthorized(await probe(null));
    expectUnauthorized(await probe(null, { 'accept-language': 'fr' }), 'fr');
    const garbage = [
      'Bearer abc',
      'Basic',
      'Basic !!!not-base64',
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
      `Basic ${Buffer.from(':only-secret').toString('base64')}`,
      `Basic ${Buffer.from('only-key:').toString('base64')}`,
    ];
    for (const authorization of garbage) expectUnauthorized(await probe(null, { authorization }));
  });

  it('answers 401 to a wrong secret and to an unknown key', async () => {
    const m = await createTestMerchant(stack);
    expectUnauthorized(
      await probe({ apiKey: m.credentials.apiKey, apiClient: `${m.credentials.apiClient}x` }),
    );
    expectUnauthorized(await probe({ apiKey: m.credentials.apiKey, apiClient: 'secret' }));
    expectUnauthorized(
      await probe({ apiKey: 'mk_test_000000000000000000000000', apiClient: m.credentials.apiClient }),
    );
    expectUnauthorized(await probe({ apiKey: 'mk_skeleton', apiClient: 'secret' }));
    // Another merchant's secret does not open this merchant's key.
    const other = await createTestMerchant(stack);
    expectUnauthorized(await probe({ apiKey: m.credentials.apiKey, apiClient: other.credentials.apiClient }));
  });

  it('keeps the old pair valid after rotation until it is revoked', async () => {
    const m = await createTestMerchant(stack);
    const rotated = await merchants.rotateKeys(m.merchantId);
    expect(rotated.merchantId).toBe(merchantOfScope(m.merchantId));
    expect(rotated.apiKey).not.toBe(m.credentials.apiKey);
    const fresh = { apiKey: rotated.apiKey, apiClient: rotated.apiClient };

    expect((await probe(m.credentials)).status).toBe(404);
    expect((await probe(fresh)).status).toBe(404);

    await merchants.revokeKey(m.credentials.apiKey);
    expectUnauthorized(await probe(m.credentials));
    expect((await probe(fresh)).status).toBe(404);
    // Revoking twice is harmless; the key stays revoked.
    await expect(merchants.revokeKey(m.credentials.apiKey)).resolves.toMatchObject({ status: 'revoked' });
    expectUnauthorized(await probe(m.credentials));
  });

  it('answers 401 to every key of a suspended merchant, and lets it back in when reactivated', async () => {
    const m = await createTestMerchant(stack);
    const second = await merchants.rotateKeys(m.merchantId);
    await merchants.suspendMerchant(m.merchantId);
    expectUnauthorized(await probe(m.credentials));
    expectUnauthorized(await probe({ apiKey: second.apiKey, apiClient: second.apiClient }));
    const created = await new ApiClient(stack.baseUrl, m.credentials).post(
      '/v1/direct/payin',
      payin('susp-1'),
    );
    expectUnauthorized(created);

    await merchants.reactivateMerchant(m.merchantId);
    expect((await probe(m.credentials)).status).toBe(404);
  });

  it('isolates tenants: another merchant reference is 404 exactly like an unknown one', async () => {
    const a = new ApiClient(stack.baseUrl, (await createTestMerchant(stack, 'A')).credentials);
    const b = new ApiClient(stack.baseUrl, (await createTestMerchant(stack, 'B')).credentials);
    const created = await a.post('/v1/direct/payin', payin('shared-ref'));
    expect(created.status).toBe(201);
    expect((await a.get('/v1/payin/shared-ref')).status).toBe(200);

    const foreign = await b.get('/v1/payin/shared-ref');
    const unknown = await b.get('/v1/payin/never-used-ref');
    expect(foreign.status).toBe(404);
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
    const { instance: fi, ...foreignBody } = foreign.body;
    const { instance: ui, ...unknownBody } = unknown.body;
    expect(fi).toBe('/v1/payin/shared-ref');
    expect(ui).toBe('/v1/payin/never-used-ref');
    expect(foreignBody).toEqual(unknownBody);
    expect(JSON.stringify(foreign.body)).not.toContain(created.body.id);

    // The same reference is B's own to use, and creates B's own transaction.
    const mine = await b.post('/v1/direct/payin', payin('shared-ref'));
    expect(mine.status).toBe(201);
    expect(mine.body.id).not.toBe(created.body.id);
    expect((await a.get('/v1/payin/shared-ref')).body.id).toBe(created.body.id);
  });
});

// The in-process cache of successful lookups, on the service itself (the delay is by design).
describe('merchants: authentication cache', () => {
  it('never caches a wrong secret, and bounds how long another process revocation takes', async () => {
    // Long enough that the checks right after the revocation stay inside it on a loaded machine.
    const ttlMs = 3_000;
    const api = MerchantService.on(stack.mongo, { authCacheTtlMs: ttlMs });
    const cli = MerchantService.on(stack.mongo);
    const { merchantId, apiKey, apiClient } = await cli.createMerchant('Cached');

    await expect(api.authenticate(apiKey, apiClient)).resolves.toBe(scopeOf(merchantId, 'test'));
    await expect(api.authenticate(apiKey, 'wrong')).resolves.toBeNull();

    // Revoked elsewhere: still served from this process cache until the TTL ends, then refused.
    await cli.revokeKey(apiKey);
    await expect(api.authenticate(apiKey, apiClient)).resolves.toBe(scopeOf(merchantId, 'test'));
    await new Promise((r) => setTimeout(r, ttlMs + 50));
    await expect(api.authenticate(apiKey, apiClient)).resolves.toBeNull();

    // Changed from the same process: applies at once.
    const second = await api.rotateKeys(merchantId);
    await expect(api.authenticate(second.apiKey, second.apiClient)).resolves.toBe(
      scopeOf(merchantId, 'test'),
    );
    await api.suspendMerchant(merchantId);
    await expect(api.authenticate(second.apiKey, second.apiClient)).resolves.toBeNull();
    await api.reactivateMerchant(merchantId);
    await expect(api.authenticate(second.apiKey, second.apiClient)).resolves.toBe(
      scopeOf(merchantId, 'test'),
    );
    await api.revokeKey(second.apiKey);
    await expect(api.authenticate(second.apiKey, second.apiClient)).resolves.toBeNull();
  });

  it("reuses a merchant's settings for new transactions within the TTL; its own changes at once", async () => {
    const ttlMs = 3_000;
    const api = MerchantService.on(stack.mongo, { authCacheTtlMs: ttlMs });
    const cli = MerchantService.on(stack.mongo);
    const { merchantId } = await cli.createMerchant('Settings');
    expect((await api.settingsOf(merchantId))?.payFee).toBe(true);
    // Changed elsewhere (the CLI): this process reads it again once the TTL ends.
    await cli.configure(merchantId, { payFee: false });
    expect((await api.settingsOf(scopeOf(merchantId, 'live')))?.payFee).toBe(true);
    await new Promise((r) => setTimeout(r, ttlMs + 50));
    expect((await api.settingsOf(merchantId))?.payFee).toBe(false);
    // Changed here: at once.
    await api.configure(merchantId, { refundWindowDays: 3 });
    expect(await api.settingsOf(merchantId)).toMatchObject({ payFee: false, refundWindowDays: 3 });
    await expect(api.settingsOf('mer_unknown')).resolves.toBeNull();
  });

  it('takes the settings from the read that authenticated the request', async () => {
    const api = MerchantService.on(stack.mongo, { authCacheTtlMs: 60_000 });
    const cli = MerchantService.on(stack.mongo);
    const { merchantId, apiKey, apiClient } = await cli.createMerchant('One read');
    await expect(api.authenticate(apiKey, apiClient)).resolves.not.toBeNull();
    // Changed elsewhere after the authentication: the creation that follows reads no merchant again.
    await cli.configure(merchantId, { payFee: false });
    expect((await api.settingsOf(merchantId))?.payFee).toBe(true);
  });

  it('records when a key was last used', async () => {
    const svc = MerchantService.on(stack.mongo);
    const { merchantId, apiKey, apiClient } = await svc.createMerchant('Used');
    // By its id: the test and live keys created in the same millisecond list live first.
    const used = async () => (await svc.listKeys(merchantId)).find((k) => k.apiKey === apiKey)!.lastUsedAt;
    expect(await used()).toBeNull();
    await svc.authenticate(apiKey, apiClient);
    expect(await used()).toBeInstanceOf(Date);
  });
});
