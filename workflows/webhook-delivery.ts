import { proxyActivities, sleep, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { nextRetryDelayMs } from '../src/webhooks/retry-schedule';

// Delivers one event to one endpoint: an attempt, then durable timers between attempts for about
// three days (see src/webhooks/retry-schedule.ts). A 2xx ends it; a 410 disables the endpoint.

export interface WebhookDeliveryInput {
  eventId: string;
  endpointId: string;
  merchantId: string;
  trigger: 'event' | 'redelivery';
}

export type AttemptOutcome =
  'delivered' | 'retry' | 'endpoint_gone' | 'endpoint_unavailable' | 'event_missing';

export interface WebhookDeliveryResult {
  outcome: Exclude<AttemptOutcome, 'retry'> | 'exhausted';
  attempts: number;
}

// An attempt reports HTTP failures as outcomes; Temporal retries it only when it could not run
// (database down, worker lost), and the attempt log keeps such a retry from sending twice.
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

/** A number in [0, 1) from the workflow's seeded random: replays see the same jitter. */
function seededRandom(): number {
  return parseInt(uuid4().slice(0, 8), 16) / 0x1_0000_0000;
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const deliveryId = workflowInfo().workflowId;
  for (let attempt = 1; ; attempt++) {
    const r = await attemptWebhookDelivery({ ...input, deliveryId, attempt });
    if (r.outcome !== 'retry') return { outcome: r.outcome, attempts: attempt };
    const delay = nextRetryDelayMs(attempt, r.retryAfterMs, seededRandom());
    if (delay === null) return { outcome: 'exhausted', attempts: attempt };
    await sleep(delay);
  }
}
