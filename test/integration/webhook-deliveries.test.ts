import { Webhook } from 'standardwebhooks';
import { DeliveryLog } from '../../src/webhooks/delivery-log';
import { eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useWebhookStack } from '../helpers/webhooks';
import { publishTestEvent } from '../helpers/events';
import { publicEvent } from '../../src/events/catalogue';
import { webhookDispatcherWorkflowId } from '../../src/temporal/workflow-ids';

// Webhook deliveries and the events API through HTTP: signed deliveries verified with the
// standardwebhooks package, redelivery, the delivery log and its pages, events listing. Endpoints
// themselves: webhooks.test.ts. Receivers run on loopback (WEBHOOK_ALLOW_PRIVATE_NETWORKS).
describe('webhooks: deliveries and events', () => {
  const { stack, merchant, api, receiver, register, at } = useWebhookStack();

  it('delivers a signed payin.completed that the standardwebhooks package verifies, and logs the attempt', async () => {
    const endpoint = await register(api, '/signed');
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-signed-1' });

    const [hit] = await eventually(at('/signed'), (r) => r.length > 0);
    const verified = new Webhook(endpoint.secret).verify(hit!.body, hit!.headers as Record<string, string>);
    const event = publicEvent.parse(verified);
    expect(event).toMatchObject({
      type: 'payin.completed',
      data: { reference: 'wh-signed-1', status: 'success' },
    });
    expect(hit!.headers['webhook-id']).toBe(event.id);
    expect((await api.get(`/v1/events/${event.id}`)).body).toEqual(event);
    // A wrong secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.from('not the secret').toString('base64')}`).verify(
        hit!.body,
        hit!.headers as Record<string, string>,
      ),
    ).toThrow();

    const log = await eventually(
      () => api.get(`/v1/webhooks/${endpoint.id}/deliveries`),
      (r) => r.body.data?.length === 1,
    );
    expect(log.body.data[0]).toMatchObject({
      eventId: event.id,
      eventType: 'payin.completed',
      attempt: 1,
      trigger: 'event',
      succeeded: true,
      statusCode: 200,
      error: null,
      latencyMs: expect.any(Number),
      attemptedAt: expect.stringMatching(/Z$/),
    });
    // Delivered at its first attempt by the endpoint's dispatcher, whose history did not grow for it:
    // its drain activity is still open (no workflow per delivery any more).
    expect(log.body.data[0].deliveryId).toBe(`webhook:${event.id}:${endpoint.id}`);
    const dispatcher = await stack.env.client.workflow
      .getHandle(webhookDispatcherWorkflowId(endpoint.id))
      .fetchHistory();
    expect(dispatcher.events?.some((e) => e.activityTaskCompletedEventAttributes)).toBe(false);

    // Redelivery sends the same event again, as a new delivery, signed afresh.
    const again = await api.post(`/v1/events/${event.id}/redeliver`, {});
    expect(again.status).toBe(202);
    expect(again.body.deliveries).toEqual([
      { endpointId: endpoint.id, deliveryId: expect.stringContaining(':redeliver:') },
    ]);
    const hits = await eventually(at('/signed'), (r) => r.length === 2);
    expect(
      new Webhook(endpoint.secret).verify(hits[1]!.body, hits[1]!.headers as Record<string, string>),
    ).toMatchObject({ id: event.id });
    const log2 = await eventually(
      () => api.get(`/v1/webhooks/${endpoint.id}/deliveries`),
      (r) => r.body.data?.length === 2,
    );
    expect(log2.body.data[0]).toMatchObject({ trigger: 'redelivery', succeeded: true });
    expect((await api.post('/v1/events/evt_unknown/redeliver', {})).body.code).toBe('EVENT_NOT_FOUND');
    await api.request('DELETE', `/v1/webhooks/${endpoint.id}`);
  });

  it('a payin emits payin.completed through its workflow, with the status read as data, to its endpoint', async () => {
    const endpoint = await register(api, '/payin-flow', ['payin.completed']);
    const created = await api.post('/v1/direct/payin', {
      reference: 'wh-payin-flow',
      sandboxScenario: 'completed',
      customerName: 'Awa Koné',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    expect(created.status).toBe(201);
    const [hit] = await eventually(at('/payin-flow'), (r) => r.length > 0);
    const event = publicEvent.parse(
      new Webhook(endpoint.secret).verify(hit!.body, hit!.headers as Record<string, string>),
    );
    expect(event.type).toBe('payin.completed');
    expect(event.data).toEqual((await api.get('/v1/payin/wh-payin-flow')).body);
    await api.request('DELETE', `/v1/webhooks/${endpoint.id}`);
  });

  it('lists events with filters and cursor pagination, and keeps one payin’s events apart from another’s', async () => {
    const other = await createTestMerchant(stack, 'Other');
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-list-ok' });
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.failed', reference: 'wh-list-ko' });
    await publishTestEvent(stack, other.merchantId, { type: 'payin.completed', reference: 'wh-list-other' });
    const all = await eventually(
      () => api.get('/v1/events?limit=100'),
      (r) =>
        ['wh-list-ok', 'wh-list-ko'].every((ref) => r.body.data?.some((e: any) => e.data.reference === ref)),
    );
    expect(all.body.data.some((e: any) => e.data.reference === 'wh-list-other')).toBe(false);
    const failed = await api.get('/v1/events?type=payin.failed');
    expect(failed.body.data.map((e: any) => e.data.reference)).toEqual(['wh-list-ko']);
    expect((await api.get('/v1/events?reference=wh-list-ok')).body.data).toEqual([
      expect.objectContaining({ type: 'payin.completed' }),
    ]);

    // Pages of one, newest first, until the cursor runs out: every event exactly once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.get(`/v1/events?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: any) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.data.map((e: any) => e.id));
    const future = await api.get(
      `/v1/events?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future.body.data).toEqual([]);
    expect((await api.get('/v1/events?cursor=garbage')).body.code).toBe('VALIDATION_ERROR');
    expect((await api.get('/v1/events?type=nope')).status).toBe(400);
  });

  it('lists deliveries newest first by cursor, filters by event, and lists attempts logged before chains', async () => {
    const endpoint = await register(api, '/paged', ['payout.completed']);
    for (let i = 0; i < 3; i++) {
      await publishTestEvent(stack, merchant.merchantId, {
        type: 'payout.completed',
        reference: `wh-paged-${i}`,
      });
      await eventually(at('/paged'), (r) => r.length === i + 1);
    }
    const log = (
      await eventually(
        () => api.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`),
        (r) => r.body.data?.length === 3,
      )
    ).body.data as { eventId: string; deliveryId: string; attemptedAt: string }[];
    const times = log.map((a) => Date.parse(a.attemptedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { deliveryId: string }[]; nextCursor: string | null } } = await api.get(
        `/v1/webhooks/${endpoint.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.data.map((a) => a.deliveryId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(log.map((a) => a.deliveryId));
    const one = await api.get(`/v1/webhooks/${endpoint.id}/deliveries?eventId=${log[1]!.eventId}`);
    expect(one.body.data.map((a: { deliveryId: string }) => a.deliveryId)).toEqual([log[1]!.deliveryId]);

    // An attempt logged before chains existed (no `listed` mark) is listed after the start-up pass.
    const legacy = {
      _id: `webhook:evt_legacy:${endpoint.id}:1`,
      deliveryId: `webhook:evt_legacy:${endpoint.id}`,
      attempt: 1,
      merchantId: merchant.merchantId,
      endpointId: endpoint.id,
      eventId: 'evt_legacy',
      eventType: 'payout.completed',
      trigger: 'event',
      url: `${receiver.url}/paged`,
      attemptedAt: new Date(),
      succeeded: false,
      statusCode: null,
      latencyMs: 3,
      error: 'connect ECONNREFUSED 10.0.0.5:443',
      retryAfterMs: null,
    };
    await stack.mongo.collection('webhookdeliveryattempts').insertOne(legacy as never);
    expect(await DeliveryLog.on(stack.mongo).listUnlisted()).toBeGreaterThanOrEqual(1);
    const after = await api.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`);
    expect(after.body.data).toHaveLength(4);
    // Its error, written before errors were fixed reasons, shows no address.
    expect(after.body.data[0]).toMatchObject({ eventId: 'evt_legacy', error: 'connection refused' });
    expect(JSON.stringify(after.body)).not.toContain('10.0.0.5');
    await api.request('DELETE', `/v1/webhooks/${endpoint.id}`);
  });

  it("delivers an endpoint's events in order; a 410 parks its queue, and enabling it resumes from that event", async () => {
    const endpoint = await register(api, '/parked');
    const refs = (hits: { body: string }[]) =>
      hits.map((h) => (JSON.parse(h.body) as { data: { reference: string } }).data.reference);
    let gone = true;
    receiver.respond = (req) => (req.path === '/parked' && gone ? { status: 410 } : { status: 200 });
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'park-1' });
    // The 410 disables the endpoint and its dispatcher ends, parked at that event.
    const dispatcher = stack.env.client.workflow.getHandle(webhookDispatcherWorkflowId(endpoint.id));
    expect(await dispatcher.result()).toMatchObject({ state: 'parked', reason: 'disabled', attempts: 1 });
    expect((await api.get(`/v1/webhooks/${endpoint.id}`)).body.status).toBe('disabled');
    // Recorded one after the other, so the queue holds them in this order.
    const recorded = { recorded: true };
    await publishTestEvent(
      stack,
      merchant.merchantId,
      { type: 'payin.completed', reference: 'park-2' },
      recorded,
    );
    await publishTestEvent(
      stack,
      merchant.merchantId,
      { type: 'payin.completed', reference: 'park-3' },
      recorded,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(refs(await at('/parked')())).toEqual(['park-1']);

    gone = false;
    expect((await api.post(`/v1/webhooks/${endpoint.id}/enable`, {})).status).toBe(200);
    const hits = await eventually(at('/parked'), (r) => r.length === 4);
    expect(refs(hits)).toEqual(['park-1', 'park-1', 'park-2', 'park-3']);
    const log = await eventually(
      () => api.get(`/v1/webhooks/${endpoint.id}/deliveries`),
      (r) => r.body.data?.length === 4,
    );
    // The parked event's attempts go on numbering: 1 (410), then 2 (delivered).
    expect(
      log.body.data.map((a: { attempt: number; succeeded: boolean }) => [a.attempt, a.succeeded]),
    ).toEqual([
      [1, true],
      [1, true],
      [2, true],
      [1, false],
    ]);
  });

  it("adds no event to its endpoint's dispatcher history per delivery, one event or a burst of 20", async () => {
    const endpoint = await register(api, '/burst');
    const dispatcher = stack.env.client.workflow.getHandle(webhookDispatcherWorkflowId(endpoint.id));
    const length = async () => (await dispatcher.fetchHistory()).events!.length;
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'burst-0' });
    await eventually(at('/burst'), (r) => r.length === 1);
    const afterOne = await length();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        publishTestEvent(stack, merchant.merchantId, {
          type: 'payin.completed',
          reference: `burst-${i + 1}`,
        }),
      ),
    );
    const hits = await eventually(at('/burst'), (r) => r.length === 21);
    // Each once.
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(21);
    const afterBurst = await length();
    console.log(`dispatcher history: ${afterOne} events after 1 delivery, ${afterBurst} after 21`);
    expect(afterBurst).toBe(afterOne);
    // Started, its first task, the drain scheduled: nothing since.
    expect(afterOne).toBeLessThanOrEqual(5);
  });
});
