import { Webhook } from 'standardwebhooks';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { publishTestEvent } from '../helpers/events';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule';
import { webhookDispatcherWorkflowId } from '../../src/temporal/workflow-ids';

// Durable delivery over a long outage, in Temporal's time-skipping test server: the receiver is down
// for 20 hours of workflow time, then up; the event arrives once, with a valid signature.
describe('webhook delivery survives a long outage', () => {
  const { stack, receiver } = useStack({
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    merchant: false,
    receiver: true,
  });

  it('retries with backoff (honouring Retry-After) and delivers exactly once after 20 hours down', async () => {
    const merchant = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, merchant.credentials);
    const endpoint = (await api.post('/v1/webhooks', { url: `${receiver.url}/hook` })).body;
    let up = false;
    receiver.respond = () =>
      up
        ? { status: 200 }
        : receiver.received.length === 0
          ? { status: 503, headers: { 'retry-after': '7200' } }
          : { status: 503 };

    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'outage-1' });
    const [first] = await eventually(
      () => api.get(`/v1/webhooks/${endpoint.id}/deliveries`),
      (r) => r.body.data?.length === 1,
    ).then((r) => r.body.data);
    expect(first).toMatchObject({ succeeded: false, statusCode: 503 });

    await stack.env.sleep('20h');
    expect(receiver.received.every((r) => r.status === 503)).toBe(true);
    up = true;
    // The endpoint's dispatcher waits its backoff on a durable timer: time is skipped to it (not
    // beyond: a drain running holds the test server's time, it then passes as real time).
    const dispatcher = stack.env.client.workflow.getHandle(webhookDispatcherWorkflowId(endpoint.id));
    const timer = (await dispatcher.fetchHistory())
      .events!.filter((e) => e.timerStartedEventAttributes)
      .pop()!;
    const firesAt =
      Number(timer.eventTime!.seconds) * 1000 +
      Number(timer.timerStartedEventAttributes!.startToFireTimeout!.seconds) * 1000;
    await stack.env.sleep(Math.max(0, firesAt - (await stack.env.currentTimeMs())) + 1000);
    await eventually(
      () => api.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`),
      (r) => r.body.data?.[0]?.succeeded === true,
    );
    const attempts = receiver.received.length;

    // Exactly one successful request, signed so the standardwebhooks package verifies it.
    const ok = receiver.received.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    const verified = new Webhook(endpoint.secret).verify(
      ok[0]!.body,
      ok[0]!.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({ type: 'payin.completed', data: { reference: 'outage-1' } });
    // Every earlier attempt failed, and each was logged.
    expect(attempts).toBeGreaterThanOrEqual(6);
    const log = (await api.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`)).body.data;
    expect(log).toHaveLength(attempts);
    expect(log.filter((a: any) => a.succeeded)).toHaveLength(1);
    expect(log[0]).toMatchObject({ succeeded: true, attempt: attempts, statusCode: 200 });

    // The durable timers of the endpoint's dispatcher: Retry-After (2 h) instead of the 5 s of the
    // schedule, then the schedule with its jitter (±20 %). A drain per failed attempt, and the one
    // still open that delivered.
    const history = await dispatcher.fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled).toHaveLength(attempts);
    expect(new Set(log.map((a: any) => a.deliveryId))).toEqual(new Set([first.deliveryId]));
    const timers = (history.events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.seconds)
      .filter((s) => s != null)
      .map((s) => Number(s) * 1000);
    expect(timers[0]).toBeGreaterThanOrEqual(7_200_000);
    timers.slice(1).forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i + 1]! * 0.8 - 1000);
      expect(ms).toBeLessThanOrEqual(RETRY_DELAYS_MS[i + 1]! * 1.2);
    });
  });
});
