import { Schema, type Connection, type Model } from 'mongoose';
import type { EventType } from '../events/catalogue';
import { ReadChains } from '../persistence/read-chains';
import { backfillOnce } from '../persistence/backfill-once';

// Every delivery attempt, successful or not: what GET /v1/webhooks/{id}/deliveries lists. Stored
// under `_id` = `<deliveryId>:<attempt>`, so an activity finds its own attempt by `_id` alone (the
// only filter FerretDB 1.24's SQLite backend pushes down) and logs it at most once.
//
// The listing is a read chain per endpoint (src/persistence/read-chains.ts): attempts numbered
// 1, 2, 3… in the order they were logged, each under its own `_id`, so a page is `limit` `_id`
// reads below its cursor however large the log grows (a filter on the log itself would decode the
// whole collection on FerretDB).

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

/** `listed`: appended to its endpoint's chain (absent on attempts logged before chains existed). */
type AttemptDoc = DeliveryAttempt & { _id: string; listed?: boolean };

/**
 * That an event reached an endpoint (an attempt answered 2xx), under `_id` = `<eventId>:<endpointId>`:
 * what GET /v1/events?delivered=false and replays of failed events ask, one `_id` read each.
 */
type OutcomeDoc = {
  _id: string;
  deliveredAt: Date;
  /**
   * The dispatcher's attempt that delivered it and its position in the endpoint's chain: that
   * attempt has no position document (findOf reads it from here). Absent on other outcomes.
   */
  attempt?: number;
  seq?: number;
};
const OUTCOMES = 'webhook_delivered';
const outcomeId = (eventId: string, endpointId: string) => `${eventId}:${endpointId}`;

/** Most chain positions one listing with an `eventId` filter reads; its cursor goes on from there. */
const FILTERED_READ_BUDGET = 500;

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
    listed: { type: Boolean },
  },
  { versionKey: false, minimize: false },
);
// One log line per attempt, even if the activity that made it is retried.
attemptSchema.index({ deliveryId: 1, attempt: 1 }, { unique: true });
// For operators' queries (MongoDB); the API lists through the chain.
attemptSchema.index({ merchantId: 1, endpointId: 1, attemptedAt: -1 });

export class DeliveryLog {
  constructor(
    private readonly model: Model<AttemptDoc>,
    private readonly chains: ReadChains<DeliveryAttempt>,
    private readonly conn: Connection,
  ) {}

  static on(conn: Connection): DeliveryLog {
    return new DeliveryLog(
      (conn.models.WebhookDeliveryAttempt as Model<AttemptDoc> | undefined) ??
        conn.model<AttemptDoc>('WebhookDeliveryAttempt', attemptSchema),
      new ReadChains<DeliveryAttempt>(conn, 'webhook_delivery_chain'),
      conn,
    );
  }

  private get outcomes() {
    return this.conn.db!.collection<OutcomeDoc>(OUTCOMES);
  }

  async init(): Promise<void> {
    await this.model.init();
    await this.chains.init();
    await this.listUnlisted();
    await this.backfillOutcomes();
  }

  /**
   * Once per database (a marker says so): the outcomes of attempts logged before outcomes existed,
   * so events delivered before the upgrade are not listed as undelivered.
   */
  private async backfillOutcomes(): Promise<void> {
    await backfillOnce(this.conn.db!, OUTCOMES, async () => {
      const cursor = this.model.find({ succeeded: true }).lean<AttemptDoc[]>().cursor();
      for await (const a of cursor)
        await this.markDelivered(a.eventId, a.endpointId, new Date(a.attemptedAt));
    });
  }

  /** Records the outcome once; answers false when it was recorded before (the first one stays). */
  private async markDelivered(
    eventId: string,
    endpointId: string,
    at: Date,
    listed?: { attempt: number; seq: number },
  ): Promise<boolean> {
    try {
      await this.outcomes.insertOne({ _id: outcomeId(eventId, endpointId), deliveredAt: at, ...listed });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      return false;
    }
  }

  /** Whether the event reached the endpoint at least once. */
  async delivered(eventId: string, endpointId: string): Promise<boolean> {
    return (await this.outcomes.findOne({ _id: outcomeId(eventId, endpointId) })) !== null;
  }

  /**
   * Migration at start: appends the attempts logged before chains existed to their endpoint's
   * chain, oldest first, then marks them. Appending is idempotent (one position per attempt), so
   * processes starting together do no harm. Attempts logged meanwhile by new code come first in the
   * chain: the order is off only for the few logged during the upgrade.
   */
  async listUnlisted(): Promise<number> {
    const legacy = await this.model
      .find({ listed: { $exists: false } })
      .sort({ attemptedAt: 1 })
      .lean<AttemptDoc[]>()
      .exec();
    for (const { _id, listed: _listed, ...a } of legacy) {
      await this.chains.append(a.endpointId, _id, new Date(a.attemptedAt), a);
      await this.model.updateOne({ _id }, { $set: { listed: true } }).exec();
    }
    return legacy.length;
  }

