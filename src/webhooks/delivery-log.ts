import { Schema, type Connection, type Model } from 'mongoose';
import type { EventType } from '../events/catalogue';

// Every delivery attempt, successful or not: what GET /v1/webhooks/{id}/deliveries lists. Stored
// under `_id` = `<deliveryId>:<attempt>`, so an activity finds its own attempt by `_id` alone (the
// only filter FerretDB 1.24's SQLite backend pushes down) and logs it at most once.

export interface DeliveryAttempt {
  /** The delivery (one workflow) this attempt belongs to. */
  deliveryId: string;
  attempt: number;
  merchantId: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  trigger: 'event' | 'redelivery';
  url: string;
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  retryAfterMs: number | null;
}

type AttemptDoc = DeliveryAttempt & { _id: string };

const ipLike = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\[?[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}\]?(?::\d+)?/gi;

/**
 * An attempt's error as the merchant sees it. Attempts logged before errors became fixed reasons
 * (src/webhooks/sender.ts) may hold a socket message naming the address a name resolved to: those
 * read as the same fixed reasons, and any address left is masked.
 */
export function publicAttemptError(error: string | null): string | null {
  if (error === null) return null;
  if (/not an allowed destination/.test(error)) return 'the address is not public';
  if (/ECONNREFUSED/.test(error)) return 'connection refused';
  return error.replace(ipLike, '[address]');
}
const attemptId = (deliveryId: string, attempt: number) => `${deliveryId}:${attempt}`;

const attemptSchema = new Schema<AttemptDoc>(
  {
    _id: { type: String, required: true },
    deliveryId: { type: String, required: true },
    attempt: { type: Number, required: true },
    merchantId: { type: String, required: true },
    endpointId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    trigger: { type: String, required: true },
    url: { type: String, required: true },
    attemptedAt: { type: Date, required: true },
    succeeded: { type: Boolean, required: true },
    statusCode: { type: Number, default: null },
    latencyMs: { type: Number, required: true },
    error: { type: String, default: null },
    retryAfterMs: { type: Number, default: null },
  },
  { versionKey: false, minimize: false },
);
// One log line per attempt, even if the activity that made it is retried.
attemptSchema.index({ deliveryId: 1, attempt: 1 }, { unique: true });
attemptSchema.index({ merchantId: 1, endpointId: 1, attemptedAt: -1 });

export class DeliveryLog {
  constructor(private readonly model: Model<AttemptDoc>) {}

  static on(conn: Connection): DeliveryLog {
    return new DeliveryLog(
      (conn.models.WebhookDeliveryAttempt as Model<AttemptDoc> | undefined) ??
        conn.model<AttemptDoc>('WebhookDeliveryAttempt', attemptSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async find(deliveryId: string, attempt: number): Promise<DeliveryAttempt | null> {
    return this.model
      .findOne({ _id: attemptId(deliveryId, attempt) }, { _id: 0 })
      .lean<DeliveryAttempt>()
      .exec();
  }

  /** Records once; a second record of the same attempt keeps the first. */
  async record(a: DeliveryAttempt): Promise<void> {
    try {
      await this.model.create({ _id: attemptId(a.deliveryId, a.attempt), ...a });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }

  /** Newest first, paged by (attemptedAt, deliveryId, attempt). */
  async list(
    merchantId: string,
    endpointId: string,
    q: {
      eventId?: string;
      after?: Pick<DeliveryAttempt, 'attemptedAt' | 'deliveryId' | 'attempt'>;
      limit: number;
    },
  ): Promise<DeliveryAttempt[]> {
    const filter: Record<string, unknown> = { merchantId, endpointId };
    if (q.eventId) filter.eventId = q.eventId;
    if (q.after) {
      const { attemptedAt, deliveryId, attempt } = q.after;
      filter.$or = [
        { attemptedAt: { $lt: attemptedAt } },
        { attemptedAt, deliveryId: { $lt: deliveryId } },
        { attemptedAt, deliveryId, attempt: { $lt: attempt } },
      ];
    }
    return this.model
      .find(filter, { _id: 0 })
      .sort({ attemptedAt: -1, deliveryId: -1, attempt: -1 })
      .limit(q.limit)
      .lean<DeliveryAttempt[]>()
      .exec();
  }
}
