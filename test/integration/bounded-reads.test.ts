import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { ApiClient, basic, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant, type TestMerchant } from '../helpers/merchants';
import { startStack, type TestStack } from '../helpers/stack';
import { publishTestEvent } from '../helpers/events';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { auditQueries, describeScans, type QueryAuditOptions } from '../helpers/query-audit';

// Issue 16: every lookup on a request path is an `_id` lookup or a bounded read model. On FerretDB
// only an exact `{ _id }` filter is pushed down; any other filter decodes the whole collection, so
// one busy merchant would slow every list of every tenant. Each request below runs on the real
// stack (HTTP API, worker, FerretDB) while test/helpers/query-audit.ts records every command on the
// stack's database; none may be a scan. The worker shares that database: each audited request
// runs once the worker is idle (every event recorded, every delivery logged).

// Background work that is not a request path: the WebSocket fan-out tails the capped feed (a
// tailable cursor, see src/events/event-feed.ts).
const auditOptions: QueryAuditOptions = { ignore: (q) => q.collection === 'event_feed' };

describe('bounded reads on request paths', () => {
  let stack: TestStack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let payinRef: string;
  let endpointId: string;

  const audited = async <T>(fn: () => Promise<T>): Promise<T> => {
    const audit = await auditQueries(stack.mongo, fn, auditOptions);
    expect(audit.queries.length).toBeGreaterThan(0);
    if (audit.scans.length) throw new Error(`scans on a request path:\n${describeScans(audit.scans)}`);
    return audit.result;
  };
  const eventCount = async () => (await api.get('/v1/events?limit=100')).body.data.length as number;

  beforeAll(async () => {
    stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    receiver = await startReceiver();
    merchant = await createTestMerchant(stack);
    other = await createTestMerchant(stack, 'Other merchant');
    api = new ApiClient(stack.baseUrl, merchant.credentials);
    await fundMerchant(stack, merchant.merchantId, 100_000);
    const endpoint = await api.post('/v1/webhooks', { url: `${receiver.url}/hook` });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;

    // Another tenant's traffic, which none of this merchant's reads may have to read through.
    for (let i = 0; i < 3; i++)
      await publishTestEvent(stack, other.merchantId, { type: 'payin.completed', reference: `other-${i}` });

    payinRef = `br-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payin', {
      reference: payinRef,
      sandboxScenario: 'completed',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/payin/${payinRef}`),
      (r) => r.body.status === 'success',
    );
    // The payin's own event is recorded after its status reads success; wait for it so the counts
    // below only see the events this test publishes.
    await eventually(
      () => api.get(`/v1/events?reference=${payinRef}`),
      (r) => r.body.data?.length === 1,
    );
    // One after the other, so the list's order is known.
    for (let i = 0; i < 4; i++) {
      const n = await eventCount();
      await publishTestEvent(stack, merchant.merchantId, {
        type: i % 2 ? 'payin.failed' : 'payin.completed',
        reference: `br-ev-${i}`,
      });
      await eventually(eventCount, (c) => c === n + 1);
    }
    // Idle: every event delivered to the endpoint.
    await eventually(
      async () => receiver.received.length,
      (n) => n >= 4,
    );
    await new Promise((r) => setTimeout(r, 1_000));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('lists events page by page, by reference, by type and by time, newest first', async () => {
    const all = (await api.get('/v1/events?limit=100')).body.data as Array<{ id: string; createdAt: string }>;
    expect(all.length).toBeGreaterThanOrEqual(5);
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Array<{ id: string }>; nextCursor: string | null } } = await audited(() =>
        api.get(`/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      );
      pages.push(...page.body.data.map((e) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual(all.map((e) => e.id));

    const ofPayin = await audited(() => api.get(`/v1/events?reference=${payinRef}`));
    expect(ofPayin.body.data.map((e: { type: string }) => e.type)).toEqual(['payin.completed']);
    const failed = await audited(() => api.get('/v1/events?type=payin.failed'));
    expect(failed.body.data.map((e: { data: { reference: string } }) => e.data.reference)).toEqual([
      'br-ev-3',
      'br-ev-1',
    ]);
    const middle = all[2]!;
    const window = await audited(() =>
      api.get(
        `/v1/events?from=${encodeURIComponent(middle.createdAt)}&to=${encodeURIComponent(all[0]!.createdAt)}`,
      ),
    );
    expect(window.body.data.map((e: { id: string }) => e.id)).toEqual([all[1]!.id, all[2]!.id]);
    const one = await audited(() => api.get(`/v1/events/${middle.id}`));
    expect(one.body.id).toBe(middle.id);
  });

  it('reads accounts and statements by _id', async () => {
    const accounts = await audited(() => api.get('/v1/accounts'));
    const main = accounts.body.data.find((a: { kind: string }) => a.kind === 'main');
    expect(main).toBeDefined();
    await audited(() => api.get(`/v1/accounts/${main.id}`));
    const first = await audited(() => api.get(`/v1/accounts/${main.id}/entries?limit=1`));
    expect(first.body.data).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await audited(() =>
      api.get(`/v1/accounts/${main.id}/entries?limit=1&cursor=${first.body.nextCursor}`),
    );
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
  });

  it('lists webhook deliveries by _id', async () => {
    await eventually(
      () => api.get(`/v1/webhooks/${endpointId}/deliveries?limit=100`),
      (r) => r.body.data?.length >= 2,
    );
    const page = await audited(() => api.get(`/v1/webhooks/${endpointId}/deliveries?limit=1`));
    expect(page.body.data).toHaveLength(1);
    await audited(() =>
      api.get(`/v1/webhooks/${endpointId}/deliveries?limit=1&cursor=${page.body.nextCursor}`),
    );
  });

  it('reads payins and refunds by reference, and checks a refund externalReference by _id', async () => {
    const payin = await audited(() => api.get(`/v1/payin/${payinRef}`));
    expect(payin.body.status).toBe('success');
    const body = { reason: 'returned', amount: 1000, externalReference: `ext-${randomUUID().slice(0, 8)}` };
    const refund = await api.post(`/v1/payin/${payinRef}/refund`, body);
    expect(refund.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${refund.body.reference ?? refund.body.id}`),
      (r) => r.body.status === 'completed',
    );
    await eventually(eventCount, (c) => c >= 7); // refund.processing and refund.completed recorded
    await new Promise((r) => setTimeout(r, 1_000));
    // The same externalReference again (another idempotency key): refused from the read model.
    const duplicate = await audited(() => api.post(`/v1/payin/${payinRef}/refund`, body));
    expect(duplicate.status).toBe(409);
    await audited(() => api.get(`/v1/refunds/${refund.body.reference ?? refund.body.id}`));
    await audited(() => api.get(`/v1/payin/${payinRef}`));
  });

  it('reads payouts by merchant reference', async () => {
    const reference = `brp-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payout', {
      reference,
      payout: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/direct/payout/${reference}`),
      (r) => ['completed', 'failed'].includes(r.body.status),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const read = await audited(() => api.get(`/v1/direct/payout/${reference}`));
    expect(read.body.reference).toBe(reference);
    await audited(() => api.get(`/v1/payout/${reference}`));
    const missing = await audited(() => api.get(`/v1/payout/nope-${reference}`));
    expect(missing.status).toBe(404);
  });

  it('resumes a WebSocket from a cursor by _id', async () => {
    const oldest = (await api.get('/v1/events?limit=100')).body.data.at(-1);
    const url = `${stack.baseUrl.replace('http', 'ws')}/v1/ws`;
    const ws = new WebSocket(url, { headers: { authorization: basic(merchant.credentials) } });
    const messages: Array<{ type: string; replayed?: number }> = [];
    ws.on('message', (d: Buffer) => messages.push(JSON.parse(d.toString('utf8'))));
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    await eventually(
      async () => messages.length,
      (n) => n > 0,
    );
    try {
      await audited(async () => {
        ws.send(JSON.stringify({ type: 'subscribe', lastEventId: oldest.id }));
        await eventually(
          async () => messages.find((m) => m.type === 'subscribed'),
          (m) => m !== undefined,
        );
      });
      const ack = messages.find((m) => m.type === 'subscribed')!;
      expect(ack.replayed).toBeGreaterThanOrEqual(5);
    } finally {
      ws.close();
    }
  });

  it('issues and consumes a WebSocket token by _id (the expiry sweep runs off the request path)', async () => {
    // The first issue of a process starts the background sweep; let it finish before auditing.
    expect((await api.post('/v1/ws/tokens', {}, { 'x-idempotency-key': randomUUID() })).status).toBe(201);
    await new Promise((res) => setTimeout(res, 500));
    const issued = await audited(() => api.post('/v1/ws/tokens', {}, { 'x-idempotency-key': randomUUID() }));
    expect(issued.status).toBe(201);
    const ws = new WebSocket(`${stack.baseUrl.replace('http', 'ws')}/v1/ws?token=${issued.body.token}`);
    try {
      await audited(
        () =>
          new Promise((res, rej) => {
            ws.once('open', res);
            ws.once('error', rej);
          }),
      );
    } finally {
      ws.close();
    }
  });
});
