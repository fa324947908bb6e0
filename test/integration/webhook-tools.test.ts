import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant, type TestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// A merchant developer's webhook tools on the real stack: POST /v1/webhooks/{id}/test (a signed
// example event, answered with the receiver's reply) and `payments webhooks listen` (the merchant's
// events, from the API's WebSocket stream, forwarded signed to a local URL), plus `transactions
// show` finding what a reference is.

const bin = join(__dirname, '../../bin/payments.js');

function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', ...env }, timeout: 90_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** `payments webhooks listen` as a child process, its output read as it comes. */
function startListen(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [bin, 'webhooks', 'listen', ...args], {
    env: { ...process.env, NODE_ENV: 'test', ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const waitFor = async (pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> => {
    const seen = await eventually(
      async () => out.stdout.match(pattern),
      (m) => m !== null,
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`);
    });
    return seen!;
  };
  return { child, out, exited, waitFor };
}

const verify = (secret: string, received: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(received.body, received.headers as Record<string, string>);

describe('webhook tools for a merchant developer', () => {
  const { stack, api, receiver } = useStack({
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    receiver: true,
  });

  describe('POST /v1/webhooks/{id}/test', () => {
    let endpoint: { id: string; secret: string };
    beforeAll(async () => {
      const created = await api.post('/v1/webhooks', {
        url: `${receiver.url}/hooks/test`,
        eventTypes: ['refund.completed', 'payin.completed'],
      });
      expect(created.status).toBe(201);
      endpoint = created.body;
    });
    beforeEach(() => {
      receiver.respond = () => ({ status: 200 });
    });

    it('sends a signed example event of the type asked for and answers the receiver’s reply', async () => {
      const before = receiver.received.length;
      const res = await api.post(`/v1/webhooks/${endpoint.id}/test`, { type: 'payout.completed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        endpointId: endpoint.id,
        url: `${receiver.url}/hooks/test`,
        succeeded: true,
        statusCode: 200,
        error: null,
        event: { type: 'payout.completed', livemode: false, test: true, data: { type: 'payout' } },
      });
      expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
      expect(receiver.received.length).toBe(before + 1);
      const got = receiver.received.at(-1)!;
      expect(got.path).toBe('/hooks/test');
      // Verifiable with the endpoint's secret, as a real delivery; the id is the event's.
      expect(verify(endpoint.secret, got)).toEqual(res.body.event);
      expect(got.headers['webhook-id']).toBe(res.body.event.id);
      expect(res.body.event.id).toMatch(/^evt_test_/);

      // Not stored, not logged: the event list and the delivery log know nothing of it.
      const events = await api.get(`/v1/events?limit=100`);
      expect(events.body.data.map((e: { id: string }) => e.id)).not.toContain(res.body.event.id);
      const deliveries = await api.get(`/v1/webhooks/${endpoint.id}/deliveries`);
      expect(deliveries.body.data).toEqual([]);
    });

    it('sends the first type the endpoint subscribes to when none is asked for', async () => {
      const res = await api.post(`/v1/webhooks/${endpoint.id}/test`, {});
      expect(res.status).toBe(200);
      expect(res.body.event.type).toBe('refund.completed');
      expect(res.body.event.data).toMatchObject({ type: 'refund', status: 'completed' });
    });

    it('reports a failing receiver without retrying it', async () => {
      receiver.respond = () => ({ status: 500 });
      const before = receiver.received.length;
      const res = await api.post(`/v1/webhooks/${endpoint.id}/test`, { type: 'payin.failed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ succeeded: false, statusCode: 500, error: 'HTTP 500' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.received.length).toBe(before + 1);
    });

    it('refuses an unknown type with the list of types, in the caller’s language', async () => {
      const [en, fr] = await Promise.all([
        api.post(`/v1/webhooks/${endpoint.id}/test`, { type: 'payin.done' }),
        api.post(`/v1/webhooks/${endpoint.id}/test`, { type: 'payin.done' }, { 'accept-language': 'fr' }),
      ]);
      expect(en.status).toBe(400);
      expect(en.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(en.body.errors).toEqual([
        {
          path: 'type',
          message: expect.stringMatching(
            /^Unknown event type "payin.done"; one of: payin.completed, payin.failed, .*statement.ready, payment_link.paid\.$/,
          ),
        },
      ]);
      expect(fr.status).toBe(400);
      expect(fr.body.title).toBe('Requête invalide');
      expect(fr.body.errors[0].message).toMatch(
        /^Type d’événement inconnu "payin.done" ; valeurs possibles : payin.completed/,
      );
    });

    it("answers 404 for another merchant's endpoint and sends nothing", async () => {
      const other = await createTestMerchant(stack, 'Other shop');
      const otherApi = new ApiClient(stack.baseUrl, other.credentials);
      const before = receiver.received.length;
      const res = await otherApi.post(`/v1/webhooks/${endpoint.id}/test`, { type: 'payin.completed' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
      expect(receiver.received.length).toBe(before);
    });
  });

  describe('payments webhooks listen', () => {
    // A merchant of its own, without endpoints: what the receiver gets came through the CLI.
    let shop: TestMerchant;
    let shopApi: ApiClient;
    let local: WebhookReceiver;
    let listen: ReturnType<typeof startListen> | null = null;
    beforeAll(async () => {
      shop = await createTestMerchant(stack, 'Listening shop');
      shopApi = new ApiClient(stack.baseUrl, shop.credentials);
      await fundMerchant(stack, shop.merchantId, 100_000);
      local = await startReceiver();
    });
    afterAll(async () => {
      if (listen && listen.child.exitCode === null) listen.child.kill('SIGKILL');
      await local?.close();
    });

    it('forwards a sandbox payin’s event signed with the printed secret and prints the receiver’s answer; Ctrl-C stops it', async () => {
      listen = startListen(
        ['--forward-to', `${local.url}/hook`, '--events', 'payin.completed,payin.failed'],
        {
          API_KEY: shop.credentials.apiKey,
          API_CLIENT: shop.credentials.apiClient,
          API_URL: stack.baseUrl,
        },
      );
      await listen.waitFor(/^Ready! Forwarding test-mode events \(payin.completed, payin.failed\) to /m);
      const secret = (await listen.waitFor(/Your webhook signing secret is (whsec_\S+)/))[1]!;
      local.respond = () => ({ status: 202 });

      const payoutRef = `listen-po-${randomUUID()}`;
      const payout = await shopApi.post('/v1/direct/payout', {
        reference: payoutRef,
        customerName: 'Test Customer',
        payout: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      });
      expect(payout.status).toBe(201);
      const reference = `listen-${randomUUID()}`;
      const created = await shopApi.post('/v1/direct/payin', {
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      });
      expect(created.status).toBe(201);

      const line = await listen.waitFor(/--> payin\.completed \[(evt_\w+)\]\s+<-- \[202\] \(\d+ ms\)/);
      const got = local.received.find((r) => r.headers['webhook-id'] === line[1]);
      expect(got?.path).toBe('/hook');
      const event = verify(secret, got!) as { type: string; data: { reference: string; status: string } };
      expect(event).toMatchObject({ type: 'payin.completed', data: { reference, status: 'success' } });

      // The payout's events reached the stream too, and the filter kept them from the receiver.
      await eventually(
        () => shopApi.get(`/v1/events?reference=${payoutRef}`),
        (r) => r.body.data.some((e: { type: string }) => e.type === 'payout.completed'),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(local.received.map((r) => JSON.parse(r.body).type)).toEqual(['payin.completed']);

      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
      expect(listen.out.stderr).toBe('');

      // `transactions show` finds that the reference is a payout, and names the merchant as typed.
      const env = {
        MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
        TEMPORAL_ADDRESS: stack.env.address,
        PAYMENTS_CLI_CONNECT_TIMEOUT_MS: '20000',
      };
      const shown = await cli(['transactions', 'show', payoutRef, '--merchant', shop.live.merchantId], env);
      expect(shown).toMatchObject({ code: 0, stderr: '' });
      expect(shown.stdout).toMatch(new RegExp(`^payout ${payoutRef} \\(pr_\\w+\\): `));
      const missing = await cli(['transactions', 'show', 'nope-1', '--merchant', shop.live.merchantId], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(
        `error: no payin, payout or refund nope-1 for merchant ${shop.live.merchantId} (test mode); check --merchant and --mode, or pass --kind to read its workflow alone\n`,
      );
      expect(missing.stderr).not.toContain(shop.merchantId);
    }, 180_000);

    it('says the key pair was refused', async () => {
      const refused = startListen(['--forward-to', `${local.url}/hook`], {
        API_KEY: shop.credentials.apiKey,
        API_CLIENT: 'sk_test_wrong',
        API_URL: stack.baseUrl,
      });
      expect(await refused.exited).toBe(1);
      expect(refused.out.stdout).toBe('');
      expect(refused.out.stderr).toBe(
        `error: the API at ${stack.baseUrl} refused the key pair (401): check API_KEY and API_CLIENT (or --api-key, --api-client)\n`,
      );
    }, 60_000);
  });
});
