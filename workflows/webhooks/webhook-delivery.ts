import { proxyActivities, sleep, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createEventActivities } from '../../activities/shared/event-activities';
import { nextRetryDelayMs } from '../../src/webhooks/retry-schedule';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../src/webhooks/messages';

// Delivers one event to one endpoint: an attempt, then durable timers between attempts for about
// three days (see src/webhooks/retry-schedule.ts). A 2xx ends it; a 410 disables the endpoint.
// The activity that records an event starts this workflow and returns (src/webhooks/dispatch.ts):
// it makes the first attempt too. Workflows started before that (when the first attempt was made
// inline and this workflow only on its failure) carry `after` and go on from the next attempt.

// An attempt reports HTTP failures as outcomes; Temporal retries it only when it could not run
// (database down, worker lost), and the attempt log keeps such a retry from sending twice.
const { attemptWebhookDelivery } = proxyActivities<ReturnType<typeof createEventActivities>>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

/** A number in [0, 1) from the workflow's seeded random: replays see the same jitter. */
function seededRandom(): number {
  return parseInt(uuid4().slice(0, 8), 16) / 0x1_0000_0000;
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const deliveryId = workflowInfo().workflowId;
  const made = input.after?.attempts ?? 0;
  let retryAfterMs = input.after?.retryAfterMs ?? null;
  for (let attempt = made + 1; ; attempt++) {
    if (attempt > 1) {
      const delay = nextRetryDelayMs(attempt - 1, retryAfterMs, seededRandom());
      if (delay === null) return { outcome: 'exhausted', attempts: attempt - 1 };
      await sleep(delay);
    }
    const r = await attemptWebhookDelivery({ ...input, deliveryId, attempt });
    if (r.outcome !== 'retry') return { outcome: r.outcome, attempts: attempt };
    retryAfterMs = r.retryAfterMs;
  }
}
