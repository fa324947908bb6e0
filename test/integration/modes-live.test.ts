import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Ledger } from '../../src/ledger';
import { MerchantService } from '../../src/merchants';
import { ApiClient, basic, type Credentials } from '../helpers/http';
import { publishTestEvent } from '../helpers/events';
import { useStack } from '../helpers/use-stack';

// Live mode's refusals (sandboxScenario, sandbox funding), the WebSocket stream per mode, and the
// CLI managing both modes (issue 18).
const bin = join(__dirname, '../../bin/payments.js');

function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, ...env }, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Opens the stream with Basic credentials, subscribes, and collects every message. */
async function stream(url: string, credentials: Credentials) {
  const ws = new WebSocket(url, { headers: { authorization: basic(credentials) } });
  const messages: { type: string; event?: { livemode: boolean; data: { reference: string } } }[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8'))));
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  ws.send(JSON.stringify({ type: 'subscribe' }));
  const until = async (pred: () => boolean, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(messages)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until(() => messages.some((m) => m.type === 'subscribed'));
  const references = () => messages.filter((m) => m.type === 'event').map((m) => m.event!.data.reference);
  return { ws, messages, until, references };
}

describe('modes: live refusals, the stream per mode, the CLI', () => {
  const { stack, merchant, api: test } = useStack({ fund: 100_000 });
  let live: ApiClient;
  beforeAll(() => {
    live = new ApiClient(stack.baseUrl, merchant.live.credentials);
  });

  const ref = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const payin = (reference: string) => ({
    reference,
    sandboxScenario: 'failed',
    customerName: 'Awa Koné',
    payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });

  it('with no live route for a provider, a live payin to it is refused 503 PROVIDER_UNAVAILABLE, nothing recorded; test mode is unaffected', async () => {
    const reference = ref('live-unrouted');
    const { sandboxScenario: _none, ...body } = payin(reference);
    const refused = await live.post('/v1/direct/payin', body);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await live.get(`/v1/payin/${reference}`)).status).toBe(404);
    const providers = await live.get('/v1/providers?country=CI');
    const mtn = (
      providers.body.providers as Array<{
        code: string;
        available: boolean;
        health: { payin: { state: string } };
      }>
    ).find((p) => p.code === 'MTN');
    expect(mtn).toMatchObject({ available: false, health: { payin: { state: 'closed' } } });
    expect((await test.post('/v1/direct/payin', { ...body, reference: `${reference}-t` })).status).toBe(201);
  });

  it('refuses sandboxScenario in live mode with a 400 in English and French, and records nothing', async () => {
    const reference = ref('live-scenario');
    const en = await live.post('/v1/direct/payin', payin(reference));
    expect(en.status).toBe(400);
    expect(en.headers.get('content-type')).toMatch(/problem\+json/);
    expect(en.body).toMatchObject({
      code: 'SANDBOX_ONLY_IN_TEST_MODE',
      title: 'Sandbox feature in live mode',
    });
    expect(en.body.detail).toContain('test mode');
    const fr = await live.post('/v1/direct/payin', payin(reference), { 'accept-language': 'fr' });
    expect(fr.status).toBe(400);
    expect(fr.body).toMatchObject({
      code: 'SANDBOX_ONLY_IN_TEST_MODE',
      title: 'Fonction de bac à sable en mode réel',
    });
    expect((await live.get(`/v1/payin/${reference}`)).status).toBe(404);

    // Payouts and refunds too.
    const payout = await live.post('/v1/direct/payout', {
      reference: ref('live-po'),
      sandboxScenario: 'completed',
      customerName: 'Awa Koné',
      payout: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(payout.body.code).toBe('SANDBOX_ONLY_IN_TEST_MODE');
    const refund = await live.post(`/v1/payin/${reference}/refund`, {
      reason: 'x',
      externalReference: ref('ext'),
      sandboxScenario: 'completed',
    });
    expect(refund.body.code).toBe('SANDBOX_ONLY_IN_TEST_MODE');

    // Test mode keeps today's behaviour: the scenario is honoured.
    const inTest = await test.post('/v1/direct/payin', payin(reference));
    expect(inTest.status).toBe(201);
    expect(inTest.body.livemode).toBe(false);
  });

  it('streams each mode its own events only', async () => {
    const url = `${stack.baseUrl.replace('http', 'ws')}/v1/ws`;
    const testStream = await stream(url, merchant.credentials);
    const liveStream = await stream(url, merchant.live.credentials);
    try {
      const testRef = ref('ws-test');
      const liveRef = ref('ws-live');
      await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: testRef });
      await publishTestEvent(stack, merchant.live.merchantId, {
        type: 'payin.completed',
        reference: liveRef,
      });
      await testStream.until(() => testStream.references().includes(testRef));
      await liveStream.until(() => liveStream.references().includes(liveRef));
      // Both events are recorded by now; give the stream a moment to (wrongly) fan out the other one.
      await new Promise((r) => setTimeout(r, 500));
      // (The test stream also carries the earlier test's test-mode payin events: same mode.)
      expect(testStream.references()).not.toContain(liveRef);
      expect(liveStream.references()).toEqual([liveRef]);
      const modesSeen = (m: typeof testStream.messages) => [
        ...new Set(m.filter((x) => x.type === 'event').map((x) => x.event!.livemode)),
      ];
      expect(modesSeen(testStream.messages)).toEqual([false]);
      expect(modesSeen(liveStream.messages)).toEqual([true]);
    } finally {
      testStream.ws.close();
      liveStream.ws.close();
    }
  });

  // Five CLI processes, each loading the application: seconds of CPU each on a busy 2-core machine.
  it('the CLI: both pairs at creation, rotation per mode, funding in test mode only', async () => {
    const env = { MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`, NODE_ENV: 'test' };
    const created = await cli(['merchants', 'create', '--name', 'Two modes', '--json'], env);
    expect([created.code, created.stderr]).toEqual([0, '']);
    const issued = JSON.parse(created.stdout);
    expect(issued.apiKey).toMatch(/^mk_test_/);
    expect(issued.live.apiKey).toMatch(/^mk_live_/);
    const merchants = MerchantService.on(stack.mongo);
    await expect(merchants.authenticate(issued.live.apiKey, issued.live.apiClient)).resolves.toBe(
      issued.merchantId,
    );

    const rotated = await cli(['keys', 'rotate', issued.merchantId, '--mode', 'live', '--json'], env);
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).apiKey).toMatch(/^mk_live_/);
    const bad = await cli(['keys', 'rotate', issued.merchantId, '--mode', 'prod'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--mode must be test or live/);
    const keys = JSON.parse((await cli(['keys', 'list', issued.merchantId, '--json'], env)).stdout);
    expect(keys.map((k: { mode: string }) => k.mode)).toEqual(['test', 'live', 'live']);

    const fund = (mode: string) =>
      cli(
        [
          'accounts',
          'fund',
          '--merchant',
          issued.merchantId,
          '--mode',
          mode,
          '--currency',
          'XOF',
          '--amount',
          '700',
          '--json',
        ],
        env,
      );
    const refused = await fund('live');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/live-mode accounts are never funded/);
    const ledger = Ledger.on(stack.mongo);
    expect((await ledger.mainAccount(issued.merchantId, 'XOF')).balance).toBe(0);
    const funded = await fund('test');
    expect(funded.code).toBe(0);
    expect(JSON.parse(funded.stdout)).toMatchObject({
      merchantId: issued.merchantId,
      mode: 'test',
      balance: 700,
    });
    expect((await ledger.mainAccount(`${issued.merchantId}_test`, 'XOF')).balance).toBe(700);
    // What the CLI funded is what the test key sees, not the live key.
    const testApi = new ApiClient(stack.baseUrl, { apiKey: issued.apiKey, apiClient: issued.apiClient });
    const liveApi = new ApiClient(stack.baseUrl, issued.live);
    const available = async (api: ApiClient) =>
      (
        (await api.get('/v1/accounts')).body.data as { kind: string; currency: string; available: number }[]
      ).find((a) => a.kind === 'main' && a.currency === 'XOF')?.available ?? 0;
    expect(await available(testApi)).toBe(700);
    expect(await available(liveApi)).toBe(0);
  }, 180_000);
});

describe('modes: rate limits are per mode', () => {
  const { stack, merchant, api: test } = useStack({ config: { RATE_LIMIT_PER_MINUTE: '3' } });

  it('a test key at its limit leaves the live key its own budget', async () => {
    for (let i = 0; i < 3; i++) expect((await test.get('/v1/accounts')).status).toBe(200);
    const limited = await test.get('/v1/accounts');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    const live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    expect((await live.get('/v1/accounts')).status).toBe(200);
  });
});
