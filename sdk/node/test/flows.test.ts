import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MomoApiError, type WebhookEvent } from '../src/index';
import { action, client, env, eventually, msisdn, ref, stackAvailable } from './helpers';

// The collection side through the SDK, against the running stack (a sandbox merchant with funded
// XOF and XAF accounts): payins, the webhooks a Node receiver gets and verifies, refunds, events,
// the stream. One file, in order: later tests use what earlier ones made. payouts.test.ts runs
// beside it.

const momo = client();
const describeStack = stackAvailable ? describe : describe.skip;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describeStack('the Node SDK against the stack', () => {
  let receiver: Server;
  const deliveries: Delivery[] = [];
  let endpoint: { id: string; secret: string };
  let paidReference = '';

  beforeAll(async () => {
    // The merchant's webhook receiver, in Node: it keeps the raw bodies, which verification needs.
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const created = await momo.webhookEndpoints.create({
      url: `http://127.0.0.1:${port}/hooks/payments`,
      description: 'sdk-node suite',
    });
    endpoint = { id: created.id, secret: created.secret };
  });

  afterAll(async () => {
    if (endpoint) await momo.webhookEndpoints.delete(endpoint.id).catch(() => undefined);
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const deliveryOf = (type: string, reference: string) =>
    eventually(`a ${type} webhook for ${reference}`, () => {
      for (const d of deliveries) {
        const event = JSON.parse(d.body.toString()) as WebhookEvent;
        if (event.type === type && (event.data as { reference?: string }).reference === reference) return d;
      }
      return undefined;
    });

  test('a direct payin completes and its webhook verifies in one call', async () => {
    paidReference = ref('payin');
    const payin = await momo.payins.createDirect({
      reference: paidReference,
      sandboxScenario: 'completed',
      payin: { amount: 5000, msisdn, provider: 'MTN', country: 'CI' },
      action,
    });
    expect(payin.reference).toBe(paidReference);
    const done = await eventually('the payin to succeed', async () => {
      const p = await momo.payins.get(paidReference);
      return p.status === 'success' ? p : undefined;
    });
    expect(done.amount).toBe(5000);

    const delivery = await deliveryOf('payin.completed', paidReference);
    // Rotation: an old secret first, the right one second; any one matching is enough.
    const stale = `whsec_${Buffer.from('a secret rotated away long ago').toString('base64')}`;
    const event = momo.webhookEndpoints.verify(delivery.body, delivery.headers, [stale, endpoint.secret]);
    expect(event.type).toBe('payin.completed');
    if (event.type === 'payin.completed') expect(event.data.reference).toBe(paidReference);
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(() => momo.webhookEndpoints.verify(delivery.body, delivery.headers, stale)).toThrow(
      'No matching signature',
    );
    expect(() =>
      momo.webhookEndpoints.verify(
        Buffer.from(delivery.body.toString().replace('5000', '5001')),
        delivery.headers,
        endpoint.secret,
      ),
    ).toThrow();
  });

  test('a session payin opens a hosted checkout', async () => {
    const reference = ref('session');
    const session = await momo.payins.createSession({
      reference,
      amount: 2500,
      msisdn,
      country: 'CI',
      action,
    });
    expect(session.reference).toBe(reference);
    expect((await momo.payins.get(reference)).reference).toBe(reference);
  });

  test('a refund of the completed payin, settled through the sandbox helper', async () => {
    const refund = await momo.refunds.create(paidReference, {
      amount: 1000,
      reason: 'Returned',
      externalReference: ref('refund'),
      sandboxScenario: 'pending',
    });
    expect(refund.reference).toMatch(/^rf_/);
    await momo.sandbox.settleRefund(refund.reference, { outcome: 'completed' });
    const done = await eventually('the refund to complete', async () => {
      const r = await momo.refunds.get(refund.reference);
      return r.status === 'completed' ? r : undefined;
    });
    expect(done.amount).toBe(1000);
  });

  test('events, deliveries, a redelivery, a replay, a test event, rotation, enable', async () => {
    const events = await momo.events.list({ type: 'payin.completed', reference: paidReference });
    const event = events.data[0];
    if (!event) throw new Error('no payin.completed event');
    expect((await momo.events.get(event.id)).id).toBe(event.id);

    const deliveriesPage = await momo.webhookEndpoints.listDeliveries(endpoint.id, { eventId: event.id });
    expect(deliveriesPage.data[0]?.eventId).toBe(event.id);

    const before = deliveries.filter((d) => d.headers['webhook-id'] === event.id).length;
    const redelivery = await momo.events.redeliver(event.id, { endpointId: endpoint.id });
    expect(redelivery.deliveries[0]?.endpointId).toBe(endpoint.id);
    await eventually('the redelivery', () =>
      deliveries.filter((d) => d.headers['webhook-id'] === event.id).length > before ? true : undefined,
    );

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date().toISOString();
    const dry = await momo.webhookEndpoints.replay(endpoint.id, {
      from,
      to,
      dryRun: true,
      onlyFailed: false,
    });
    expect(dry.count).toBeGreaterThan(0);
    const replay = await momo.webhookEndpoints.replay(endpoint.id, { from, to });
    expect(replay).toHaveProperty('count');

    const tested = await momo.webhookEndpoints.sendTest(endpoint.id, { type: 'payin.completed' });
    expect(tested.succeeded).toBe(true);
    expect((await momo.webhookEndpoints.get(endpoint.id)).id).toBe(endpoint.id);
    expect((await momo.webhookEndpoints.list()).data.some((e) => e.id === endpoint.id)).toBe(true);
    const rotated = await momo.webhookEndpoints.rotateSecret(endpoint.id, { overlapSeconds: 60 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect((await momo.webhookEndpoints.enable(endpoint.id)).id).toBe(endpoint.id);

    // During the overlap both secrets sign: the new one alone verifies a new delivery. It is found by
    // its event id: the replay's deliveries may still arrive meanwhile, signed before the rotation.
    const sent = await momo.webhookEndpoints.sendTest(endpoint.id);
    const next = await eventually('the test event', () =>
      deliveries.find((d) => d.headers['webhook-id'] === sent.event.id),
    );
    expect(momo.webhookEndpoints.verify(next.body, next.headers, rotated.secret).type).toBeDefined();
    expect(momo.webhookEndpoints.verify(next.body, next.headers, endpoint.secret).type).toBeDefined();
    endpoint.secret = rotated.secret;
  });

  test('a 4xx problem is typed and localized', async () => {
    const err = (await client({ acceptLanguage: 'fr' })
      .payins.createDirect({
        reference: ref('bad'),
        payin: { amount: -5, msisdn, provider: 'MTN', country: 'CI' },
        action,
      })
      .catch((e: unknown) => e)) as MomoApiError;
    expect(err).toBeInstanceOf(MomoApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.type).toContain('VALIDATION_ERROR');
    expect(err.title).toBe('Requête invalide');
    expect(err.fieldErrors.some((f) => f.path.includes('amount'))).toBe(true);
    expect(err.requestId).toBeTruthy();
    expect(err.message).not.toContain(msisdn);
    const missing = (await momo.payins.get(ref('missing')).catch((e: unknown) => e)) as MomoApiError;
    expect(missing.status).toBe(404);
  });

  test('a browser token for the stream', async () => {
    const token = await momo.events.createStreamToken();
    expect(token.token).toMatch(/^wst_/);
  });

  test('sandbox helpers: a pending payin settled, an ambiguous one collected', async () => {
    const reference = ref('settle');
    await momo.payins.createDirect({
      reference,
      sandboxScenario: 'pending',
      payin: { amount: 800, msisdn, provider: 'MTN', country: 'CI' },
      action,
    });
    await eventually('the payin to reach the operator', async () =>
      momo.sandbox
        .settlePayin(reference, { outcome: 'failed', failureCode: 'OPERATOR_TIMEOUT' })
        .then(() => true)
        .catch((e: unknown) => {
          if (e instanceof MomoApiError && e.status === 409) return undefined;
          throw e;
        }),
    );
    await momo.sandbox.markPayinCollected(reference);
  });

  test('env: the merchant under test', () => {
    expect(env.merchantId).toMatch(/^mer_/);
  });
});
