import { createHash } from 'node:crypto';
import { Schema, mongo, type Connection, type Model } from 'mongoose';
import { toPublicEvent, type EventType, type PublicEvent, type StoredEvent } from './catalogue';

// The durable event record (the outbox) and its capped mirror, the feed that API processes tail
// to push events over WebSocket. Events are written here before anyone is told of them.
//
// An event's id follows from its emission key and is its `_id`: recording is one insert (a retry
// meets its own duplicate and reads it back by `_id`), and a delivery reads the event by `_id`,
// the only filter FerretDB 1.24's SQLite backend pushes down.

type EventDoc = StoredEvent & { _id: string };

const eventSchema = new Schema<EventDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    type: { type: String, required: true },
    subjectId: { type: String, required: true },
    reference: { type: String, required: true },
    emissionKey: { type: String, required: true, unique: true },
    createdAt: { type: Date, required: true },
    data: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false, minimize: false },
);
eventSchema.index({ merchantId: 1, createdAt: -1, id: -1 });
eventSchema.index({ merchantId: 1, reference: 1, createdAt: -1 });
eventSchema.index({ subjectId: 1, createdAt: -1 });

export const FEED_COLLECTION = 'event_feed';
/** Bytes kept in the feed; older entries roll off (resumption then reads the event record). */
const FEED_SIZE = 64 * 1024 * 1024;

export interface FeedEntry {
  _id: string;
  merchantId: string;
  reference: string;
  at: Date;
  event: PublicEvent;
}

export interface RecordEventInput {
  merchantId: string;
  type: EventType;
  subjectId: string;
  reference: string;
  data: Record<string, unknown>;
  /** Unique per emission; the default is subject, type and status, which a workflow emits once. */
  emissionKey?: string;
}

export interface EventQuery {
  type?: EventType;
  reference?: string;
  from?: Date;
  to?: Date;
  /** Position after which to continue, from a previous page. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** `evt_` and 24 hex digits like every id, the same for every retry of one emission. */
export function eventIdOf(emissionKey: string): string {
  return `evt_${createHash('sha256').update(emissionKey).digest('hex').slice(0, 24)}`;
}

// The last createdAt given per subject in this process (bounded): see record().
const lastCreatedAt = new Map<string, number>();
const LAST_CREATED_AT_KEPT = 10_000;

export class EventStore {
  constructor(
    private readonly model: Model<EventDoc>,
    private readonly conn: Connection,
  ) {}

  static on(conn: Connection): EventStore {
    const model =
      (conn.models.Event as Model<EventDoc> | undefined) ?? conn.model<EventDoc>('Event', eventSchema);
    return new EventStore(model, conn);
  }

  async init(): Promise<void> {
    await this.model.init();
    try {
      await this.conn.db!.createCollection(FEED_COLLECTION, { capped: true, size: FEED_SIZE });
    } catch (err) {
      if ((err as { code?: number }).code !== 48) throw err; // NamespaceExists: another process made it
    }
  }

  /** Records once per emission key (a retry answers the stored event), then mirrors it to the feed. */
  async record(input: RecordEventInput): Promise<StoredEvent> {
    const emissionKey =
      input.emissionKey ??
      `${input.subjectId}:${input.type}:${typeof input.data.status === 'string' ? input.data.status : ''}`;
    const id = eventIdOf(emissionKey);
    // A subject's events are emitted one after the other by its workflow, each at least an activity
    // apart; a createdAt strictly after the subject's previous one in this process keeps them in
    // order even within one millisecond (across processes, the clocks do).
    const previous = lastCreatedAt.get(input.subjectId);
    const createdAt = new Date(Math.max(Date.now(), previous === undefined ? 0 : previous + 1));
    let event: StoredEvent | null = {
      id,
      merchantId: input.merchantId,
      type: input.type,
      subjectId: input.subjectId,
      reference: input.reference,
      emissionKey,
      createdAt,
      data: input.data,
    };
    try {
      await this.model.create({ _id: id, ...event });
      lastCreatedAt.delete(input.subjectId);
      lastCreatedAt.set(input.subjectId, createdAt.getTime());
      if (lastCreatedAt.size > LAST_CREATED_AT_KEPT) lastCreatedAt.delete(lastCreatedAt.keys().next().value!);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      // Recorded before (an activity retry): the stored event, as it was first recorded.
      event = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredEvent>().exec();
      if (!event) throw err;
    }
    await this.publish(event);
    return event;
  }

  /** Mirrors to the feed; the event id is the feed's _id, so mirroring twice is refused. */
  private async publish(event: StoredEvent): Promise<void> {
    const entry: FeedEntry = {
      _id: event.id,
      merchantId: event.merchantId,
      reference: event.reference,
      at: new Date(),
      event: toPublicEvent(event),
    };
    try {
      await this.conn.db!.collection<FeedEntry>(FEED_COLLECTION).insertOne(entry);
    } catch (err) {
      if (!(err instanceof mongo.MongoServerError && err.code === 11000)) throw err;
    }
  }

  async findById(merchantId: string, id: string): Promise<StoredEvent | null> {
    const event = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredEvent>().exec();
    return event?.merchantId === merchantId ? event : null;
  }

  /** Newest first, paged by (createdAt, id). */
  async list(merchantId: string, q: EventQuery): Promise<StoredEvent[]> {
    const filter: Record<string, unknown> = { merchantId };
    if (q.type) filter.type = q.type;
    if (q.reference) filter.reference = q.reference;
    if (q.from || q.to)
      filter.createdAt = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) };
    if (q.after)
      filter.$or = [
        { createdAt: { $lt: q.after.createdAt } },
        { createdAt: q.after.createdAt, id: { $lt: q.after.id } },
      ];
    return this.model
      .find(filter, { _id: 0 })
      .sort({ createdAt: -1, id: -1 })
      .limit(q.limit)
      .lean<StoredEvent[]>()
      .exec();
  }

  /** The merchant's events recorded after `last`, oldest first: what a reconnecting client missed. */
  async since(merchantId: string, last: StoredEvent, limit: number): Promise<StoredEvent[]> {
    return this.model
      .find(
        {
          merchantId,
          $or: [{ createdAt: { $gt: last.createdAt } }, { createdAt: last.createdAt, id: { $gt: last.id } }],
        },
        { _id: 0 },
      )
      .sort({ createdAt: 1, id: 1 })
      .limit(limit)
      .lean<StoredEvent[]>()
      .exec();
  }
}
