import { Schema, type Connection, type Model } from 'mongoose';

// Read models for ordered lists, read by `_id` alone. FerretDB 1.24's SQLite backend pushes down
// one filter only, an exact `{ _id: <string> }`: `_id` ranges, `$in`, sorts and limits after a
// filter all decode the whole collection (internal/backends/sqlite/collection.go). So a list is a
// chain: each stream (e.g. one merchant's events) numbers its members 1, 2, 3... with no gap, each
// stored under `_id` = `<stream>:<seq>`; a page is the positions below a cursor, each read by `_id`.
//
// Appending is the ledger's scheme (docs/ledger.md): insert at head+1; of two writers racing for a
// position one wins, the other moves on. A unique (stream, member) index makes an append idempotent
// (an activity retry appends nothing twice), and a position document `[stream, member]` -> seq finds
// a member's place by `_id` (a WebSocket resume). The head comes from this process's memory or a
// best-effort hint (`<name>_heads`), then is probed forward by `_id`.

export interface AppendOptions {
  /**
   * The member was created by this very call's caller (its own unique insert just succeeded), so no
   * earlier attempt can have appended it: its position need not be looked up first.
   */
  fresh?: boolean;
}

export interface ChainEntry<T> {
  _id: string;
  stream: string;
  seq: number;
  member: string;
  /** When the member happened: positions are in append order, which follows it closely. */
  at: Date;
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

export const chainKey = (stream: string, seq: number): string => `${stream}:${String(seq).padStart(12, '0')}`;
const positionKey = (stream: string, member: string): string => JSON.stringify([stream, member]);
const duplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === 11000;

/** Parallel `_id` reads per round trip while walking a chain. */
const BATCH = 25;
const MAX_APPEND_ATTEMPTS = 1_000;

const entrySchema = new Schema(
  {
    _id: { type: String, required: true },
    stream: { type: String, required: true },
    seq: { type: Number, required: true },
    member: { type: String, required: true },
    at: { type: Date, required: true },
    doc: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false, minimize: false },
);
// One place per member and stream, whatever the retries: what makes an append idempotent.
entrySchema.index({ stream: 1, member: 1 }, { unique: true });
const headSchema = new Schema({ _id: String, seq: Number }, { versionKey: false });
const positionSchema = new Schema({ _id: String, seq: Number }, { versionKey: false });

function bind<T>(conn: Connection, name: string, schema: Schema, collection: string): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema as Schema<T>, collection);
}

export interface WalkOptions<T> {
  /** Walk positions below this one (a page cursor); from the head when absent. */
  before?: number;
  /** Keeps only entries that pass. */
  keep?: (e: ChainEntry<T>) => boolean;
  /** Stops at the first entry for which this holds (e.g. older than a `from` bound). */
  stop?: (e: ChainEntry<T>) => boolean;
  limit: number;
  /** Most positions read for one page, kept or not; the page may then be short (its cursor goes on). */
  budget?: number;
}

export interface WalkResult<T> {
  entries: ChainEntry<T>[];
  /** The position to continue below, or null when the chain (or the walk) is done. */
  next: number | null;
}

// Per connection: every ReadChains on one connection shares the queues and known heads.
const queuesOf = new WeakMap<Connection, Map<string, Promise<unknown>>>();
const headsOf = new WeakMap<Connection, Map<string, number>>();
function perConnection<V>(map: WeakMap<Connection, Map<string, V>>, conn: Connection): Map<string, V> {
  let m = map.get(conn);
  if (!m) map.set(conn, (m = new Map<string, V>()));
  return m;
}
const KNOWN_HEADS = 10_000;

export class ReadChains<T> {
  // Untyped documents: `doc` is whatever the caller stores.
  private readonly entries: Model<ChainEntry<unknown>>;
  private readonly heads: Model<HeadDoc>;
  private readonly positions: Model<PositionDoc>;
  private readonly queues: Map<string, Promise<unknown>>;
  private readonly knownHeads: Map<string, number>;

  /** `name` is the entries' collection; `<name>_heads` and `<name>_positions` go with it. */
  constructor(conn: Connection, name: string) {
    this.entries = bind(conn, `Chain_${name}`, entrySchema, name);
    this.heads = bind(conn, `ChainHead_${name}`, headSchema, `${name}_heads`);
    this.positions = bind(conn, `ChainPosition_${name}`, positionSchema, `${name}_positions`);
    this.queues = perConnection(queuesOf, conn);
    this.knownHeads = perConnection(headsOf, conn);
  }

