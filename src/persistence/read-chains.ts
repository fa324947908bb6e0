import { Schema, type Connection, type Model, type mongo } from 'mongoose';
import { Counter } from 'prom-client';
import { metricsRegistry } from '../infra/metrics';
import { backfillOnce } from './backfill-once';
import { AppendAtHead, chainKey, duplicateKey, type HintDoc, type Position } from './append-at-head';

// Read models for ordered lists, read by `_id` alone. FerretDB 1.24's SQLite backend pushes down
// one filter only, an exact `{ _id: <string> }`: `_id` ranges, `$in`, sorts and limits after a
// filter all decode the whole collection (internal/backends/sqlite/collection.go). So a list is a
// chain: each stream (e.g. one merchant's events) numbers its members 1, 2, 3... with no gap, each
// stored under `_id` = `<stream>:<seq>`; a page is the positions below a cursor, each read by `_id`.
//
// Appending is the ledger's scheme, one implementation (src/persistence/append-at-head.ts): insert at
// head+1; of two writers racing for a position one wins, the other moves on. A unique (stream,
// member) index makes an append idempotent (an activity retry appends nothing twice), and a position
// document `[stream, member]` -> seq finds a member's place by `_id` (a WebSocket resume). The head
// comes from this process's memory or a best-effort hint (`<name>_heads`), then is probed forward by
// `_id`.
//
// Positions are in append order, which is not the members' time order: a writer takes its member's
// time before it appends (two workers race by milliseconds), a session payin joins its provider's
// list at confirmation, a retry after a crash or the backfill appends old members after new ones.
// So each entry also carries `max`, the latest `at` of every position up to and including its own
// (computed from the position below when appending, which always exists then). A walk for members
// at or after `from` stops at the first entry whose `max` is below `from`: everything at or below
// it is older, by construction, whatever the lateness. `to` is checked on each entry.
//
// A position missing below the head (an insert acknowledged then lost, or a future retention) is a
// hole: readers skip it, count it and note it in `<name>_holes`; repairHoles() (the recovery sweep)
// appends the lost member again at the head from its source record and marks the hole with a
// tombstone entry that readers skip.

export interface AppendOptions {
  /**
   * The member was created by this very call's caller (its own unique insert just succeeded), so no
   * earlier attempt can have appended it: its position need not be looked up first.
   */
  fresh?: boolean;
  /**
   * False: no position document for this member (a `fresh` one only); the caller keeps its position
   * where it looks it up (e.g. the webhook delivery log's outcome of a successful attempt).
   */
  position?: boolean;
}

export interface ChainEntry<T> {
  _id: string;
  stream: string;
  seq: number;
  member: string;
  /** When the member happened: positions are in append order, which need not follow it. */
  at: Date;
  /** The latest `at` of positions 1..seq; absent on entries appended before it existed. */
  max?: Date;
  /** A tombstone for a lost entry (repairHoles): readers skip it. */
  hole?: true;
  doc: T;
}

interface HeadDoc {
  _id: string;
  seq: number;
}
interface PositionDoc {
  _id: string;
  seq: number;
}
interface HoleDoc {
  _id: string;
  stream: string;
  seq: number;
  foundAt: Date;
}

export { chainKey };
const positionKey = (stream: string, member: string): string => JSON.stringify([stream, member]);
const ms = (d: Date | string | number): number => new Date(d).getTime();

/** Parallel `_id` reads per round trip while walking a chain. */
const BATCH = 25;
const MAX_APPEND_ATTEMPTS = 1_000;
/** Positions read down at most to find the `max` below an append (entries from before `max`). */
const MAX_READS_FOR_MAX = 1_000;

export const readChainHoles = new Counter({
  name: 'payments_read_chain_holes_total',
  help: 'Positions found missing below a read chain head (a lost entry), skipped by readers, by chain',
  labelNames: ['chain'] as const,
  registers: [metricsRegistry],
});

