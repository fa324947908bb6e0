import {
  CancellationScope,
  continueAsNew,
  isCancellation,
  defineSignal,
  proxyActivities,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookDispatchActivities } from '../activities/webhook-dispatch-activities';
import { nextRetryDelayMs } from '../src/webhooks/retry-schedule';
import type { OutboxCursor, WebhookDispatcherInput, WebhookDispatcherResult } from '../src/webhooks/messages';

// One per endpoint (`webhook-dispatcher:<endpointId>`): delivers the merchant's events to it in
// order (docs/events.md, Delivery and retries). Its drain activity runs for up to an hour, delivering as events are
// recorded, and comes back only when the event at the head of the queue failed (then this workflow
// waits the retry schedule of src/webhooks/retry-schedule.ts, honouring Retry-After, and drains
// again), when the endpoint is disabled or deleted (the queue parks: this workflow ends, and
// enabling the endpoint starts it again from the same cursor), or when its hour is up. A schedule
// spent on one event (~3 days) disables the endpoint, as Stripe does. The history grows by a few
// events an hour, not per delivery, and continues as new when Temporal suggests it.

type DispatchActivities = ReturnType<typeof createWebhookDispatchActivities>;

const { drainWebhookOutbox } = proxyActivities<DispatchActivities>({
  // The drain runs an hour at most (src/webhooks/outbox.ts DRAIN_RUN_MS) and heartbeats every 10 s:
  // a lost worker is noticed within a minute and the drain resumes elsewhere from its heartbeat.
  startToCloseTimeout: '75m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});
const { parkWebhookEndpoint } = proxyActivities<DispatchActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

/** Sent when the endpoint is enabled: a drain that found it disabled meanwhile goes on. */
export const endpointEnabled = defineSignal('endpointEnabled');

/** A number in [0, 1) from the workflow's seeded random: replays see the same jitter. */
function seededRandom(): number {
  return parseInt(uuid4().slice(0, 8), 16) / 0x1_0000_0000;
}

/** Histories past this many events continue as new even before Temporal suggests it. */
const HISTORY_LIMIT = 2_000;

export async function webhookDispatcherWorkflow(
  input: WebhookDispatcherInput,
): Promise<WebhookDispatcherResult> {
  const { merchantId, endpointId } = input;
  // Whether the endpoint was enabled since the current drain began.
  let enabled: boolean;
  setHandler(endpointEnabled, () => {
    enabled = true;
  });
  let from: OutboxCursor | null = input.from ?? null;
  let failing = input.failing ?? null;
  try {
    return await dispatch();
  } catch (err) {
    // Cancelled: the endpoint was deleted (the API cancels its dispatcher); nothing is left to send.
    if (isCancellation(err) && CancellationScope.current().consideredCancelled)
      return { state: 'parked', reason: 'deleted', ...(from ?? { cursor: 0, attempts: 0 }) };
    throw err;
  }

  async function dispatch(): Promise<WebhookDispatcherResult> {
    for (;;) {
      if (failing) {
        const delay = nextRetryDelayMs(failing.failures, failing.retryAfterMs, seededRandom());
        if (delay === null) {
          const at = from!;
          await parkWebhookEndpoint({ merchantId, endpointId, ...at });
          return { state: 'parked', reason: 'exhausted', ...at };
        }
        await sleep(delay);
      }
      enabled = false;
      const r = await drainWebhookOutbox({ merchantId, endpointId, from });
      from = { cursor: r.cursor, attempts: r.attempts };
      if (r.state === 'parked') {
        // Enabled again while the drain was finding it disabled: go on rather than park.
        if (enabled && r.reason === 'disabled') continue;
        return { state: 'parked', reason: r.reason, ...from };
      }
      failing =
        r.state === 'failed'
          ? {
              eventId: r.eventId,
              failures: failing?.eventId === r.eventId ? failing.failures + 1 : 1,
              retryAfterMs: r.retryAfterMs,
            }
          : null;
      const info = workflowInfo();
      if (info.continueAsNewSuggested || info.historyLength > HISTORY_LIMIT)
        await continueAsNew<typeof webhookDispatcherWorkflow>({
          merchantId,
          endpointId,
          from,
          ...(failing ? { failing } : {}),
        });
    }
  }
}