  async init(): Promise<void> {
    await Promise.all([this.entries.init(), this.heads.init(), this.positions.init()]);
  }

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
    const hint = await this.heads.findOne({ _id: stream }).lean<HeadDoc>().exec();
    let seq = Math.max(this.knownHeads.get(stream) ?? 0, hint?.seq ?? 0);
    const from = seq;
    while (await this.at(stream, seq + 1)) seq++;
    this.remember(stream, seq);
    if (seq > (hint?.seq ?? 0) && seq !== from) await this.writeHint(stream, seq);
    return seq;
  }

  /**
   * Appends `member` once: a retry, or a racing attempt of the same member, answers the position it
   * already holds. Writers of one stream in this process queue behind each other (fewer lost races).
   */
  async append(stream: string, member: string, at: Date, doc: T, opts: AppendOptions = {}): Promise<number> {
    const known = opts.fresh ? null : await this.position(stream, member);
    if (known !== null) return known;
    const placed = await this.serialized(stream, () => this.place(stream, member, at, doc));
    // Outside the stream's queue: the next append of this process needs only its memory of the
    // head, so a burst on one stream waits for one insert each, not for three writes. The hint and
    // the position are independent documents.
    const [seq] = await Promise.all([
      this.writePosition(stream, member, placed.seq),
      placed.inserted ? this.writeHint(stream, placed.seq) : undefined,
    ]);
    return seq;
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
    const known = this.knownHeads.get(stream);
    let seq = (known ?? (await this.head(stream))) + 1;
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
      try {
        await this.entries.collection.insertOne({
          _id: chainKey(stream, seq),
          stream,
          seq,
          member,
          at,
          doc,
        } as never);
        this.remember(stream, seq);
        return { seq, inserted: true };
      } catch (err) {
        if (!duplicateKey(err)) throw err;
        const there = await this.at(stream, seq);
        if (there?.member === member) return { seq, inserted: false };
        if (there) {
          seq++; // another member won this position: try the next
          continue;
        }
        // The position is free, so the (stream, member) index refused: an earlier attempt appended
        // this member and died before its position document. Off the usual path (a crash): a scan on
        // FerretDB, an index read on MongoDB.
        const earlier = await this.entries.findOne({ stream, member }).lean<ChainEntry<T>>().exec();
        if (!earlier) throw err;
        return { seq: earlier.seq, inserted: false };
      }
    }
    throw new Error(`read chain ${stream}: too many lost races`);
  }

  private async writePosition(stream: string, member: string, seq: number): Promise<number> {
    try {
      await this.positions.collection.insertOne({ _id: positionKey(stream, member), seq } as never);
    } catch (err) {
      if (!duplicateKey(err)) throw err;
    }
    return seq;
  }

  /** Best effort: a hint behind costs readers a few probes; it is never trusted as the head. */
  private async writeHint(stream: string, seq: number): Promise<void> {
    try {
      await this.heads.updateOne({ _id: stream }, { $set: { seq } }, { upsert: true }).exec();
    } catch {
      // a concurrent first upsert won, or the database is unreachable: both harmless
    }
  }

  private remember(stream: string, seq: number): void {
    if (seq <= (this.knownHeads.get(stream) ?? 0)) return;
    this.knownHeads.delete(stream);
    this.knownHeads.set(stream, seq);
    if (this.knownHeads.size > KNOWN_HEADS) this.knownHeads.delete(this.knownHeads.keys().next().value!);
  }

  private async serialized<R>(stream: string, fn: () => Promise<R>): Promise<R> {
    const previous = this.queues.get(stream) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(stream, tail);
    void tail.then(() => {
      if (this.queues.get(stream) === tail) this.queues.delete(stream);
    });
    return run;
  }

  /** Reads positions `from`..`to` (inclusive, either order) by `_id`, a batch at a time; stops at a gap. */
  async range(stream: string, from: number, to: number): Promise<ChainEntry<T>[]> {
    const step = to >= from ? 1 : -1;
    const out: ChainEntry<T>[] = [];
    for (let s = from; step > 0 ? s <= to : s >= Math.max(to, 1); s += step * BATCH) {
      const seqs: number[] = [];
      for (let k = 0; k < BATCH; k++) {
        const q = s + k * step;
        if (step > 0 ? q > to : q < Math.max(to, 1)) break;
        seqs.push(q);
      }
      const batch = await Promise.all(seqs.map((q) => this.at(stream, q)));
      for (const e of batch) {
        if (!e) return out;
        out.push(e);
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
    const entries: ChainEntry<T>[] = [];
    let seq = top;
    let read = 0;
    while (seq >= 1 && entries.length < opts.limit && read < budget) {
      const n = Math.min(BATCH, seq, budget - read, Math.max(opts.limit - entries.length, 1) + 1);
      const batch = await Promise.all(Array.from({ length: n }, (_, k) => this.at(stream, seq - k)));
      for (const e of batch) {
        if (!e) throw new Error(`read chain ${stream}: position ${seq} missing below the head`);
        read++;
        if (opts.stop?.(e)) return { entries, next: null };
        seq = e.seq - 1;
        if (!opts.keep || opts.keep(e)) entries.push(e);
        if (entries.length === opts.limit) break;
      }
    }
    // More may follow: the caller's cursor continues below the last position read.
    return { entries, next: seq >= 1 ? seq + 1 : null };
  }

  /**
   * The highest position whose `at` is below `bound` (or at it, with `inclusive`), by binary search
   * over `_id` reads: O(log n). Positions follow time closely, not exactly (writers race by
   * milliseconds), so callers still check each entry's time.
   */
  async lastBefore(stream: string, bound: Date, inclusive = false): Promise<number> {
    const below = (e: ChainEntry<T>) =>
      inclusive ? new Date(e.at).getTime() <= bound.getTime() : new Date(e.at).getTime() < bound.getTime();
    let lo = 0; // position known below the bound (0: none)
    let hi = (await this.head(stream)) + 1; // position known not below (head + 1: none)
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const e = await this.at(stream, mid);
      if (e && below(e)) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Positions after `after` (exclusive), oldest first, up to `limit`: what a reconnecting client
   * missed.
   */
  async after(stream: string, after: number, limit: number): Promise<ChainEntry<T>[]> {
    return this.range(stream, after + 1, after + limit);
  }
}
