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
] as const;
export type EventType = (typeof eventTypes)[number];
export const eventType = z.enum(eventTypes);

/** What kind of resource an event is about; `data` is that resource's public record. */
export type EventSubjectKind = 'payin' | 'payout' | 'refund' | 'payout.batch' | 'statement';

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
