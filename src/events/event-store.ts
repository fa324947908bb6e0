import { createHash } from 'node:crypto';
import { Schema, mongo, type Connection, type Model } from 'mongoose';
import { toPublicEvent, type EventType, type PublicEvent, type StoredEvent } from './catalogue';
import { ReadChains, type AppendOptions, type ChainEntry } from '../persistence/read-chains';
import { backfillOnce } from '../persistence/backfill-once';

// The durable event record (the outbox) and its capped mirror, the feed that API processes tail
// to push events over WebSocket. Events are written here before anyone is told of them.
//
// An event's id follows from its emission key and is its `_id`: recording is one insert (a retry
// meets its own duplicate and reads it back by `_id`), and a delivery reads the event by `_id`,
// the only filter FerretDB 1.24's SQLite backend pushes down.
//
// Lists read a read model keyed by `_id` (src/persistence/read-chains.ts): each event is appended to
// its merchant's chain `m|` (the order webhook dispatchers deliver in and WebSocket clients resume
// from); a page is the positions below its cursor, each read by `_id`, so a list costs the same
// however many events this or any other merchant has. A type or reference filter walks `m|` with a
// read budget (docs/decisions/events/one-event-chain.md); the `t|` and `r|` chains events were also
// appended to before are still read by the cursors issued on them. Newest first means most recently appended first (appends follow
// `createdAt` closely, not exactly: a time window is checked per entry). Events stored before the chains
// existed are appended once by init() (a one-time scan; docs/events.md).

/**
 * `position`: the event's place in its merchant's chain, kept on the record instead of a position
 * document (absent on events recorded before; a relisted event's position document wins).
 */
type EventDoc = StoredEvent & { _id: string; position?: number };

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
    position: { type: Number },
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
  /** Where a previous page stopped: a position in the chain the filters select. */
  before?: number;
  /** `before` is a position in the type or reference chain (a cursor issued before `m|` alone). */
  legacyChain?: boolean;
  /** A cursor issued before the chains: continue below this (createdAt, id). */
  after?: { createdAt: Date; id: string };
  limit: number;
}

export interface EventPage {
  events: StoredEvent[];
  /** Each event's position in the chain read (a cursor continues below one). */
  positions: number[];
  /** Where the walk stopped with the page not full (its budget spent), or null. */
  next: number | null;
}

const EVENT_CHAINS = 'event_chains';
/** Positions read at most for one filtered page; past it the page is short and its cursor goes on. */
const PAGE_BUDGET = 2_000;

/**
 * The chain a filtered query read before events went to `m|` alone (reference, then type, then
 * all): cursors issued then still continue on it, where every event below them is.
 */
export function eventStreamOf(merchantId: string, q: { type?: EventType; reference?: string }): string {
  if (q.reference !== undefined) return `r|${merchantId}|${q.reference}`;
  if (q.type !== undefined) return `t|${merchantId}|${q.type}`;
  return `m|${merchantId}`;
}

/** `evt_` and 24 hex digits like every id, the same for every retry of one emission. */
export function eventIdOf(emissionKey: string): string {
  return `evt_${createHash('sha256').update(emissionKey).digest('hex').slice(0, 24)}`;
}

/** A fresh event and its position in its merchant's chain, as recorded in this process. */
export type RecordedListener = (event: StoredEvent, position: number) => void;
const recordedListeners = new Set<RecordedListener>();

/** Told of each event this process records (webhook dispatchers wake on it): in-process, best effort. */
export function onEventRecorded(listener: RecordedListener): () => void {
  recordedListeners.add(listener);
  return () => recordedListeners.delete(listener);
}

// The last createdAt given per subject in this process (bounded): see record().
const lastCreatedAt = new Map<string, number>();
const LAST_CREATED_AT_KEPT = 10_000;

export class EventStore {
  private readonly chains: ReadChains<StoredEvent>;

  constructor(
    private readonly model: Model<EventDoc>,
    private readonly conn: Connection,
  ) {
    this.chains = new ReadChains<StoredEvent>(conn, EVENT_CHAINS);
  }

  static on(conn: Connection): EventStore {
    const model =
      (conn.models.Event as Model<EventDoc> | undefined) ?? conn.model<EventDoc>('Event', eventSchema);
    return new EventStore(model, conn);
  }