  /**
   * An attempt wherever it was logged: its document (a delivery workflow's, a redelivery's), else its
   * endpoint's chain entry (a dispatcher's attempt has no document). Three `_id` reads at most.
   */
  async findOf(
    endpointId: string,
    deliveryId: string,
    attempt: number,
    eventId?: string,
  ): Promise<DeliveryAttempt | null> {
    const logged = await this.find(deliveryId, attempt);
    if (logged) return logged;
    const _id = attemptId(deliveryId, attempt);
    let seq = await this.chains.position(endpointId, _id);
    // A dispatcher's successful attempt keeps its position in the event's outcome instead.
    if (seq === null && eventId !== undefined) {
      const outcome = await this.outcomes.findOne({ _id: outcomeId(eventId, endpointId) });
      if (outcome?.attempt === attempt && outcome.seq !== undefined) seq = outcome.seq;
    }
    if (seq === null) return null;
    const entry = await this.chains.at(endpointId, seq);
    return entry && !entry.hole && entry.member === _id ? entry.doc : null;
  }

  async find(deliveryId: string, attempt: number): Promise<DeliveryAttempt | null> {
    return this.model
      .findOne({ _id: attemptId(deliveryId, attempt) }, { _id: 0, listed: 0 })
      .lean<DeliveryAttempt>()
      .exec();
  }

  /**
   * Records once; a second record of the same attempt keeps the first. The attempt is then put in
   * its endpoint's listing: idempotent too, so a retry after a crash between the two completes it.
   */
  async record(a: DeliveryAttempt): Promise<void> {
    const _id = attemptId(a.deliveryId, a.attempt);
    let logged = a;
    try {
      await this.model.create({ _id, ...a, listed: true });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      logged = (await this.find(a.deliveryId, a.attempt)) ?? a;
    }
    await this.chains.append(logged.endpointId, _id, new Date(logged.attemptedAt), logged);
    if (logged.succeeded)
      await this.markDelivered(logged.eventId, logged.endpointId, new Date(logged.attemptedAt));
  }

  /**
   * An attempt of an endpoint's dispatcher (src/webhooks/outbox.ts): its chain entry is its log line,
   * with no attempt document beside it (the listing, the health and the filters read the chain
   * only). Appended once per attempt id: a repeat is refused by the chain's unique member, then read.
   */
  async recordListed(a: DeliveryAttempt): Promise<void> {
    const _id = attemptId(a.deliveryId, a.attempt);
    const at = new Date(a.attemptedAt);
    if (!a.succeeded) {
      await this.chains.append(a.endpointId, _id, at, a, { fresh: true });
      return;
    }
    // Delivered: the event's outcome (written anyway) keeps the attempt's position, one write fewer
    // than a position document. An outcome recorded before (another delivery got there first)
    // keeps its own, so this attempt's position gets its document after all.
    const seq = await this.chains.append(a.endpointId, _id, at, a, { fresh: true, position: false });
    if (!(await this.markDelivered(a.eventId, a.endpointId, at, { attempt: a.attempt, seq })))
      await this.chains.keepPosition(a.endpointId, _id, seq);
  }

  /**
   * Newest first, from the endpoint's chain: positions below `before` (a cursor), each an `_id`
   * read. With `eventId`, at most FILTERED_READ_BUDGET positions are read for one page, which may
   * then be short; `next` continues below the last position read (null: nothing older).
   */
  async list(
    merchantId: string,
    endpointId: string,
    q: { eventId?: string; before?: number; limit: number },
  ): Promise<{ attempts: DeliveryAttempt[]; next: number | null }> {
    const walked = await this.chains.walkDown(endpointId, {
      ...(q.before !== undefined ? { before: q.before } : {}),
      keep: (e) => e.doc.merchantId === merchantId && (!q.eventId || e.doc.eventId === q.eventId),
      limit: q.limit,
      budget: q.eventId ? FILTERED_READ_BUDGET : q.limit,
    });
    return { attempts: walked.entries.map((e) => e.doc), next: walked.next };
  }

  /**
   * The endpoint's attempts since `since`, newest first, at most `budget` (an `_id` read each): what
   * its health is computed from. `complete` is false when the budget cut the period short.
   */
  async recent(
    merchantId: string,
    endpointId: string,
    since: Date,
    budget: number,
  ): Promise<{ attempts: DeliveryAttempt[]; complete: boolean }> {
    const walked = await this.chains.walkDown(endpointId, {
      keep: (e) => e.doc.merchantId === merchantId,
      stop: (e) => new Date(e.doc.attemptedAt).getTime() < since.getTime(),
      limit: budget,
      budget,
    });
    return { attempts: walked.entries.map((e) => e.doc), complete: walked.next === null };
  }
}
