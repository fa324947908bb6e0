import { publishEventWorkflow, webhookDeliveryWorkflow } from '../../../workflows';
import { RETRY_DELAYS_MS } from '../../../src/webhooks/retry-schedule';
import { newId, replies, stubActivities, useWorkflowTestEnv, type Stubs } from '../helpers/stub-activities';

// One event to one endpoint (workflows/webhooks/webhook-delivery.ts): an attempt, then durable timers on the
// retry schedule (src/webhooks/retry-schedule.ts, ±20% jitter, Retry-After honoured) for about three
// days. The attempt activity is a stub answering as activities/shared/event-activities.ts does.

const minute = 60_000;
/** Real time the server's clock also runs while activities and tasks run (a loaded machine: seconds). */
const slack = 20_000;
const t = useWorkflowTestEnv();

type DeliveryInput = Parameters<typeof webhookDeliveryWorkflow>[0];
const deliveryInput = (over: Partial<DeliveryInput> = {}): DeliveryInput => ({
  eventId: newId('evt'),
  endpointId: newId('we'),
  merchantId: 'm_1',
  trigger: 'event',
  ...over,
});
const retry = (retryAfterMs: number | null = null) => ({ outcome: 'retry', retryAfterMs });
const delivered = { outcome: 'delivered', retryAfterMs: null };

async function run(stubs: Stubs, input = deliveryInput()) {
  return t.withStubs(stubs, async (taskQueue) => {
    const workflowId = `delivery:${newId('d')}`;
    const result = await t.env.client.workflow.execute(webhookDeliveryWorkflow, {
      args: [input],
      taskQueue,
      workflowId,
    });
    return { result, workflowId };
  });
}

const attempts = (stubs: Stubs) =>
  stubs
    .of('attemptWebhookDelivery')
    .map((c) => c.args[0] as DeliveryInput & { attempt: number; deliveryId: string });
/** Time between consecutive attempts (ms). */
const gaps = (stubs: Stubs) => {
  const at = stubs.of('attemptWebhookDelivery').map((c) => c.at);
  return at.slice(1).map((x, i) => x - at[i]!);
};

test('webhook delivery: retried then delivered, on the retry schedule (5 s, then 1 min, ±20%)', async () => {
  const stubs = stubActivities({ attemptWebhookDelivery: replies(retry(), retry(), delivered) });
  const { result, workflowId } = await run(stubs);

  expect(result).toEqual({ outcome: 'delivered', attempts: 3 });
  expect(attempts(stubs).map((a) => [a.attempt, a.deliveryId])).toEqual([
    [1, workflowId],
    [2, workflowId],
    [3, workflowId],
  ]);
  const [first, second] = gaps(stubs);
  expect(first).toBeGreaterThanOrEqual(0.8 * 5_000);
  expect(first).toBeLessThanOrEqual(1.2 * 5_000 + slack);
  expect(second).toBeGreaterThanOrEqual(0.8 * minute);
  expect(second).toBeLessThanOrEqual(1.2 * minute + slack);
});

test("webhook delivery: a receiver's Retry-After is honoured (10 min instead of 5 s)", async () => {
  const stubs = stubActivities({ attemptWebhookDelivery: replies(retry(10 * minute), delivered) });
  const { result } = await run(stubs);

  expect(result).toEqual({ outcome: 'delivered', attempts: 2 });
  expect(gaps(stubs)[0]).toBeGreaterThanOrEqual(10 * minute);
});

test('webhook delivery gives up: every attempt fails -> exhausted after 11 attempts over about three days', async () => {
  const stubs = stubActivities({ attemptWebhookDelivery: replies(retry()) });
  const { result } = await run(stubs);

  expect(result).toEqual({ outcome: 'exhausted', attempts: RETRY_DELAYS_MS.length + 1 });
  const waits = gaps(stubs);
  expect(waits).toHaveLength(RETRY_DELAYS_MS.length);
  waits.forEach((w, i) => {
    expect(w).toBeGreaterThanOrEqual(0.8 * RETRY_DELAYS_MS[i]!);
    expect(w).toBeLessThanOrEqual(1.2 * RETRY_DELAYS_MS[i]! + slack);
  });
});

test.each(['endpoint_gone', 'endpoint_unavailable', 'event_missing'])(
  'webhook delivery ends at the first %s answer: no further attempt',
  async (outcome) => {
    const stubs = stubActivities({ attemptWebhookDelivery: replies({ outcome, retryAfterMs: null }) });
    const { result } = await run(stubs);

    expect(result).toEqual({ outcome, attempts: 1 });
    expect(stubs.count('attemptWebhookDelivery')).toBe(1);
  },
);

test('webhook delivery started after an inline first attempt (`after`) goes on from attempt 2, after its delay', async () => {
  const stubs = stubActivities({ attemptWebhookDelivery: replies(delivered) });
  const t0 = await t.now();
  const { result } = await run(stubs, deliveryInput({ after: { attempts: 1, retryAfterMs: null } }));

  expect(result).toEqual({ outcome: 'delivered', attempts: 2 });
  expect(attempts(stubs).map((a) => a.attempt)).toEqual([2]);
  expect(stubs.of('attemptWebhookDelivery')[0]!.at - t0).toBeGreaterThanOrEqual(0.8 * 5_000);
});

test('publish event: records the event once (which starts its deliveries) and answers its id', async () => {
  const input = {
    merchantId: 'm_1',
    type: 'payin.completed' as const,
    subjectId: 'pi_1',
    reference: 'ref-1',
    data: { id: 'pi_1' },
  };
  const stubs = stubActivities({ recordEvent: replies({ eventId: 'evt_42' }) });
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(publishEventWorkflow, {
      args: [input],
      taskQueue,
      workflowId: newId('pub'),
    }),
  );

  expect(result).toEqual({ eventId: 'evt_42' });
  expect(stubs.of('recordEvent').map((c) => c.args)).toEqual([[input]]);
});