export const readChainHoleRepairs = new Counter({
  name: 'payments_read_chain_hole_repairs_total',
  help: 'Read chain holes the recovery sweep closed, by chain and outcome (reappended: the member is listed again; marked: nothing to list)',
  labelNames: ['chain', 'outcome'] as const,
  registers: [metricsRegistry],
});

const entrySchema = new Schema(
  {
    _id: { type: String, required: true },
    stream: { type: String, required: true },
    seq: { type: Number, required: true },
    member: { type: String, required: true },
    at: { type: Date, required: true },
    max: { type: Date },
    hole: { type: Boolean },
    doc: { type: Schema.Types.Mixed },
  },
  { versionKey: false, minimize: false },
);
// One place per member and stream, whatever the retries: what makes an append idempotent.
entrySchema.index({ stream: 1, member: 1 }, { unique: true });
const headSchema = new Schema({ _id: String, seq: Number }, { versionKey: false });
const positionSchema = new Schema({ _id: String, seq: Number }, { versionKey: false });
const holeSchema = new Schema(
  { _id: String, stream: String, seq: Number, foundAt: Date },
  { versionKey: false },
);

function bind<T>(conn: Connection, name: string, schema: Schema, collection: string): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema as Schema<T>, collection);
}

export interface WalkOptions<T> {
  /** Walk positions below this one (a page cursor); from the head when absent. */
  before?: number;
  /** Keeps only entries that pass. */
  keep?: (e: ChainEntry<T>) => boolean;
  /** Stops at the first entry for which this holds (a bound that positions only roughly follow). */
  stop?: (e: ChainEntry<T>) => boolean;
  /**
   * Stops where every entry left is older than this (its `max` is below it): exact, however late
   * members were appended.
   */
  stopBelow?: Date;
  limit: number;
  /** Most positions read for one page, kept or not; the page may then be short (its cursor goes on). */
  budget?: number;
}

export interface WalkResult<T> {
  entries: ChainEntry<T>[];
  /** The position to continue below, or null when the chain (or the walk) is done. */
  next: number | null;
}

/** A lost member's time and document, from its source record (null: nothing to list any more). */
export type Restore<T> = (stream: string, member: string) => Promise<{ at: Date; doc: T } | null>;

export interface HoleRepairResult {
  /** Holes examined. */
  holes: number;
  reappended: number;
  marked: number;
}

/** What this process knows of a stream's head: its position and, when read, its `max`. */
interface Tip extends Position {
  /** ms; undefined: not known here (read it before appending above). */
  max?: number | undefined;
}

export class ReadChains<T> {
  // Untyped documents: `doc` is whatever the caller stores.
  private readonly entries: Model<ChainEntry<unknown>>;
  private readonly heads: Model<HeadDoc>;
  private readonly positions: Model<PositionDoc>;
  private readonly holes: Model<HoleDoc>;
  /** Every ReadChains of one connection and name shares its memory of heads and its queues. */
  private readonly chain: AppendAtHead<Tip, ChainEntry<unknown>>;

  /**
   * `name` is the entries' collection; `<name>_heads`, `<name>_positions` and `<name>_holes` go with it.
   * `positions: false` skips the position documents (one write per append) for chains nobody looks
   * members up in (position(), since(), repairHoles() reappending): their appends must be `fresh`.
   */
  constructor(
    conn: Connection,
    private readonly name: string,
    private readonly options: { positions?: boolean } = {},
  ) {
    this.entries = bind(conn, `Chain_${name}`, entrySchema, name);
    this.heads = bind(conn, `ChainHead_${name}`, headSchema, `${name}_heads`);
    this.positions = bind(conn, `ChainPosition_${name}`, positionSchema, `${name}_positions`);
    this.holes = bind(conn, `ChainHole_${name}`, holeSchema, `${name}_holes`);
    this.chain = new AppendAtHead<Tip, ChainEntry<unknown>>(conn, {
      name,
      hints: this.heads.collection as unknown as mongo.Collection<HintDoc>,
      entryAt: (stream, seq) => this.at(stream, seq),
      headOf: (e) => ({ seq: e.seq, max: e.max !== undefined ? ms(e.max) : undefined }),
      hintOf: (tip) => ({ seq: tip.seq }),
      fromHint: (doc) => ({ seq: doc.seq }),
      richer: (known) => known.max === undefined,
      insert: async (doc) => {
        await this.entries.collection.insertOne(doc as never);
      },
    });
  }

