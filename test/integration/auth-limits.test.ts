import { merchantOfScope, modeOfApiKey, scopeOf } from '../../src/domain/modes';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Connection } from 'mongoose';
import WebSocket from 'ws';
import { ApiClient, type Credentials } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { connectTestMongo } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { MerchantService } from '../../src/merchants';
import { hashSecret, newApiKey, newSecret } from '../../src/merchants/credentials';
import { internalAccess, startMetricsServer } from '../../src/infra/metrics-server';

// Resource use before and around authentication (issue 16), on the real API and FerretDB: logins
// are `_id` lookups, an unknown key is remembered (no database read each time) without hiding a key
// created later, an address that keeps failing is refused before any lookup, and /metrics and the
// readiness details are not served to whoever reaches the port.
const failuresPerAddress = 10;
const metricsToken = 'metrics-token-for-tests-0123456789abcdef';
const { stack } = useStack({
  config: {
    AUTH_CACHE_TTL: '300ms',
    AUTH_NEGATIVE_CACHE_TTL: '60s',
    RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: String(failuresPerAddress),
    METRICS_TOKEN: metricsToken,
  },
  merchant: false,
  beforeStop: () => {
    stack.mongo.set('debug', false);
  },
});
/** Another process's view of the merchants (the CLI's): no cache. */
let cli: MerchantService;

beforeAll(async () => {
  cli = MerchantService.on(stack.mongo);
  await cli.init();
});

/** A fresh client address per test (the API trusts its loopback peer's X-Forwarded-For). */
let nextAddress = 1;
const address = () => `203.0.113.${nextAddress++}`;
const probe = (credentials: Credentials | null, from: string, headers: Record<string, string> = {}) =>
  new ApiClient(stack.baseUrl, credentials).get('/v1/payin/probe', { 'x-forwarded-for': from, ...headers });
const unknownKey = (): Credentials => ({ apiKey: newApiKey('test'), apiClient: newSecret('test') });

/** The reads mongoose sends on the merchant collections while `fn` runs. */
async function credentialReads(
  fn: () => Promise<unknown>,
): Promise<{ collection: string; filter: unknown }[]> {
  const reads: { collection: string; filter: unknown }[] = [];
  stack.mongo.set('debug', (collection: string, method: string, filter: unknown) => {
    if (['api_credentials', 'merchants'].includes(collection) && /^find/.test(method))
      reads.push({ collection, filter });
  });
  try {
    await fn();
  } finally {
    stack.mongo.set('debug', false);
  }
  return reads;
}

describe('credential lookups', () => {
  it('authenticate with one `_id` read of the credential and one of the merchant, never a scan', async () => {
    const m = await createTestMerchant(stack);
    const reads = await credentialReads(async () => {
      expect((await probe(m.credentials, address())).status).toBe(404);
    });
    expect(reads).toEqual([
      { collection: 'api_credentials', filter: { _id: m.credentials.apiKey } },
      // The merchant behind the test-mode scope the key resolves to.
      { collection: 'merchants', filter: { _id: merchantOfScope(m.merchantId) } },
    ]);
  });

  it('remember an unknown key: one read, then none while it is remembered', async () => {
    const from = address();
    const stranger = unknownKey();
    const reads = await credentialReads(async () => {
      for (let i = 0; i < 5; i++) expect((await probe(stranger, from)).status).toBe(401);
    });
    expect(reads).toEqual([{ collection: 'api_credentials', filter: { _id: stranger.apiKey } }]);
    // A wrong secret for a real key costs no more reads than the key's own lookup either.
    const m = await createTestMerchant(stack);
    const wrong = await credentialReads(async () => {
      for (let i = 0; i < 3; i++)
        expect((await probe({ ...m.credentials, apiClient: newSecret('test') }, from)).status).toBe(401);
    });
    expect(wrong.filter((r) => r.collection === 'api_credentials')).toHaveLength(1);
  });

  it('never hide a key created after unknown keys were tried, nor a merchant reactivated', async () => {
    const from = address();
    for (let i = 0; i < 3; i++) expect((await probe(unknownKey(), from)).status).toBe(401);
    // Issued from another process after the failures: it works at once.
    const m = await createTestMerchant(stack, 'Created later');
    expect((await probe(m.credentials, address())).status).toBe(404);
    const rotated = await cli.rotateKeys(m.merchantId);
    expect((await probe(rotated, address())).status).toBe(404);

    // Suspension applies within AUTH_CACHE_TTL, and so does reactivation (not the negative TTL).
    await cli.suspendMerchant(m.merchantId);
    await new Promise((r) => setTimeout(r, 400));
    expect((await probe(m.credentials, address())).status).toBe(401);
    await cli.reactivateMerchant(m.merchantId);
    await new Promise((r) => setTimeout(r, 400));
    expect((await probe(m.credentials, address())).status).toBe(404);
  });

  it('moves credentials and merchants stored with ObjectId ids to `_id` lookups at start', async () => {
    const mongo: Connection = await connectTestMongo();
    try {
      // As an older version stored them: ObjectId _id, unique indexes on the keys.
      const merchants = mongo.db!.collection('merchants');
      const credentials = mongo.db!.collection('api_credentials');
      await merchants.createIndex({ id: 1 }, { unique: true });
      await credentials.createIndex({ apiKey: 1 }, { unique: true });
      const now = new Date();
      const merchantId = `mer_${randomBytes(12).toString('hex')}`;
      const [apiKey, apiClient] = [newApiKey('test'), newSecret('test')];
      const [revokedKey] = [newApiKey('test')];
      await merchants.insertOne({
        id: merchantId,
        name: 'Legacy',
        status: 'active',
        settings: { refundWindowDays: 7 },
        createdAt: now,
        updatedAt: now,
      });
      await credentials.insertMany([
        {
          apiKey,
          merchantId,
          secretHash: hashSecret(apiClient),
          status: 'active',
          createdAt: now,
          revokedAt: null,
        },
        {
          apiKey: revokedKey,
          merchantId,
          secretHash: hashSecret(apiClient),
          status: 'revoked',
          createdAt: now,
          revokedAt: now,
        },
      ]);

      // Twice, as two processes starting one after the other (the second finds nothing to move).
      for (let i = 0; i < 2; i++) await MerchantService.on(mongo).init();
      const service = MerchantService.on(mongo);
      expect(await credentials.find({}).toArray()).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ _id: apiKey, apiKey, status: 'active' }),
          expect.objectContaining({ _id: revokedKey, status: 'revoked' }),
        ]),
      );
      expect(await credentials.countDocuments()).toBe(2);
      expect(await merchants.findOne({ _id: merchantId as never })).toMatchObject({ id: merchantId });
      expect(await merchants.countDocuments()).toBe(1);
      await expect(service.authenticate(apiKey, apiClient)).resolves.toBe(
        scopeOf(merchantId, modeOfApiKey(apiKey)),
      );
      await expect(service.authenticate(revokedKey, apiClient)).resolves.toBeNull();
      expect((await service.listKeys(merchantId)).map((k) => k.apiKey).sort()).toEqual(
        [apiKey, revokedKey].sort(),
      );
      // New keys and merchants are written with their key as `_id`.
      const created = await service.createMerchant('New');
      expect(await credentials.findOne({ _id: created.apiKey as never })).not.toBeNull();
      expect(await merchants.findOne({ _id: created.merchantId as never })).not.toBeNull();
    } finally {
      await mongo.dropDatabase();
      await mongo.close();
    }
  });
});

