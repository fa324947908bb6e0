import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { signCallback } from '../../src/operators/signature';
import { TransactionStore } from '../../src/persistence/transactions';
import { callbackSignals } from '../helpers/callback-signals';
import type { Server } from 'node:http';
import { Client } from '@temporalio/client';
import { buildApi } from '../../src/main/wiring';
import { createLogger } from '../../src/infra/logger';
import { awayFromWindowEnd } from '../helpers/fixed-windows';

// POST /operator-callbacks/:code: signed by the operator, only a trigger (a signal to the workflow).
describe('operator callbacks', () => {
  const { stack, merchant, api } = useStack();

  const secrets = () => stack.config.OPERATOR_CALLBACK_SECRETS;
  const send = (code: string, body: string, signature?: string, lang = 'en', baseUrl = stack.baseUrl) =>
    fetch(`${baseUrl}/operator-callbacks/${code}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'accept-language': lang,
        ...(signature !== undefined ? { 'x-operator-signature': signature } : {}),
      },
      body,
    });

  const signals = (reference: string) => callbackSignals(stack.env.client, merchant.merchantId, reference);

  async function createPayin(reference: string, sandboxScenario = 'completed') {
    const res = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario,
      customerName: 'Awa Koné',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('delivers the simulator callback to the payin workflow as an operatorCallback signal', async () => {
    const id = await createPayin('cb-1');
    const delivery = await eventually(
      async () => stack.simulator.simulator.callbacks.find((c) => c.id === id),
      (d) => d?.delivered === true,
    );
    expect(delivery).toMatchObject({ status: 202, url: `${stack.baseUrl}/operator-callbacks/MTN` });
    await eventually(
      () => signals('cb-1'),
      (s) => s.length >= 1,
    );
    expect(await signals('cb-1')).toEqual([{ kind: 'collection', id }]);
  });

  it('refuses a missing, wrong, foreign or stale signature with 401 problem+json', async () => {
    const body = JSON.stringify({ kind: 'collection', id: 'pr_x', outcome: 'completed' });
    const missing = await send('MTN', body);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await missing.json()).toMatchObject({ code: 'OPERATOR_SIGNATURE_INVALID' });
    expect((await send('MTN', body, 'garbage')).status).toBe(401);
    expect((await send('MTN', body, signCallback(secrets().ORANGE, body))).status).toBe(401);
    const stale = signCallback(secrets().MTN, body, Math.floor(Date.now() / 1000) - 600);
    expect((await send('MTN', body, stale)).status).toBe(401);
    // The body signed is the body checked: one changed byte breaks it.
    expect((await send('MTN', body.replace('pr_x', 'pr_y'), signCallback(secrets().MTN, body))).status).toBe(
      401,
    );
    const fr = await send('MTN', body, 'garbage', 'fr');
    expect(((await fr.json()) as { title: string }).title).toBe('Signature invalide');
  });

  it('answers 202 for an unknown transaction, and 404 for an unknown operator route', async () => {
    const body = JSON.stringify({ kind: 'collection', id: 'pr_does_not_exist' });
    expect((await send('MTN', body, signCallback(secrets().MTN, body))).status).toBe(202);
    expect((await send('AIRTEL', body, 'x')).status).toBe(404);
    const bad = JSON.stringify({ kind: 'nope', id: 'pr_x' });
    expect((await send('MTN', bad, signCallback(secrets().MTN, bad))).status).toBe(400);
  });

  it('is harmless when replayed, and ignores another operator calling about our transaction', async () => {
    // A payin the simulator never settles: its workflow stays open for every callback below (a
    // settled one may close before the replay arrives, which would prove nothing).
    const id = await createPayin('cb-2', 'pending');
    const store = TransactionStore.on(stack.mongo);
    const before = await store.findById(id);
    const body = JSON.stringify({ kind: 'collection', id, outcome: 'completed' });
    const sig = signCallback(secrets().MTN, body);
    expect((await send('MTN', body, sig)).status).toBe(202);
    // The same signed callback again: already received, not signalled again.
    expect((await send('MTN', body, sig)).status).toBe(200);
    // Orange signs correctly, but the payin is MTN's: accepted, not forwarded.
    expect((await send('ORANGE', body, signCallback(secrets().ORANGE, body))).status).toBe(202);
    // A signal that meets a running workflow task enters the history after that task.
    expect(
      await eventually(
        () => signals('cb-2'),
        (s) => s.length >= 1,
      ),
    ).toEqual([{ kind: 'collection', id }]);
    const after = await store.findById(id);
    expect(after?.status).toBe(before?.status);
    expect(after?.amount).toBe(before?.amount);
  });
  it('delivers a replay of the same signed callback once: 202, then 200 without a signal', async () => {
    // A payin the simulator never settles: it sends no callback of its own, so every signal is ours.
    const id = await createPayin('cb-replay', 'pending');
    expect(await signals('cb-replay')).toHaveLength(0);
    const body = JSON.stringify({ kind: 'collection', id, outcome: 'completed' });
    const sig = signCallback(secrets().MTN, body);
    const first = await send('MTN', body, sig);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ received: true });
    // The signal is sent before the answer: after both answers the history holds all there will be.
    const replays = await Promise.all([send('MTN', body, sig), send('MTN', body, sig)]);
    expect(replays.map((r) => r.status)).toEqual([200, 200]);
    expect(await replays[0].json()).toEqual({ received: true });
    // A header that carries the same signature among other v1 values is the same callback.
    const padded = `${sig},v1=${'0'.repeat(64)}`;
    expect((await send('MTN', body, padded)).status).toBe(200);
    expect(
      await eventually(
        () => signals('cb-replay'),
        (s) => s.length >= 1,
      ),
    ).toEqual([{ kind: 'collection', id }]);

    // The operator re-signing the same news later (a new timestamp) is a new callback.
    const resigned = signCallback(secrets().MTN, body, Math.floor(Date.now() / 1000) + 1);
    expect((await send('MTN', body, resigned)).status).toBe(202);
    // A signal that arrives while a workflow task runs (the first signal's) is written to history
    // when that task completes: wait for it. Seeing it, every earlier signal is written too, so the
    // replays above sent none.
    const both = await eventually(
      () => signals('cb-replay'),
      (s) => s.length >= 2,
    );
    expect(both).toEqual([
      { kind: 'collection', id },
      { kind: 'collection', id },
    ]);
  });

  it('limits callbacks per transaction: 429 after OPERATOR_CALLBACKS_PER_MINUTE, other transactions unaffected', async () => {
    const limit = stack.config.OPERATOR_CALLBACKS_PER_MINUTE;
    expect(limit).toBe(20);
    const flood = async (id: string, n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        // Each one different (not replays): only the limit can refuse them.
        const body = JSON.stringify({ kind: 'collection', id, operatorReference: `op-${i}` });
        statuses.push((await send('MTN', body, signCallback(secrets().MTN, body))).status);
      }
      return statuses;
    };
    // The 23 callbacks in one minute's window: a flood across its end starts a new count.
    await awayFromWindowEnd(60_000);
    const statuses = await flood('pr_flooded00000000000000000', limit + 3);
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(202));
    expect(statuses.slice(limit)).toEqual([429, 429, 429]);

    const body = JSON.stringify({
      kind: 'collection',
      id: 'pr_flooded00000000000000000',
      operatorReference: 'x',
    });
    const refused = await send('MTN', body, signCallback(secrets().MTN, body), 'fr');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', title: 'Trop de requêtes' });

    // Another transaction, and the same id at another operator, keep their own budget.
    expect(await flood('pr_quiet0000000000000000000', 2)).toEqual([202, 202]);
    expect((await send('ORANGE', body, signCallback(secrets().ORANGE, body))).status).toBe(202);
  });
  it('lets the retry of a callback whose delivery failed through: the receipt is undone', async () => {
    const id = await createPayin('cb-undelivered', 'pending');
    // Another API replica whose Temporal client cannot deliver signals (as when Temporal is down).
    const unreachable = new Client({
      connection: stack.env.connection,
      namespace: stack.env.namespace ?? 'default',
      dataConverter: stack.env.client.options.dataConverter,
      interceptors: {
        workflow: [
          {
            signal: () => Promise.reject(new Error('Temporal unreachable')),
          },
        ],
      },
    });
    const app = await buildApi({
      config: stack.config,
      mongo: stack.mongo,
      temporal: unreachable,
      logger: createLogger('silent'),
    });
    const server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    try {
      const addr = server.address();
      const replica = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
      const body = JSON.stringify({ kind: 'collection', id, outcome: 'completed' });
      const sig = signCallback(secrets().MTN, body);
      expect((await send('MTN', body, sig, 'en', replica)).status).toBe(500);
      expect(await signals('cb-undelivered')).toHaveLength(0);
      // The operator's retry of the very same request, reaching a healthy replica, is delivered.
      expect((await send('MTN', body, sig)).status).toBe(202);
      expect(
        await eventually(
          () => signals('cb-undelivered'),
          (s) => s.length >= 1,
        ),
      ).toEqual([{ kind: 'collection', id }]);
      expect((await send('MTN', body, sig)).status).toBe(200);
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
    }
  });
});