  async init(): Promise<void> {
    await Promise.all([
      this.entries.init(),
      this.heads.init(),
      this.options.positions === false ? undefined : this.positions.init(),
      this.holes.init(),
    ]);
    await backfillOnce(this.entries.db.db!, `${this.name}:max`, () => this.fillMax());
  }

  /**
   * Gives entries appended before `max` existed theirs, stream by stream in position order (a
   * one-time scan). Idempotent: a value is a function of the positions below, never changed.
   */
  private async fillMax(): Promise<void> {
    const cursor = this.entries
      .find({}, { _id: 1, stream: 1, seq: 1, at: 1, max: 1 })
      .sort({ stream: 1, seq: 1 })
      .lean<ChainEntry<T>[]>()
      .cursor();
    let stream: string | null = null;
    let acc = Number.NEGATIVE_INFINITY;
    for await (const e of cursor) {
      if (e.stream !== stream) [stream, acc] = [e.stream, Number.NEGATIVE_INFINITY];
      acc = Math.max(acc, e.max !== undefined ? ms(e.max) : ms(e.at));
      if (e.max === undefined)
        await this.entries.updateOne({ _id: e._id }, { $set: { max: new Date(acc) } }).exec();
    }
  }

  /** The entry at `seq`, a tombstone included; null when nothing is there. */
  async at(stream: string, seq: number): Promise<ChainEntry<T> | null> {
    if (seq < 1) return null;
    return this.entries
      .findOne({ _id: chainKey(stream, seq) })
      .lean<ChainEntry<T>>()
      .exec();
  }

  /** The member's position in the stream, or null if it was never appended: one `_id` read. */
  async position(stream: string, member: string): Promise<number | null> {
    const doc = await this.positions
      .findOne({ _id: positionKey(stream, member) })
      .lean<PositionDoc>()
      .exec();
    return doc?.seq ?? null;
  }

  /** The last position (0: empty): the furthest of memory and the hint, probed forward by `_id`. */
  async head(stream: string): Promise<number> {
    return (await this.tip(stream)).seq;
  }

  /**
   * head() for a stream rarely appended to (a merchant's accounts): from this process's memory of
   * its head when it has one, probed forward by `_id` without reading the hint first (one read when
   * nothing was appended since, where head() takes two); as head() otherwise.
   */
  async headFromMemory(stream: string): Promise<number> {
    const known = this.chain.knownHead(stream);
    if (!known) return this.head(stream);
    return (await this.chain.probe(stream, known))?.seq ?? 0;
  }

  private async tip(stream: string): Promise<Tip> {
    return (await this.chain.head(stream)) ?? { seq: 0 };
  }

  /**
   * Appends `member` once: a retry, or a racing attempt of the same member, answers the position it
   * already holds. Writers of one stream in this process queue behind each other (fewer lost races).
   */
  async append(stream: string, member: string, at: Date, doc: T, opts: AppendOptions = {}): Promise<number> {
    const known = opts.fresh || this.options.positions === false ? null : await this.position(stream, member);
    if (known !== null) return known;
    return this.appendAnew(stream, member, at, doc, opts.fresh === true && opts.position === false);
  }