  /** The store's connection (the webhook outbox keeps its cursors and tails the feed on it). */
  get connection(): Connection {
    return this.conn;
  }

  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.chains.init()]);
    try {
      await this.conn.db!.createCollection(FEED_COLLECTION, { capped: true, size: FEED_SIZE });
    } catch (err) {
      if ((err as { code?: number }).code !== 48) throw err; // NamespaceExists: another process made it
    }
    await this.backfill();
  }

  /**
   * Appends the events stored before the chains existed, oldest first, once per database (a marker
   * document says it was done). Idempotent: processes starting together append each event once.
   */
  private async backfill(): Promise<void> {
    await backfillOnce(this.conn.db!, EVENT_CHAINS, async () => {
      const cursor = this.model
        .find({}, { _id: 0 })
        .sort({ createdAt: 1, id: 1 })
        .lean<StoredEvent[]>()
        .cursor();
      for await (const event of cursor) await this.index(event);
    });
  }

  /** Appends to the merchant's chain (idempotent: an activity retry is harmless); answers the position. */
  private async index(event: StoredEvent, opts: AppendOptions = {}): Promise<number> {
    return this.chains.append(
      eventStreamOf(event.merchantId, {}),
      event.id,
      new Date(event.createdAt),
      event,
      opts,
    );
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
    // The merchant's chain first, then the record carrying its position (no position document):
    // the chain's unique (stream, member) index appends each event once, and a retry takes the
    // entry an earlier attempt appended, as it was first recorded. Both before the feed: a
    // WebSocket client resuming from this event finds its position.
    const appended = await this.chains.appendUnlisted(
      eventStreamOf(event.merchantId, {}),
      id,
      new Date(event.createdAt),
      event,
    );
    const position = appended.seq;
    event = appended.doc;
    try {
      await this.model.create({ _id: id, ...event, position });
      lastCreatedAt.delete(input.subjectId);
      lastCreatedAt.set(input.subjectId, createdAt.getTime());
      if (lastCreatedAt.size > LAST_CREATED_AT_KEPT) lastCreatedAt.delete(lastCreatedAt.keys().next().value!);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      // Recorded before (an activity retry): the stored event, as it was first recorded.
      event = await this.model.findOne({ _id: id }, { _id: 0, position: 0 }).lean<StoredEvent>().exec();
      if (!event) throw err;
    }
    await this.publish(event);
    for (const listener of recordedListeners) listener(event, position);
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
    const event = await this.model.findOne({ _id: id }, { _id: 0, position: 0 }).lean<StoredEvent>().exec();
    return event?.merchantId === merchantId ? event : null;
  }

  /**
   * Newest first (in append order), from the chain the filters select; a filter the chain does not
   * carry (the type within a reference, the time bounds) is checked on each entry read. The walk
   * starts at the cursor or the head and stops where every entry left is older than `from` (each
   * entry's `max`): positions do not follow `createdAt` (writers take it before they append, the
   * backfill appends old events after new ones), so neither bound may cut the walk by position.
   */
  async list(merchantId: string, q: EventQuery): Promise<EventPage> {
    const stream = eventStreamOf(merchantId, q.legacyChain ? q : {});
    const time = (e: ChainEntry<StoredEvent>) => new Date(e.at).getTime();
    const after = q.after;
    const page = await this.chains.walkDown(stream, {
      ...(q.before !== undefined ? { before: q.before } : {}),
      limit: q.limit,
      budget: PAGE_BUDGET,
      keep: (e) =>
        (!q.type || e.doc.type === q.type) &&
        (q.reference === undefined || e.doc.reference === q.reference) &&
        (!q.to || time(e) < q.to.getTime()) &&
        (!q.from || time(e) >= q.from.getTime()) &&
        (!after ||
          time(e) < after.createdAt.getTime() ||
          (time(e) === after.createdAt.getTime() && e.member < after.id)),
      ...(q.from ? { stopBelow: q.from } : {}),
    });
    return {
      events: page.entries.map((e) => e.doc),
      positions: page.entries.map((e) => e.seq),
      next: page.entries.length < q.limit ? page.next : null,
    };
  }

  /** The entry at `position` of the merchant's chain (a tombstone included), or null: one `_id` read. */
  async outboxAt(merchantId: string, position: number): Promise<ChainEntry<StoredEvent> | null> {
    return this.chains.at(eventStreamOf(merchantId, {}), position);
  }

  /**
   * A position of the merchant's chain found missing below its head (a webhook drain past its grace):
   * noted for the recovery sweep, which lists the lost event again at the head (repairChainHoles).
   */
  async noteOutboxHole(merchantId: string, position: number): Promise<void> {
    await this.chains.noteHole(eventStreamOf(merchantId, {}), position);
  }

  /** The last position of the merchant's chain (0: none yet). */
  async outboxHead(merchantId: string): Promise<number> {
    return this.chains.head(eventStreamOf(merchantId, {}));
  }

  /** Closes the holes readers found in the event chains (the recovery sweep): from the events themselves. */
  async repairChainHoles(limit?: number) {
    return this.chains.repairHoles(
      async (_stream, id) => {
        const event = await this.model
          .findOne({ _id: id }, { _id: 0, position: 0 })
          .lean<StoredEvent>()
          .exec();
        return event ? { at: new Date(event.createdAt), doc: event } : null;
      },
      limit,
      // An event that keeps its position on its record: a scan, off the usual path (the sweep).
      async (stream, seq) => {
        if (!stream.startsWith('m|')) return null;
        const doc = await this.model
          .findOne({ merchantId: stream.slice(2), position: seq }, { _id: 1 })
          .lean<{ _id: string }>()
          .exec();
        return doc?._id ?? null;
      },
    );
  }

  /**
   * The merchant's events appended after `last`, oldest first: what a reconnecting client missed.
   * Its position is one `_id` read; the events after it, one each.
   */
  async since(merchantId: string, last: StoredEvent, limit: number): Promise<StoredEvent[]> {
    const stream = eventStreamOf(merchantId, {});
    // A position document (an event recorded before positions were kept on the record, or listed
    // again by the sweep) wins over the record's own.
    const [listed, own] = await Promise.all([
      this.chains.position(stream, last.id),
      this.model.findOne({ _id: last.id }, { position: 1 }).lean<{ position?: number }>().exec(),
    ]);
    let position = listed ?? own?.position ?? null;
    // Not appended yet (recorded, its process died before the chains): it goes in now, in place.
    if (position === null)
      position = await this.chains.append(stream, last.id, new Date(last.createdAt), last);
    return (await this.chains.after(stream, position, limit)).map((e) => e.doc);
  }
}
