import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MomoApiError, type EventStream, type WebhookEvent } from '../src/index';
import { action, client, env, eventually, msisdn, ref, stackAvailable } from './helpers';

// Every flow of the API through the SDK, against the running stack: a sandbox merchant with funded
// XOF and XAF accounts. One file, in order: later flows use what earlier ones made.

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
  let xof: { id: string };
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
    const created = await momo.webhooks.create({
      url: `http://127.0.0.1:${port}/hooks/payments`,
      description: 'sdk-node suite',
    });
    endpoint = { id: created.id, secret: created.secret };
    const accounts = await momo.accounts.list();
    const found = accounts.data.find((a) => a.currency === 'XOF');
    if (!found) throw new Error('the merchant has no XOF account');
    xof = found;
  });

  afterAll(async () => {
    if (endpoint) await momo.webhooks.delete(endpoint.id).catch(() => undefined);
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
    const event = momo.webhooks.verify(delivery.body, delivery.headers, [stale, endpoint.secret]);
    expect(event.type).toBe('payin.completed');
    if (event.type === 'payin.completed') expect(event.data.reference).toBe(paidReference);
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(() => momo.webhooks.verify(delivery.body, delivery.headers, stale)).toThrow(
      'No matching signature',
    );
    expect(() =>
      momo.webhooks.verify(
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

  test('payouts: direct, standard to a number and from an account; a recipient check; a cancel', async () => {
    const check = await momo.providers.checkRecipient({ msisdn, country: 'CI' });
    expect(check).toMatchObject({ checked: true, active: true });

    const direct = ref('dpayout');
    await momo.payouts.createDirect({
      reference: direct,
      sandboxScenario: 'completed',
      payout: { amount: 1000, msisdn: '+2250700000002', provider: 'ORANGE', country: 'CI' },
    });
    const standard = ref('payout');
    await momo.payouts.create({
      reference: standard,
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn,
      country: 'CI',
    });
    const fromAccount = ref('apayout');
    await momo.payouts.create({
      reference: fromAccount,
      sandboxScenario: 'completed',
      accountId: xof.id,
      amount: 1000,
      msisdn,
      country: 'CI',
      customerName: 'Test Recipient',
    });
    expect((await momo.payouts.getDirect(direct)).amount).toBe(1000);
    await eventually('the standard payouts to end', async () => {
      const [a, b] = await Promise.all([momo.payouts.get(standard), momo.payouts.get(fromAccount)]);
      return ['completed', 'processed'].includes(a.status) && ['completed', 'processed'].includes(b.status)
        ? true
        : undefined;
    });

    // A payout not yet sent can be cancelled; one already with the operator answers 409: both
    // are answers the sandbox may give, depending on how fast the workflow sends it.
    const held = ref('cancel');
    await momo.payouts.create({
      reference: held,
      sandboxScenario: 'pending',
      amount: 1000,
      msisdn,
      country: 'CI',
    });
    try {
      const cancelled = await momo.payouts.cancel(held);
      expect(cancelled.status).toBe('reversed');
    } catch (err) {
      expect(err).toBeInstanceOf(MomoApiError);
      expect((err as MomoApiError).code).toBe('PAYOUT_NOT_CANCELLABLE');
    }
    await momo.sandbox.settlePayout(held, { outcome: 'failed' }).catch(() => undefined);
  });

  test('a bulk payout batch', async () => {
    const batch = await momo.bulkPayouts.create({
      items: [
        { reference: ref('bulk1'), sandboxScenario: 'completed', amount: 500, msisdn, country: 'CI' },
        { reference: ref('bulk2'), sandboxScenario: 'completed', amount: 700, msisdn, country: 'CI' },
      ],
    });
    expect(batch.id).toMatch(/^pb_/);
    const read = await momo.bulkPayouts.get(batch.id);
    expect(read.id).toBe(batch.id);
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

  test('transactions: auto-pagination walks several pages without repeats', async () => {
    const first = await momo.transactions.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
    const seen = await momo.transactions.list({ limit: 2 }).toArray(7);
    expect(seen).toHaveLength(7);
    const keys = seen.map((t) => `${t.type}:${t.reference}`);
    expect(new Set(keys).size).toBe(keys.length);
    let pages = 0;
    for await (const page of momo.transactions.list({ limit: 3, type: 'payout' }).pages()) {
      expect(page.data.every((t) => t.type === 'payout')).toBe(true);
      if (++pages === 2) break;
    }
    expect(pages).toBe(2);
  });

  test('accounts and their entries', async () => {
    const account = await momo.accounts.get(xof.id);
    expect(account.currency).toBe('XOF');
    const entries = await momo.accounts.listEntries(xof.id, { limit: '2' }).toArray(3);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0]?.accountId).toBe(xof.id);
  });

  test('a statement, then its file', async () => {
    const statement = await momo.statements.create({
      accountId: xof.id,
      from: new Date(Date.now() - 86_400_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
      format: 'csv',
    });
    const ready = await eventually('the statement', async () => {
      const s = await momo.statements.get(statement.id);
      return s.status === 'ready' ? s : undefined;
    });
    const file = await momo.statements.download(ready);
    expect(file.split('\n')[0]).toMatch(/,/);
    expect(await momo.statements.download(statement.id)).toBe(file);
  });

  test('providers and the operator of a number', async () => {
    const providers = await momo.providers.list({ country: 'CI' });
    expect(providers.providers.length).toBeGreaterThan(0);
    const predicted = await momo.providers.predict({ msisdn: '+2250700000002' });
    expect(predicted.operator).toBe('ORANGE');
  });

  test('events, deliveries, a redelivery, a replay, a test event, rotation, enable', async () => {
    const events = await momo.events.list({ type: 'payin.completed', reference: paidReference });
    const event = events.data[0];
    if (!event) throw new Error('no payin.completed event');
    expect((await momo.events.get(event.id)).id).toBe(event.id);

    const deliveriesPage = await momo.webhooks.listDeliveries(endpoint.id, { eventId: event.id });
    expect(deliveriesPage.data[0]?.eventId).toBe(event.id);

    const before = deliveries.filter((d) => d.headers['webhook-id'] === event.id).length;
    const redelivery = await momo.events.redeliver(event.id, { endpointId: endpoint.id });
    expect(redelivery.deliveries[0]?.endpointId).toBe(endpoint.id);
    await eventually('the redelivery', () =>
      deliveries.filter((d) => d.headers['webhook-id'] === event.id).length > before ? true : undefined,
    );

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date().toISOString();
    const dry = await momo.webhooks.replay(endpoint.id, { from, to, dryRun: true, onlyFailed: false });
    expect(dry.count).toBeGreaterThan(0);
    const replay = await momo.webhooks.replay(endpoint.id, { from, to });
    expect(replay).toHaveProperty('count');

    const tested = await momo.webhooks.sendTest(endpoint.id, { type: 'payin.completed' });
    expect(tested.succeeded).toBe(true);
    expect((await momo.webhooks.get(endpoint.id)).id).toBe(endpoint.id);
    expect((await momo.webhooks.list()).data.some((e) => e.id === endpoint.id)).toBe(true);
    const rotated = await momo.webhooks.rotateSecret(endpoint.id, { overlapSeconds: 60 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect((await momo.webhooks.enable(endpoint.id)).id).toBe(endpoint.id);

    // During the overlap both secrets sign: the new one alone verifies a new delivery.
    const count = deliveries.length;
    await momo.webhooks.sendTest(endpoint.id);
    const next = await eventually('the test event', () => deliveries[count]);
    expect(momo.webhooks.verify(next.body, next.headers, rotated.secret).type).toBeDefined();
    expect(momo.webhooks.verify(next.body, next.headers, endpoint.secret).type).toBeDefined();
    endpoint.secret = rotated.secret;
  });

  test('the event stream, resumed after a closed and after a dropped connection', async () => {
    const payin = (reference: string) =>
      momo.payins.createDirect({
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 1500, msisdn, provider: 'MTN', country: 'CI' },
        action,
      });
    const eventFor = (stream: EventStream, reference: string) =>
      new Promise<WebhookEvent>((resolve) => {
        const onEvent = (e: WebhookEvent) => {
          if (e.type === 'payin.completed' && e.data.reference === reference) {
            stream.off('event', onEvent);
            resolve(e);
          }
        };
        stream.on('event', onEvent);
      });

    const first = await momo.events.stream();
    const one = ref('ws1');
    const seenOne = eventFor(first, one);
    await payin(one);
    const e1 = await seenOne;
    expect(first.lastEventId).toBeDefined();
    const resumeFrom = first.lastEventId as string;
    first.close();

    // While no stream is open: a payin whose event the resume must bring.
    const two = ref('ws2');
    await payin(two);
    await eventually('the second payin', async () =>
      (await momo.payins.get(two)).status === 'success' ? true : undefined,
    );
    await eventually('its event', async () =>
      (await momo.events.list({ reference: two, type: 'payin.completed' })).data[0] ? true : undefined,
    );

    const second = new (first.constructor as typeof EventStream)(momo.core, { lastEventId: resumeFrom });
    const seenTwo = eventFor(second, two);
    const subscribed = await second.connect();
    expect(subscribed.resumedAfter).toBe(e1.id);
    expect(subscribed.replayed).toBeGreaterThan(0);
    await seenTwo;

    // A dropped connection: the stream reconnects by itself and resumes after its last event.
    const reconnected = new Promise<number>((resolve) => second.once('reconnecting', resolve));
    const resubscribed = new Promise((resolve) => second.once('subscribed', resolve));
    second.dropConnection();
    expect(await reconnected).toBe(1);
    await resubscribed;
    const three = ref('ws3');
    const seenThree = eventFor(second, three);
    await payin(three);
    await seenThree;
    second.close();
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
        .catch((e: unknown) =>
          e instanceof MomoApiError && e.status === 409 ? undefined : Promise.reject(e),
        ),
    );
    await momo.sandbox.markPayinCollected(reference);
  });

  test('env: the merchant under test', () => {
    expect(env.merchantId).toMatch(/^mer_/);
  });
});