  /**
   * Appends `member` once without a position document: its caller keeps the position on its own
   * record (which it writes after this, so a retry finds the member by the chain's unique (stream,
   * member) index, off the usual path). Answers the position and the entry's document as stored:
   * an earlier attempt's, when there was one.
   */
  async appendUnlisted(stream: string, member: string, at: Date, doc: T): Promise<{ seq: number; doc: T }> {
    const placed = await this.chain.serialized(stream, () => this.place(stream, member, at, doc));
    if (placed.inserted) {
      if (this.chain.hintDue(placed.seq)) await this.chain.writeHint(stream, placed);
      return { seq: placed.seq, doc };
    }
    const there = await this.at(stream, placed.seq);
    return { seq: placed.seq, doc: there && !there.hole ? there.doc : doc };
  }

  private async appendAnew(
    stream: string,
    member: string,
    at: Date,
    doc: T,
    noPosition = false,
  ): Promise<number> {
    const placed = await this.chain.serialized(stream, () => this.place(stream, member, at, doc));
    // Outside the stream's queue: the next append of this process needs only its memory of the
    // head, so a burst on one stream waits for one insert each, not for three writes. The hint (one
    // append in HINT_EVERY) and the position are independent documents.
    const [seq] = await Promise.all([
      this.options.positions === false || noPosition
        ? placed.seq
        : this.writePosition(stream, member, placed.seq),
      placed.inserted && this.chain.hintDue(placed.seq) ? this.chain.writeHint(stream, placed) : undefined,
    ]);
    return seq;
  }

  /**
   * The latest `at` of positions 1..seq (-Infinity for none), or undefined when entries from before
   * `max` existed lie further down than it reads. A missing position (a hole) adds nothing: its
   * member is not listed until it is appended again, at the head.
   */
  private async maxUpTo(stream: string, seq: number): Promise<number | undefined> {
    let acc = Number.NEGATIVE_INFINITY;
    let q = seq;
    let read = 0;
    while (q >= 1) {
      const n = Math.min(BATCH, q);
      const batch = await Promise.all(Array.from({ length: n }, (_, k) => this.at(stream, q - k)));
      for (const e of batch) {
        if (e?.max !== undefined) return Math.max(acc, ms(e.max));
        if (e) acc = Math.max(acc, ms(e.at));
      }
      q -= n;
      read += n;
      if (read >= MAX_READS_FOR_MAX && q >= 1) return undefined;
    }
    return acc;
  }

  /** The member's entry at the head (or the one an earlier attempt wrote); no position written yet. */
  private async place(
    stream: string,
    member: string,
    at: Date,
    doc: T,
  ): Promise<{ seq: number; inserted: boolean }> {
    // From the head this process last saw, without probing: if another process appended since, the
    // insert fails and the loop moves on, one `_id` read per position it learns of.
    const from = this.chain.knownHead(stream) ?? (await this.tip(stream));
    const placed = await this.chain.append<number>(
      stream,
      from.seq > 0 ? from : null,
      {
        attempt: async (below, seq) => {
          // The position below always exists when appending above it (a writer learns of a position
          // by inserting or reading it), so its `max` is known, from memory or one read.
          const upTo = below?.max ?? (await this.maxUpTo(stream, seq - 1));
          const max = upTo === undefined ? undefined : Math.max(upTo, ms(at));
          return {
            doc: { stream, seq, member, at, ...(max !== undefined ? { max: new Date(max) } : {}), doc },
            head: { seq, max },
            result: seq,
          };
        },
        mine: (there) => (there.member === member ? there.seq : null),
        // The position is free, so the (stream, member) index refused: an earlier attempt appended
        // this member and died before its position document. Off the usual path (a crash), and only
        // when the member is further down than the append looks by `_id` (NEAR_BELOW): a scan on
        // FerretDB, an index read on MongoDB.
        elsewhere: async (err) => {
          const earlier = await this.entries.findOne({ stream, member }).lean<ChainEntry<T>>().exec();
          if (!earlier) throw err;
          return earlier.seq;
        },
      },
      MAX_APPEND_ATTEMPTS,
    );
    return { seq: placed.result, inserted: placed.inserted };
  }

