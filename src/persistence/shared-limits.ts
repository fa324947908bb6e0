import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { isDuplicateKey } from './insert-once';

// Rate-limit counters every API replica shares, kept in MongoDB/FerretDB
// (docs/decisions/api/shared-limit-counters.md). FerretDB replaces a document on every update, so
// concurrent `$inc`s lose counts; here a hit is an insert. A window's hits of one key are numbered
// slots, each a document named by `_id` (`<key hash>|<window start>|t|<n>`): a hit inserts the first
// free slot, and the unique `_id` makes two processes racing for one slot take two (the loser moves
// on). Slots are taken in order, so the number of the slot a hit took is the count of hits so far.
// A hit that should not count (express-rate-limit's `decrement`, e.g. a successful sign-in) inserts
// a release slot (`…|r|<n>`) the same way; the count is taken minus released. Reads are `_id` reads
// (the only filter FerretDB's SQLite backend serves from an index), found by galloping from what
// this process last saw, so a hit usually costs one insert (plus one read where releases count).
// FerretDB has no TTL index: windows that ended are deleted by a sweep on `windowEnd`, at most
// once per `sweepEveryMs` per process, run by a hit.

export const LIMIT_COLLECTION = 'rate_limit_slots';
const DEFAULT_SWEEP_EVERY_MS = 5 * 60_000;

interface SlotDoc {
  _id: string;
  windowEnd: Date;
}

/** What this process last saw of one key's window: its highest slots taken and released. */
interface Seen {
  windowStart: number;
  taken: number;
  released: number;
}

export interface SharedLimitsOptions {
  /** Windows that ended are deleted at most this often per process (default 5 minutes). */
  sweepEveryMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

export class SharedLimits {
  private lastSweep = 0;
  private readonly sweepEveryMs: number;
  readonly now: () => number;

  private constructor(
    private readonly conn: Connection,
    opts: SharedLimitsOptions,
  ) {
    this.sweepEveryMs = opts.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    this.now = opts.now ?? Date.now;
  }

  static on(conn: Connection, opts: SharedLimitsOptions = {}): SharedLimits {
    return new SharedLimits(conn, opts);
  }

  private get slots() {
    return this.conn.collection<SlotDoc>(LIMIT_COLLECTION);
  }

  /** The index the sweep deletes by. */
  async init(): Promise<void> {
    await this.slots.createIndex({ windowEnd: 1 });
  }

  /**
   * A counter of fixed windows (`windowMs`), named apart from the other limits (two counters of one
   * name count together: a route mounted twice, e.g. the public API under the dashboard, shares its
   * budget); `releases: false` for a limit that never un-counts a hit (saves the read of releases).
   */
  counter(name: string, windowMs: number, opts: { releases?: boolean } = {}): SharedCounter {
    return new SharedCounter(this, name, windowMs, opts.releases ?? true);
  }

  /** An express-rate-limit store over a counter (its window is the limiter's `windowMs`). */
  store(name: string, opts: { releases?: boolean } = {}): Store {
    return new SharedStore(this, name, opts.releases ?? true);
  }

  /** Deletes the slots of windows that ended before `now`; the number deleted. */
  async sweep(now = this.now()): Promise<number> {
    this.lastSweep = now;
    const res = await this.slots.deleteMany({ windowEnd: { $lte: new Date(now) } });
    return res.deletedCount;
  }

  /** Runs the sweep when the last one (of this process) is older than `sweepEveryMs`. */
  async maybeSweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = now;
    await this.sweep(now);
  }

