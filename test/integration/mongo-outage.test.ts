import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startFerretDB, type LocalServer } from '../../src/infra/local-servers';
import { problemSchema } from '../../src/contract/problems';
import { ApiClient, eventually } from '../helpers/http';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant } from '../helpers/merchants';

// While MongoDB is down the API answers 503 problem+json with Retry-After, quickly, never a 500 or
// a hang, and recovers by itself once the server is back. This file runs its own FerretDB (the
// shared one must not stop under other test files) and kills it with SIGKILL.
const SELECTION_MS = 20_000;

describe('MongoDB outage', () => {
  let dir: string;
  let port: number;
  let ferret: LocalServer;
  let stack: TestStack;
  const savedUrl = process.env.TEST_MONGODB_URL;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'momo-outage-'));
    port = await freePort();
    ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
    // startStack connects to TEST_MONGODB_URL (process.env is this test file's own copy).
    process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
    // The driver waits 20 s for a server, so an answer that waited for it cannot pass for the
    // guard's on a loaded machine (a 5 s wait and a slow guard answer both measured ~5.5 s).
    stack = await startStack({ AUTH_CACHE_TTL: '1m' }, { serverSelectionTimeoutMS: SELECTION_MS });
  });
  afterAll(async () => {
    await stack?.stop();
    await ferret?.stop();
    process.env.TEST_MONGODB_URL = savedUrl;
    rmSync(dir, { recursive: true, force: true });
  });

  const payin = (reference: string) => ({
    reference,
    sandboxScenario: 'completed',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });

  it('answers 503 with Retry-After while FerretDB is down, then recovers without a restart', async () => {
    const merchant = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, merchant.credentials, { 'accept-language': 'fr' });
    // A second merchant whose key the API has never checked: its authentication needs the database.
    const uncached = new ApiClient(stack.baseUrl, (await createTestMerchant(stack)).credentials);
    expect((await api.post('/v1/direct/payin', payin('before-outage'))).status).toBe(201);
    await eventually(
      () => api.get('/v1/payin/before-outage'),
      (r) => r.body.status === 'success',
    );

    ferret.process.kill('SIGKILL');
    await new Promise((r) => ferret.process.once('exit', r));

    const calls = [
      () => api.get('/v1/payin/before-outage'),
      () => api.post('/v1/direct/payin', payin('during-outage')),
      () => api.get('/v1/accounts'),
      () => uncached.get('/v1/payin/before-outage'),
    ];
    // Several rounds: the first requests meet the dropped connections, later ones the known outage.
    for (let round = 0; round < 3; round++) {
      for (const call of calls) {
        const started = Date.now();
        const res = await call();
        const elapsed = Date.now() - started;
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(problemSchema.parse(res.body)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        // Bounded by the driver's server selection at worst, never a hang.
        expect(elapsed).toBeLessThan(SELECTION_MS + 2_000);
      }
    }
    expect((await api.get('/v1/payin/before-outage')).body.title).toBe('Service indisponible');
    // Once the outage is known, the answer does not wait for the driver's server selection.
    const t = Date.now();
    expect((await api.get('/v1/payin/before-outage')).status).toBe(503);
    expect(Date.now() - t).toBeLessThan(SELECTION_MS / 2);
    // Liveness still answers; readiness says which dependency is missing.
    expect((await fetch(`${stack.baseUrl}/health/live`)).status).toBe(200);
    // Readiness answers within a probe's usual deadline too, not after the driver's wait.
    const readyAt = Date.now();
    const ready = await fetch(`${stack.baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(Date.now() - readyAt).toBeLessThan(SELECTION_MS / 2);
    expect(await ready.json()).toMatchObject({ checks: { mongo: false, temporal: true } });

    // Same port, same data: the API reconnects by itself.
    ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
    const back = await eventually(
      () => api.get('/v1/payin/before-outage'),
      (r) => r.status === 200,
      30_000,
    );
    expect(back.body.status).toBe('success');
    expect((await uncached.get('/v1/payin/before-outage')).status).toBe(404);
    expect((await api.post('/v1/direct/payin', payin('after-outage'))).status).toBe(201);
    await eventually(
      () => api.get('/v1/payin/after-outage'),
      (r) => r.body.status === 'success',
      30_000,
    );
  }, 180_000);
});