  /** Writes a member's position document (one the append skipped, `position: false`); idempotent. */
  async keepPosition(stream: string, member: string, seq: number): Promise<void> {
    await this.writePosition(stream, member, seq);
  }

  private async writePosition(stream: string, member: string, seq: number): Promise<number> {
    try {
      await this.positions.collection.insertOne({ _id: positionKey(stream, member), seq } as never);
    } catch (err) {
      if (!duplicateKey(err)) throw err;
    }
    return seq;
  }

  /**
   * A position a reader found missing below the head (a list, a webhook drain past its grace):
   * counted and noted once for the sweep, which appends its member again at the head (best effort).
   */
  async noteHole(stream: string, seq: number): Promise<void> {
    return this.holeAt(stream, seq);
  }

  /** A position missing below the head: counted and noted once for the sweep (best effort). */
  private async holeAt(stream: string, seq: number): Promise<void> {
    try {
      await this.holes.collection.insertOne({
        _id: chainKey(stream, seq),
        stream,
        seq,
        foundAt: new Date(),
      } as never);
      readChainHoles.inc({ chain: this.name });
    } catch {
      // noted already (a duplicate), or the database is unreachable: the next reader notes it
    }
  }

  /**
   * Reads positions `from`..`to` (inclusive, either order) by `_id`, a batch at a time; ends at the
   * first position past the head, skips holes and tombstones below it.
   */
  async range(stream: string, from: number, to: number): Promise<ChainEntry<T>[]> {
    const step = to >= from ? 1 : -1;
    const out: ChainEntry<T>[] = [];
    let head: number | undefined;
    for (let s = from; step > 0 ? s <= to : s >= Math.max(to, 1); s += step * BATCH) {
      const seqs: number[] = [];
      for (let k = 0; k < BATCH; k++) {
        const q = s + k * step;
        if (step > 0 ? q > to : q < Math.max(to, 1)) break;
        seqs.push(q);
      }
      const batch = await Promise.all(seqs.map((q) => this.at(stream, q)));
      for (const [k, e] of batch.entries()) {
        if (!e) {
          head ??= await this.head(stream);
          if (seqs[k]! > head) {
            if (step > 0) return out;
            continue;
          }
          await this.holeAt(stream, seqs[k]!);
          continue;
        }
        if (!e.hole) out.push(e);
      }
    }
    return out;
  }

  /** Newest first: the entries below `before` (or from the head) that `keep`, up to `limit`. */
  async walkDown(stream: string, opts: WalkOptions<T>): Promise<WalkResult<T>> {
    // A cursor past the head (forged, or from a chain this process has not seen grow) starts there.
    const head = await this.head(stream);
    const top = opts.before !== undefined ? Math.min(opts.before - 1, head) : head;
    const budget = opts.budget ?? 1_000;
    const stopBelow = opts.stopBelow !== undefined ? ms(opts.stopBelow) : undefined;
    const entries: ChainEntry<T>[] = [];
    let seq = top;
    let read = 0;
    while (seq >= 1 && entries.length < opts.limit && read < budget) {
      const n = Math.min(BATCH, seq, budget - read, Math.max(opts.limit - entries.length, 1) + 1);
      const from = seq;
      const batch = await Promise.all(Array.from({ length: n }, (_, k) => this.at(stream, from - k)));
      for (const [k, e] of batch.entries()) {
        read++;
        seq = from - k - 1;
        // A hole (an entry lost below the head): skipped, so one loss never stops the stream.
        if (!e) {
          await this.holeAt(stream, from - k);
          continue;
        }
        if (stopBelow !== undefined && e.max !== undefined && ms(e.max) < stopBelow)
          return { entries, next: null };
        if (e.hole) continue;
        if (opts.stop?.(e)) return { entries, next: null };
        if (!opts.keep || opts.keep(e)) entries.push(e);
        if (entries.length === opts.limit) break;
      }
    }
    // More may follow: the caller's cursor continues below the last position read.
    return { entries, next: seq >= 1 ? seq + 1 : null };
  }

