import { isLiveScope } from '../domain/modes';
import { z } from 'zod';

// The event catalogue: every state change a merchant hears of, by webhook and over WebSocket.
// `payin.corrected` is our name for the interface's unnamed "failed turned success after the
// partner check" callback.
export const eventTypes = [
  'payin.completed',
  'payin.failed',
  'payin.expired',
  'payin.corrected',
  'payout.updated',
  'payout.completed',
  'refund.processing',
  'refund.completed',
  'refund.failed',
  'payout.batch.completed',
  'statement.ready',
  'payment_link.paid',
] as const;
export type EventType = (typeof eventTypes)[number];
export const eventType = z.enum(eventTypes);

/**
 * What each type means, as docs/events.md shows it (its table is generated from this by
 * scripts/generate-event-docs.ts): a new type cannot be added without saying when it is sent.
 */
export const eventDescriptions: Record<EventType, { when: string; data: string }> = {
  'payin.completed': {
    when: 'a payin reached `success`',
    data: 'the payin record (as `GET /v1/payin/{reference}`)',
  },
  'payin.failed': { when: 'a payin reached `failed`', data: 'the payin record' },
  'payin.expired': { when: 'the customer did not answer in time', data: 'the payin record' },
  'payin.corrected': {
    when: 'a failed payin turned `success` after the partner check (the interface leaves this name open; this is ours)',
    data: 'the payin record',
  },
  'payout.updated': { when: 'every payout status change', data: 'the payout record' },
  'payout.completed': { when: 'a payout reached its final confirmed state', data: 'the payout record' },
  'refund.processing': { when: 'a refund is in progress', data: 'the refund record' },
  'refund.completed': { when: 'a refund was executed', data: 'the refund record' },
  'refund.failed': { when: 'a refund was refused', data: 'the refund record' },
  'payout.batch.completed': {
    when: 'every accepted payout of a bulk batch is final (docs/bulk-payouts.md)',
    data: 'the batch record (as `GET /v1/payouts/bulk/{id}`)',
  },
  'statement.ready': {
    when: 'a statement was generated (docs/statements.md)',
    data: 'the statement record, without its download link',
  },
  'payment_link.paid': {
    when: 'a payin opened from a payment link reached `success` (docs/payment-links.md), beside its `payin.completed`',
    data: 'the payin record, whose `paymentLinkId` names the link',
  },
};

/** What kind of resource an event is about; `data` is that resource's public record. */
export type EventSubjectKind = 'payin' | 'payout' | 'refund' | 'payout.batch' | 'statement' | 'payment_link';

/** Everything before the last dot: `payout.batch.completed` is about a payout batch. */
export function subjectKindOf(type: EventType): EventSubjectKind {
  return type.slice(0, type.lastIndexOf('.')) as EventSubjectKind;
}

/** The public event, identical in a webhook body, a WebSocket message and GET /v1/events. */
export const publicEvent = z.object({
  id: z.string().startsWith('evt_'),
  type: eventType,
  createdAt: z.string(),
  /** The mode of the key whose object it is about (test events never reach live endpoints). */
  livemode: z.boolean(),
  data: z.record(z.string(), z.unknown()),
});
export type PublicEvent = z.infer<typeof publicEvent>;

/** An event as stored: the public part plus what routing and ordering need. */
export interface StoredEvent {
  id: string;
  merchantId: string;
  type: EventType;
  subjectId: string;
  reference: string;
  /** Unique per emission, so an activity retry records the event once. */
  emissionKey: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

export function toPublicEvent(e: StoredEvent): PublicEvent {
  return {
    id: e.id,
    type: e.type,
    createdAt: new Date(e.createdAt).toISOString(),
    livemode: isLiveScope(e.merchantId),
    data: e.data,
  };
}
