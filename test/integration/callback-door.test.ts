import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { signWave } from '../fakes/wave/server';
import { callbackRoutes } from '../../src/api/routes/callbacks';
import { errorHandler } from '../../src/api/problem';
import { CallbackService } from '../../src/operators/callbacks';
import { buildWaveConnector } from '../../src/operators/connectors/wave/config';
import { signCallback } from '../../src/operators/signature';
import { CallbackReceiptStore } from '../../src/persistence/callback-receipts';
import { RefundStore } from '../../src/persistence/refunds';
import { TransactionStore } from '../../src/persistence/transactions';
import { callbackSignals } from '../helpers/callback-signals';
import { SharedLimits } from '../../src/persistence/shared-limits';
import { awayFromWindowEnd } from '../helpers/fixed-windows';

// The callback door (src/operators/callbacks.ts) on the real stack: a provider's callback, checked
// by its connector (Wave here: an HMAC we can sign), is deduplicated by what was signed through the
// receipts every API process shares, and a new status of the same transaction goes through. One
// limiter covers the connectors' door and the simulator's.
describe('callback door', () => {
  const { stack, merchant, api } = useStack();
  const WAVE_SECRET = 'wave_ci_WHS_callback_door_secret';
  const servers: Server[] = [];
  const services: CallbackService[] = [];

  /** One API replica: its own connector instance and limiter, the shared receipts. */
  async function replica(perTransactionPerMinute = 20, shared?: SharedLimits): Promise<string> {
    const wave = buildWaveConnector(
      {
        WAVE_BASE_URL: 'http://127.0.0.1:9', // never called: only callbacks are checked here
        WAVE_API_KEY: 'wave_ci_prod_unused',
        WAVE_WEBHOOK_SECRET: WAVE_SECRET,
        WAVE_SUCCESS_URL: 'https://pay.example.com/wave/success',
        WAVE_ERROR_URL: 'https://pay.example.com/wave/error',
      },
      { timeoutMs: 500, callbackBaseUrl: null, refundOrigin: () => Promise.resolve(null) },
    )!;
    const service = new CallbackService({
      connectors: new Map([['wave', wave]]),
      simulatorSecrets: stack.config.OPERATOR_CALLBACK_SECRETS,
      receipts: CallbackReceiptStore.on(stack.mongo),
      transactions: TransactionStore.on(stack.mongo),
      refunds: RefundStore.on(stack.mongo),
      temporal: stack.env.client,
      perTransactionPerMinute,
      ...(shared ? { limiterStore: shared.store('operator-callbacks', { releases: false }) } : {}),
    });
    services.push(service);
    const app = express();
    app.use(callbackRoutes(service));
    app.use(errorHandler(() => undefined));
    const server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  afterAll(async () => {
    for (const s of services) s.close();
    await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  });

  /** A Wave webhook about our payin, signed now: the exact bytes a replay repeats. */
  function waveWebhook(payinId: string, type: string, eventId: string) {
    const body = JSON.stringify({
      id: eventId,
      type,
      data: { id: `cos-${eventId}`, client_reference: payinId, payment_status: 'processing' },
    });
    const t = Math.floor(Date.now() / 1000);
    return { body, signature: `t=${t},v1=${signWave(WAVE_SECRET, t, body)}` };
  }

  const sendWave = (base: string, hook: { body: string; signature: string }) =>
    fetch(`${base}/provider-callbacks/wave`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'wave-signature': hook.signature },
      body: hook.body,
    });

  const sendSimulator = (base: string, body: string) =>
    fetch(`${base}/operator-callbacks/MTN`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-operator-signature': signCallback(stack.config.OPERATOR_CALLBACK_SECRETS.MTN, body),
      },
      body,
    });

  /** A sandbox payin that stays pending (the simulator sends no callback of its own). */
  async function createPayin(reference: string): Promise<string> {
    const res = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'pending',
      customerName: 'Awa Koné',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const signals = (reference: string) => callbackSignals(stack.env.client, merchant.merchantId, reference);

  it('signals a connector callback replayed byte-for-byte once, on any replica, and acknowledges the replays', async () => {
    const [a, b] = [await replica(), await replica()];
    const id = await createPayin('door-replay');
    const hook = waveWebhook(id, 'checkout.session.completed', 'EVT_door_replay');
    expect((await sendWave(a, hook)).status).toBe(202);
    // The same bytes again: here, on another replica, and twice at once. Acknowledged, not signalled.
    const replays = await Promise.all([sendWave(a, hook), sendWave(b, hook), sendWave(b, hook)]);
    expect(replays.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await replays[0].json()).toEqual({ received: true });
    await eventually(
      () => signals('door-replay'),
      (s) => s.length >= 1,
    );
    // A marker callback, signalled after the replays: once it is in the history, so would they be.
    const marker = waveWebhook(id, 'checkout.session.payment_failed', 'EVT_door_marker');
    expect((await sendWave(b, marker)).status).toBe(202);
    expect(
      await eventually(
        () => signals('door-replay'),
        (s) => s.length >= 2,
      ),
    ).toEqual([
      { kind: 'collection', id },
      { kind: 'collection', id },
    ]);
  });

  it('signals the same transaction again when the provider sends it with a new status', async () => {
    const base = await replica();
    const id = await createPayin('door-new-status');
    // Sent within the same second, so only the content tells them apart.
    const pending = waveWebhook(id, 'checkout.session.processing', 'EVT_door_pending');
    const completed = waveWebhook(id, 'checkout.session.completed', 'EVT_door_completed');
    expect((await sendWave(base, pending)).status).toBe(202);
    expect((await sendWave(base, completed)).status).toBe(202);
    expect((await sendWave(base, completed)).status).toBe(200);
    expect(
      await eventually(
        () => signals('door-new-status'),
        (s) => s.length >= 2,
      ),
    ).toEqual([
      { kind: 'collection', id },
      { kind: 'collection', id },
    ]);
  });

  it('limits both doors with one limiter: per signer and transaction, the same budget and the same 429', async () => {
    const base = await replica(2);
    const id = await createPayin('door-limit');
    const waves: number[] = [];
    for (let i = 0; i < 3; i++)
      waves.push(
        (await sendWave(base, waveWebhook(id, 'checkout.session.processing', `EVT_lim_${i}`))).status,
      );
    const simulator: number[] = [];
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ kind: 'collection', id, operatorReference: `op-limit-${i}` });
      simulator.push((await sendSimulator(base, body)).status);
    }
    expect({ waves, simulator }).toEqual({ waves: [202, 202, 429], simulator: [202, 202, 429] });
    const refused = await sendWave(base, waveWebhook(id, 'checkout.session.completed', 'EVT_lim_fr'));
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });

  it('counts one budget across replicas that share the store: alternating, the limit holds, not twice it', async () => {
    await awayFromWindowEnd(60_000);
    const [a, b] = [
      await replica(2, SharedLimits.on(stack.mongo)),
      await replica(2, SharedLimits.on(stack.mongo)),
    ];
    const id = await createPayin('door-shared-limit');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await sendWave(i % 2 ? b : a, waveWebhook(id, 'checkout.session.processing', `EVT_shared_${i}`)))
          .status,
      );
    expect(statuses).toEqual([202, 202, 429, 429]);
  });
});
