import { toPublicEvent, type StoredEvent } from '../events/catalogue';
import { webhookDeliveries } from '../infra/metrics';
import type { DeliveryLog } from './delivery-log';
import { activeSecrets, type WebhookEndpoint } from './endpoint-store';
import type { WebhookDeliveryInput } from './messages';
import { postWebhook } from './sender';
import { signedHeaders } from './signing';
import type { PrivateNetworkAccess } from './ssrf';

export interface AttemptDeps {
  deliveries: DeliveryLog;
  webhooks: { timeoutMs: number; allowPrivateNetworks: PrivateNetworkAccess };
}

export interface AttemptOf {
  deliveryId: string;
  attempt: number;
  trigger: WebhookDeliveryInput['trigger'];
  /**
   * How the attempt is logged: `listed` (the dispatcher's: its entry in the endpoint's delivery
   * chain, written once) or as an attempt document a retried activity finds before sending again.
   */
  log: 'listed' | 'document';
}

/**
 * One HTTP attempt of an event to an endpoint, signed at the attempt (receivers check the
 * timestamp's freshness), then logged. Shared by the endpoint's dispatcher and the redelivery
 * workflow, so both send and log the same way.
 */
export async function attemptWebhook(
  deps: AttemptDeps,
  endpoint: WebhookEndpoint,
  event: StoredEvent,
  of: AttemptOf,
): Promise<{ succeeded: boolean; statusCode: number | null; retryAfterMs: number | null }> {
  const body = JSON.stringify(toPublicEvent(event));
  const headers = signedHeaders(
    event.id,
    body,
    activeSecrets(endpoint).map((s) => s.secret),
  );
  const attemptedAt = new Date();
  const sent = await postWebhook(endpoint.url, headers, body, deps.webhooks);
  const succeeded = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300;
  const entry = {
    deliveryId: of.deliveryId,
    attempt: of.attempt,
    merchantId: event.merchantId,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    trigger: of.trigger,
    url: endpoint.url,
    attemptedAt,
    succeeded,
    statusCode: sent.statusCode,
    latencyMs: sent.latencyMs,
    error: sent.error,
    retryAfterMs: sent.retryAfterMs,
  };
  await (of.log === 'listed' ? deps.deliveries.recordListed(entry) : deps.deliveries.record(entry));
  webhookDeliveries.inc({ outcome: succeeded ? 'delivered' : sent.statusCode === 410 ? 'gone' : 'failed' });
  return { succeeded, statusCode: sent.statusCode, retryAfterMs: sent.retryAfterMs };
}
