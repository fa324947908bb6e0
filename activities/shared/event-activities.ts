import { observeTransactionEvent } from '../../src/infra/metrics';
import type { EventType } from '../../src/events/catalogue';
import type { EventStore, RecordEventInput } from '../../src/events/event-store';
import { toPublicRecord } from '../../src/contract/records/payout-record';
import { refundedTotal } from '../../src/domain/refund';
import type { RefundStore } from '../../src/persistence/refunds';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { DeliveryLog } from '../../src/webhooks/delivery-log';
import type { EndpointStore } from '../../src/webhooks/endpoint-store';
import { attemptWebhook } from '../../src/webhooks/attempt';
import type { PrivateNetworkAccess } from '../../src/webhooks/ssrf';
import type { AttemptOutcome, WebhookDeliveryInput } from '../../src/webhooks/messages';
import { missingRecord } from '../../src/temporal/permanent-errors';

type AttemptInput = WebhookDeliveryInput & { deliveryId: string; attempt: number };

export interface EventActivityDeps {
  transactions: TransactionStore;
  /** A payin's record shows its refunds, in events as in the status read. */
  refunds: RefundStore;
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  webhooks: { timeoutMs: number; allowPrivateNetworks: PrivateNetworkAccess };
}

/** Events and webhook deliveries. Each is idempotent: a retry or a replay changes nothing twice. */
export function createEventActivities(deps: EventActivityDeps) {
  const { transactions, refunds, events, endpoints, deliveries } = deps;

  /** One HTTP attempt, logged; an attempt already logged (a retry) is not sent again. */
  async function attemptDelivery(
    input: AttemptInput,
  ): Promise<{ outcome: AttemptOutcome; retryAfterMs: number | null }> {
    const logged = await deliveries.find(input.deliveryId, input.attempt);
    if (logged)
      return { outcome: logged.succeeded ? 'delivered' : 'retry', retryAfterMs: logged.retryAfterMs };

    const endpoint = await endpoints.get(input.merchantId, input.endpointId);
    if (!endpoint || endpoint.status !== 'enabled')
      return { outcome: 'endpoint_unavailable', retryAfterMs: null };
    const event = await events.findById(input.merchantId, input.eventId);
    if (!event) return { outcome: 'event_missing', retryAfterMs: null };

    const sent = await attemptWebhook(deps, endpoint, event, {
      deliveryId: input.deliveryId,
      attempt: input.attempt,
      trigger: input.trigger,
      log: 'document',
    });
    if (sent.succeeded) return { outcome: 'delivered', retryAfterMs: null };
    if (sent.statusCode === 410) {
      await endpoints.setStatus(input.merchantId, endpoint.id, 'disabled', 'the endpoint answered 410 Gone');
      return { outcome: 'endpoint_gone', retryAfterMs: null };
    }
    return { outcome: 'retry', retryAfterMs: sent.retryAfterMs };
  }

  /**
   * Stores the event (once per emission key): one insert, its place in the merchant's chain and its
   * feed entry. Nothing else on the money path: each endpoint's dispatcher (workflows/webhook-
   * dispatcher.ts) delivers it from that chain, woken in its worker process, so no endpoint is
   * listed and no workflow started per event, and a slow merchant endpoint never holds this.
   */
  async function recordEvent(input: RecordEventInput): Promise<{ eventId: string }> {
    const event = await events.record(input);
    observeTransactionEvent(input.type, input.data);
    return { eventId: event.id };
  }

  return {
    recordEvent,

    /** The event of a payin or payout state change; its data is the record the status read returns. */
    async emitTransactionEvent(transactionId: string, type: EventType): Promise<{ eventId: string }> {
      const tx = await transactions.findById(transactionId);
      if (!tx) throw missingRecord(`no transaction ${transactionId}`);
      // The record exactly as the status read answers it (a shape B payout has its own shape;
      // a payin carries its refunds).
      const ofPayin = tx.kind === 'payin' ? await refunds.ofPayin(tx) : null;
      const data = toPublicRecord(
        tx,
        ofPayin ? { refunds: ofPayin, refunded: refundedTotal(ofPayin) } : undefined,
      );
      const recorded = await recordEvent({
        merchantId: tx.merchantId,
        type,
        subjectId: tx.id,
        reference: tx.reference,
        data,
      });
      // A payin opened from a payment link tells the link's merchant it was paid, from this very
      // activity so no workflow changes (its own emission key: recorded once, like the payin's).
      if (
        tx.kind === 'payin' &&
        tx.paymentLinkId &&
        (type === 'payin.completed' || type === 'payin.corrected')
      )
        await recordEvent({
          merchantId: tx.merchantId,
          type: 'payment_link.paid',
          subjectId: tx.id,
          reference: tx.reference,
          data,
        });
      return recorded;
    },

    /** One HTTP attempt, logged; an attempt already logged (activity retry) is not sent again. */
    attemptWebhookDelivery: attemptDelivery,
  };
}