describe('failed authentications per client address', () => {
  it(`answer 429 past ${failuresPerAddress} a minute from one address, before any credential lookup`, async () => {
    const from = address();
    for (let i = 0; i < failuresPerAddress; i++) expect((await probe(unknownKey(), from)).status).toBe(401);
    const m = await createTestMerchant(stack);
    let refused: Awaited<ReturnType<typeof probe>> | null = null;
    const reads = await credentialReads(async () => {
      refused = await probe(unknownKey(), from, { 'accept-language': 'fr' });
    });
    expect(refused!.status).toBe(429);
    expect(refused!.body).toMatchObject({ code: 'RATE_LIMITED', title: 'Trop de requêtes' });
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(reads).toEqual([]);
    // The address is refused whatever it sends, a WebSocket upgrade included.
    expect((await probe(m.credentials, from)).status).toBe(429);
    const ws = new WebSocket(`${stack.baseUrl.replace(/^http/, 'ws')}/v1/ws`, {
      headers: { 'x-forwarded-for': from },
    });
    const status = await new Promise<number>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.once('error', () => resolve(0));
    });
    ws.terminate();
    expect(status).toBe(429);
    // Another address is not.
    expect((await probe(m.credentials, address())).status).toBe(404);
  });

  it('count only failures: a merchant calling often from one address is never throttled by it', async () => {
    const from = address();
    const m = await createTestMerchant(stack);
    for (let i = 0; i < 3 * failuresPerAddress; i++)
      expect((await probe(m.credentials, from)).status).toBe(404);
    // Refused WebSocket upgrades count like 401s.
    for (let i = 0; i < failuresPerAddress; i++) {
      const ws = new WebSocket(`${stack.baseUrl.replace(/^http/, 'ws')}/v1/ws?token=wst_nope${i}`, {
        headers: { 'x-forwarded-for': from },
      });
      const status = await new Promise<number>((resolve) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => resolve(0));
      });
      ws.terminate();
      expect(status).toBe(401);
    }
    expect((await probe(m.credentials, from)).status).toBe(429);
  });
});

describe('/metrics and readiness details', () => {
  const remote = { 'x-forwarded-for': '198.51.100.20' };
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}${path}`, { headers }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));

  it('answer a caller on this host', async () => {
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('payments_http_request_duration_seconds');
    const ready = await get('/health/ready');
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready', checks: { mongo: true, temporal: true } });
  });

  it('answer 404 and the readiness status alone to a remote caller, everything with METRICS_TOKEN', async () => {
    const metrics = await get('/metrics', remote);
    expect(metrics.status).toBe(404);
    expect(metrics.text).not.toContain('payments_');
    const ready = await get('/health/ready', remote);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready' });
    expect((await get('/metrics', { ...remote, authorization: 'Bearer wrong-token' })).status).toBe(404);

    const withToken = { ...remote, authorization: `Bearer ${metricsToken}` };
    expect((await get('/metrics', withToken)).status).toBe(200);
    expect(JSON.parse((await get('/health/ready', withToken)).text)).toEqual({
      status: 'ready',
      checks: { mongo: true, temporal: true },
    });
  });

  it("hold for the worker's /metrics listener, from a real non-loopback peer where the host has one", async () => {
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    const server: Server = await startMetricsServer(0, '0.0.0.0', internalAccess(metricsToken));
    try {
      const port = (server.address() as { port: number }).port;
      const at = (host: string, headers: Record<string, string> = {}) =>
        fetch(`http://${host}:${port}/metrics`, { headers }).then((r) => r.status);
      expect(await at('127.0.0.1')).toBe(200);
      expect(await at('127.0.0.1', remote)).toBe(404);
      if (lan) {
        expect(await at(lan)).toBe(404);
        expect(await at(lan, { authorization: `Bearer ${metricsToken}` })).toBe(200);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
