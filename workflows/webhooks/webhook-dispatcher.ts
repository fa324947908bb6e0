import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  defineSignal,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookDispatchActivities } from '../../activities/webhooks/webhook-dispatch-activities';
import { nextRetryDelayMs } from '../../src/webhooks/retry-schedule';
import { isPatched } from '../shared/patches';
import type {
  OutboxCursor,
  WebhookDispatcherInput,
  WebhookDispatcherResult,
} from '../../src/webhooks/messages';

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
const { parkWebhookEndpoint, enableWebhookEndpoint } = proxyActivities<DispatchActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

/**
 * Sent when the merchant enables the endpoint (after the API stored `enabled`; signalled with start,
 * so a closed dispatcher starts again). The dispatcher is where a park and an enable meet: an enable
 * it sees after any park of its own stores `enabled` again (the merchant's word comes last), and an
 * enable seen before a park it would make starts the retry schedule afresh instead
 * (docs/decisions/webhooks/park-and-enable-meet-in-the-dispatcher.md).
 */
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
  // Whether the merchant enabled the endpoint and this run has not applied it yet (runs from before
  // the patch: since the current drain began).
  let enabled = false;
  setHandler(endpointEnabled, () => {
    enabled = true;
  });
  // Runs from before the patch only knew the signal as "do not park after this drain". Asked only
  // once an enable arrived, so a run without one records no marker in its history.
  const serialized = () => isPatched('dispatcher-applies-enable');
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
      if (enabled && serialized()) {
        // The merchant enabled the endpoint: stored again (a park or a 410 of ours may have been
        // written over the API's write), and its queue retried now, its schedule afresh.
        enabled = false;
        failing = null;
        await enableWebhookEndpoint({ merchantId, endpointId });
        continue;
      }
      if (failing) {
        const delay = nextRetryDelayMs(failing.failures, failing.retryAfterMs, seededRandom());
        if (delay === null) {
          const at = from!;
          await parkWebhookEndpoint({ merchantId, endpointId, ...at });
          // Enabled while parking (or as this run ends): the enable is the later word.
          if (enabled && serialized()) continue;
          return { state: 'parked', reason: 'exhausted', ...at };
        }
        // An enable wakes the wait: the merchant asks for the queue to be retried now.
        await condition(() => enabled && serialized(), delay);
        if (enabled && serialized()) continue;
      }
      if (enabled && !serialized()) enabled = false;
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
      // An enable not applied yet is applied first (the next run would not know of it).
      if (!(enabled && serialized()) && (info.continueAsNewSuggested || info.historyLength > HISTORY_LIMIT))
        await continueAsNew<typeof webhookDispatcherWorkflow>({
          merchantId,
          endpointId,
          from,
          ...(failing ? { failing } : {}),
        });
    }
  }
}