  /**
   * Positions after `after` (exclusive), oldest first, up to `limit` positions: what a reconnecting
   * client missed.
   */
  async after(stream: string, after: number, limit: number): Promise<ChainEntry<T>[]> {
    return this.range(stream, after + 1, after + limit);
  }

  /**
   * The recovery sweep's part: for each hole noted by readers (oldest first, at most `limit`), the
   * member it held (from its position document) is appended again at the head, from its source
   * record (`restore`), then the hole is marked with a tombstone readers skip. Idempotent: a crash
   * anywhere leaves the hole noted, and the next run finds the member already appended (its
   * position document moved) or the tombstone in place.
   */
  async repairHoles(
    restore: Restore<T>,
    limit = 100,
    /** The member at a position that has no position document (appendUnlisted's): its caller's record. */
    memberOf?: (stream: string, seq: number) => Promise<string | null>,
  ): Promise<HoleRepairResult> {
    // Holes are rare and few: this small collection is read whole (sorted in memory).
    const holes = (await this.holes.find({}).limit(limit).lean<HoleDoc[]>().exec()).sort(
      (a, b) => ms(a.foundAt) - ms(b.foundAt),
    );
    const result: HoleRepairResult = { holes: holes.length, reappended: 0, marked: 0 };
    for (const h of holes) {
      if (!(await this.at(h.stream, h.seq))) {
        const outcome = await this.closeHole(h.stream, h.seq, restore, memberOf);
        result[outcome]++;
        readChainHoleRepairs.inc({ chain: this.name, outcome });
      }
      await this.holes.deleteOne({ _id: h._id }).exec();
    }
    return result;
  }

  private async closeHole(
    stream: string,
    seq: number,
    restore: Restore<T>,
    memberOf?: (stream: string, seq: number) => Promise<string | null>,
  ): Promise<'reappended' | 'marked'> {
    let outcome: 'reappended' | 'marked' = 'marked';
    const member = (await this.memberAt(stream, seq)) ?? (memberOf ? await memberOf(stream, seq) : null);
    const restored = member !== null ? await restore(stream, member) : null;
    if (member !== null && restored) {
      // The lost entry took its (stream, member) index key with it: the member goes in anew.
      const placed = await this.chain.serialized(stream, () =>
        this.place(stream, member, restored.at, restored.doc),
      );
      if (placed.seq !== seq) {
        await this.positions.deleteOne({ _id: positionKey(stream, member), seq }).exec();
        await this.writePosition(stream, member, placed.seq);
        if (placed.inserted && this.chain.hintDue(placed.seq)) await this.chain.writeHint(stream, placed);
      }
      outcome = 'reappended';
    }
    // The tombstone keeps `max` growing with positions (the entries above were computed with it).
    const below = await this.maxUpTo(stream, seq - 1);
    try {
      await this.entries.collection.insertOne({
        _id: chainKey(stream, seq),
        stream,
        seq,
        member: `~hole:${seq}`,
        at: new Date(0),
        ...(below !== undefined ? { max: new Date(Math.max(below, 0)) } : {}),
        hole: true,
        doc: null,
      } as never);
    } catch (err) {
      if (!duplicateKey(err)) throw err; // the entry came back, or another sweep marked it
    }
    return outcome;
  }

  /** The member whose position document names `seq`: a scan, off the usual path (the sweep). */
  private async memberAt(stream: string, seq: number): Promise<string | null> {
    const prefix = JSON.stringify([stream]).slice(0, -1) + ',';
    const doc = await this.positions
      .findOne({ seq, _id: { $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` } })
      .lean<PositionDoc>()
      .exec();
    if (!doc) return null;
    const [, member] = JSON.parse(doc._id) as [string, string];
    return member;
  }
}