  /** @internal */
  async exists(id: string): Promise<boolean> {
    return (await this.slots.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /** @internal true when inserted, false when the slot was taken. */
  async insert(id: string, windowEnd: Date): Promise<boolean> {
    try {
      await this.slots.insertOne({ _id: id, windowEnd });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
}

export class SharedCounter {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly limits: SharedLimits,
    readonly name: string,
    readonly windowMs: number,
    private readonly releases: boolean,
  ) {}

  /** The key's slots in the current window: `_id` prefix (hashed: keys may be addresses), and what this process saw. */
  private window(key: string): { prefix: string; seen: Seen; windowEnd: Date } {
    const now = this.limits.now();
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    const digest = createHash('sha256').update(`${this.name}\u0000${key}`).digest('base64url').slice(0, 22);
    let seen = this.seen.get(digest);
    if (!seen || seen.windowStart !== windowStart) {
      // Forget keys of past windows once the map grows (a hit's key is re-created when needed).
      if (this.seen.size > 10_000)
        for (const [k, s] of this.seen) if (s.windowStart < windowStart) this.seen.delete(k);
      seen = { windowStart, taken: 0, released: 0 };
      this.seen.set(digest, seen);
    }
    return { prefix: `${digest}|${windowStart}`, seen, windowEnd: new Date(windowStart + this.windowMs) };
  }

  /**
   * The first free slot after `known` (known taken, or 0): gallops up (known+1, +2, +4, ...) then
   * bisects. Slots are taken in order and only deleted once their window ended, so the taken ones
   * of a window are 1..n without holes.
   */
  private async firstFree(prefix: string, known: number): Promise<number> {
    if (!(await this.limits.exists(`${prefix}|${known + 1}`))) return known + 1;
    let lo = known + 1;
    let step = 1;
    let hi: number;
    for (;;) {
      hi = lo + step;
      if (!(await this.limits.exists(`${prefix}|${hi}`))) break;
      lo = hi;
      step *= 2;
    }
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.limits.exists(`${prefix}|${mid}`)) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** Inserts the next slot of a sequence; its number. */
  private async take(prefix: string, known: number, windowEnd: Date): Promise<number> {
    let slot = known + 1;
    while (!(await this.limits.insert(`${prefix}|${slot}`, windowEnd)))
      slot = await this.firstFree(prefix, slot);
    return slot;
  }

  /** Counts a hit; the hits counted in the window so far (this one included) and the window's end. */
  async hit(key: string): Promise<{ count: number; resetTime: Date }> {
    const { prefix, seen, windowEnd } = this.window(key);
    const taken = await this.take(`${prefix}|t`, seen.taken, windowEnd);
    seen.taken = Math.max(seen.taken, taken);
    let released = 0;
    if (this.releases) {
      released = (await this.firstFree(`${prefix}|r`, seen.released)) - 1;
      seen.released = Math.max(seen.released, released);
    }
    void this.limits.maybeSweep().catch(() => undefined);
    // At least this hit: a release of a hit of the previous window (a request astride the edge)
    // lands in this one.
    return { count: Math.max(1, taken - released), resetTime: windowEnd };
  }

  /** Un-counts one hit of the key's current window (a request that should not count). */
  async release(key: string): Promise<void> {
    const { prefix, seen, windowEnd } = this.window(key);
    seen.released = Math.max(seen.released, await this.take(`${prefix}|r`, seen.released, windowEnd));
  }

  /** The hits counted in the key's current window, without counting one. */
  async count(key: string): Promise<{ count: number; resetTime: Date }> {
    const { prefix, seen, windowEnd } = this.window(key);
    seen.taken = (await this.firstFree(`${prefix}|t`, seen.taken)) - 1;
    if (this.releases) seen.released = (await this.firstFree(`${prefix}|r`, seen.released)) - 1;
    return { count: Math.max(0, seen.taken - (this.releases ? seen.released : 0)), resetTime: windowEnd };
  }
}

/** express-rate-limit's Store over a shared counter; its window is the limiter's. */
class SharedStore implements Store {
  private counter: SharedCounter | null = null;
  readonly localKeys = false;

  constructor(
    private readonly limits: SharedLimits,
    readonly prefix: string,
    private readonly releases: boolean,
  ) {}

  init(options: Options): void {
    this.counter = this.limits.counter(this.prefix, options.windowMs, { releases: this.releases });
  }

  private get c(): SharedCounter {
    if (!this.counter) throw new Error(`shared limit ${this.prefix}: not initialised`);
    return this.counter;
  }

  async get(key: string): Promise<ClientRateLimitInfo> {
    const { count, resetTime } = await this.c.count(key);
    return { totalHits: count, resetTime };
  }

  async increment(key: string): Promise<IncrementResponse> {
    const { count, resetTime } = await this.c.hit(key);
    return { totalHits: count, resetTime };
  }

  async decrement(key: string): Promise<void> {
    await this.c.release(key);
  }

  /** Releases every hit counted in the window (express-rate-limit's resetKey). */
  async resetKey(key: string): Promise<void> {
    const { count } = await this.c.count(key);
    for (let i = 0; i < count; i++) await this.c.release(key);
  }
}
