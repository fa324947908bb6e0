import WebSocket from 'ws';
import { ApiClient, basic, type Credentials } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { MerchantService } from '../../src/merchants';

// Multi-tenant safety through the real API on FerretDB (issue 16): revocation that sticks, single-use
// WebSocket tokens, the Basic scheme in any case, and bodies nested too deep answered 400.
const authCacheTtlMs = 300;
// Hundreds of deliberate 401s from one address: the per-address limit (auth-limits.test.ts) is off.
const { stack } = useStack({
  config: { AUTH_CACHE_TTL: `${authCacheTtlMs}ms`, RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '0' },
  merchant: false,
});
/** Another process's view of the merchants (the CLI's): no cache. */
let merchants: MerchantService;

beforeAll(async () => {
  merchants = MerchantService.on(stack.mongo);
  await merchants.init();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const probe = (credentials: Credentials | null, headers: Record<string, string> = {}) =>
  new ApiClient(stack.baseUrl, credentials).get('/v1/payin/probe', headers);
const wsUrl = () => `${stack.baseUrl.replace(/^http/, 'ws')}/v1/ws`;

/** Opens a WebSocket; resolves 'open' or the HTTP status of the refusal. */
function tryConnect(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket | null; status: number | 'open' }> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws, status: 'open' }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ws: null, status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', () => resolve({ ws: null, status: 0 }));
  });
}

describe('key revocation on FerretDB', () => {
  it('stays revoked when many authentications race it, and stops working within AUTH_CACHE_TTL', async () => {
    for (let round = 0; round < 12; round++) {
      const m = await createTestMerchant(stack, `Race ${round}`);
      const inFlight = Array.from({ length: 30 }, () => probe(m.credentials));
      // The revoke lands while the first authentications of this key are being served.
      await sleep(round * 3);
      await merchants.revokeKey(m.credentials.apiKey);
      const answers = await Promise.all(inFlight);
      for (const a of answers) expect([401, 404]).toContain(a.status);

      await sleep(authCacheTtlMs + 150);
      const stored = await stack.mongo
        .db!.collection('api_credentials')
        .findOne({ apiKey: m.credentials.apiKey });
      expect([round, stored?.status]).toEqual([round, 'revoked']);
      const after = await Promise.all(Array.from({ length: 5 }, () => probe(m.credentials)));
      expect([round, after.map((a) => a.status)]).toEqual([round, [401, 401, 401, 401, 401]]);
    }
  });

  it('stays revoked when authentications in this process race a revoke from another (no cache)', async () => {
    const api = MerchantService.on(stack.mongo, { authCacheTtlMs: 0 });
    for (let round = 0; round < 15; round++) {
      const m = await createTestMerchant(stack, `Service race ${round}`);
      const { apiKey, apiClient } = m.credentials;
      const racing = Array.from({ length: 40 }, () => api.authenticate(apiKey, apiClient));
      // The revoke lands at a different point of the authentications' reads and writes each round.
      await sleep(round % 15);
      await merchants.revokeKey(apiKey);
      await Promise.all(racing);
      const stored = await stack.mongo.db!.collection('api_credentials').findOne({ apiKey });
      expect([round, stored?.status]).toEqual([round, 'revoked']);
      await expect(api.authenticate(apiKey, apiClient)).resolves.toBeNull();
    }
  });

  it('still records when a key was last used, outside its credential document', async () => {
    const m = await createTestMerchant(stack);
    expect((await probe(m.credentials)).status).toBe(404);
    const keys = await merchants.listKeys(m.merchantId);
    expect(keys[0]!.lastUsedAt).toBeInstanceOf(Date);
    const stored = await stack.mongo
      .db!.collection('api_credentials')
      .findOne({ apiKey: m.credentials.apiKey });
    expect(stored?.lastUsedAt ?? null).toBeNull();
  });
});

describe('single-use WebSocket tokens', () => {
  it('open exactly one of 20 concurrent connections', async () => {
    const m = await createTestMerchant(stack);
    for (let round = 0; round < 3; round++) {
      const issued = await new ApiClient(stack.baseUrl, m.credentials).post('/v1/ws/tokens', {});
      expect(issued.status).toBe(201);
      const attempts = await Promise.all(
        Array.from({ length: 20 }, () => tryConnect(`${wsUrl()}?token=${issued.body.token}`)),
      );
      const statuses = attempts.map((a) => a.status);
      for (const a of attempts) a.ws?.terminate();
      expect([round, statuses.filter((s) => s === 'open').length]).toEqual([round, 1]);
      expect(statuses.filter((s) => s === 401)).toHaveLength(19);
    }
  });
});

describe('the Basic scheme (RFC 7617)', () => {
  it.each(['Basic', 'basic', 'BASIC', 'bAsIc'])(
    'accepts "%s" on the API and the WebSocket',
    async (scheme) => {
      const m = await createTestMerchant(stack);
      const authorization = basic(m.credentials).replace(/^Basic/, scheme);
      const res = await probe(null, { authorization });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('PAYMENT_NOT_FOUND');
      const ws = await tryConnect(wsUrl(), { authorization });
      ws.ws?.terminate();
      expect(ws.status).toBe('open');
    },
  );
});

describe('deeply nested JSON bodies', () => {
  const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  // Every kind of POST route: merchant API (idempotent), and the public checkout page's answers.
  const routes = [
    '/v1/direct/payin',
    '/v1/payin/sessions',
    '/v1/payin/some-reference/refund',
    '/v1/direct/payout',
    '/v1/payout',
    '/v1/webhooks',
    '/v1/webhooks/wh_0123456789abcdef01234567/rotate-secret',
    '/v1/webhooks/wh_0123456789abcdef01234567/enable',
    '/v1/events/evt_0123456789abcdef01234567/redeliver',
    '/v1/ws/tokens',
    '/checkout/cs_0123456789abcdef01234567/confirm',
    '/checkout/cs_0123456789abcdef01234567/decline',
  ];

  it.each(routes)('POST %s answers 400 problem+json, in English and French', async (path) => {
    const m = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, m.credentials);
    // 10,000 levels of arrays, and as many levels of objects as the 32 kB body limit lets through.
    for (const [body, lang, title] of [
      [deepArray(10_000), 'en', 'Invalid request'],
      [deepObject(5_000), 'fr', 'Requête invalide'],
      [deepArray(33), 'en', 'Invalid request'],
    ] as const) {
      const res = await api.post(path, body, { 'accept-language': lang });
      expect([path, body.length, res.status]).toEqual([path, body.length, 400]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', title });
      expect(JSON.stringify(res.body.errors)).toMatch(lang === 'en' ? /32 levels/ : /32 niveaux/);
    }
  });

  it('lets a body nested up to the limit reach the route', async () => {
    const m = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, m.credentials);
    // 32 levels: the route's own validation answers (an unknown field), not the depth check.
    const res = await api.post('/v1/ws/tokens', `{"x":${deepArray(31)}}`);
    expect(JSON.stringify(res.body)).not.toMatch(/32 levels/);
    expect((await api.post('/v1/ws/tokens', {})).status).toBe(201);
  });
});
