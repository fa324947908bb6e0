import type { Connection, mongo } from 'mongoose';

// One append-at-head chain, under the ledger's accounts (src/ledger/chain.ts) and the read chains
// (src/persistence/read-chains.ts). A chain numbers its entries 1, 2, 3... with no gap, each stored
// under `_id` = chainKey(chain, seq): of two writers inserting the same position exactly one wins
// (FerretDB enforces unique `_id`; it has no transactions). An appender builds on the head it knows
// and inserts seq+1; a writer that lost the position reads the entry that won it and goes on above
// it. The insert itself is the check that it was the head.
//
// One head-hint scheme: where a search for the head starts is the furthest of this process's memory
// and a stored hint (`_id`: the chain; `seq` and whatever the head carries, copied from a real entry,
// so a hint is only ever behind, never wrong). The hint is written by the inserter of every
// HINT_EVERY-th position, and by a reader that found it HINT_EVERY or more behind; a reader probes
// the position after its start, then HINT_EVERY positions at once, by `_id`, to the end of the run.
// So an append costs no hint write seven times in eight, and a cold reader usually two round trips.
// docs/decisions/persistence/one-append-at-head-chain.md

export const chainKey = (chain: string, seq: number): string => `${chain}:${String(seq).padStart(12, '0')}`;

/** chainKey's inverse: `<chain>:<12 digits>` → its chain and position. */
export const splitChainKey = (key: string): { chain: string; seq: number } => ({
  chain: key.slice(0, -13),
  seq: Number(key.slice(-12)),
});

export const duplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === 11000;

/** One append in HINT_EVERY writes the hint; a reader reads HINT_EVERY positions in one round trip. */
export const HINT_EVERY = 8;
/** Heads remembered per connection and chain collection (the oldest forgotten first). */
const KNOWN_HEADS = 10_000;
/**
 * How far below a free position an append looks, by `_id`, for its own earlier entry before asking
 * `elsewhere` (a scan on FerretDB's SQLite backend): a replay after a timeout finds its entry a few
 * positions down, even on a busy chain, in reads that cost the same however long the chain is.
 */
export const NEAR_BELOW = 32;
const NEAR_BATCH = 8;

/** What is known of a chain's head: at least its position. */
export interface Position {
  seq: number;
}

export interface HintDoc {
  _id: string;
  seq: number;
  [field: string]: unknown;
}

/** How one kind of chain stores its entries and hints; the scheme above is the same for all. */
export interface ChainStore<H extends Position, E> {
  /** The entries' collection name: memory and queues are kept per connection and collection. */
  name: string;
  /** The hints' collection (`_id`: the chain), read and written by the driver. */
  hints: mongo.Collection<HintDoc>;
  entryAt(chain: string, seq: number): Promise<E | null>;
  /** The head an entry makes. */
  headOf(entry: E): H;
  /** The hint's fields besides `_id` (`seq` included). */
  hintOf(head: H): Record<string, unknown> & Position;
  /** The head a stored hint names. */
  fromHint(doc: HintDoc): H;
  /** At the same position, whether `next` says more than `known` (it then replaces it in memory). */
  richer?(known: H, next: H): boolean;
  /** Inserts the entry at `_id`; a duplicate key error when the position (or another unique key) is taken. */
  insert(doc: { _id: string }): Promise<void>;
}

/** One attempt at position `seq`: the document and the head it makes, or a decision without insert. */
export type Attempt<H, R> =
  | { doc: object; head: H; result: R }
  /** Ask again on the chain's real head (probed forward). */
  | { probe: true }
  /** Decided without inserting (a replay found, or a refusal the caller returns). */
  | { done: R };

export interface AppendSteps<H, E, R> {
  /**
   * The attempt at `seq`, above `below` (null: the chain is empty). `fresh`: `below` was just probed
   * to be the real head.
   */
  attempt(below: H | null, seq: number, fresh: boolean): Promise<Attempt<H, R>>;
  /** The entry that holds the position is this very append's (an earlier attempt's): its result. */
  mine(there: E): R | null;
  /**
   * The position is free yet the insert was a duplicate: another unique key refused it (an earlier
   * attempt appended it elsewhere), and `mine` found it in none of the NEAR_BELOW positions under
   * this one. Its result, or null to try the position again.
   */
  elsewhere(err: unknown): Promise<R | null>;
}

const memories = new WeakMap<Connection, Map<string, Map<string, Position>>>();
const queues = new WeakMap<Connection, Map<string, Map<string, Promise<unknown>>>>();

function perName<V>(
  map: WeakMap<Connection, Map<string, Map<string, V>>>,
  conn: Connection,
  name: string,
): Map<string, V> {
  let byName = map.get(conn);
  if (!byName) map.set(conn, (byName = new Map<string, Map<string, V>>()));
  let m = byName.get(name);
  if (!m) byName.set(name, (m = new Map<string, V>()));
  return m;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The further of two heads (each from a real entry, or nothing). */
function furthest<H extends Position>(a: H | null, b: H | null): H | null {
  if (!a) return b;
  if (!b) return a;
  return b.seq > a.seq ? b : a;
}

export class AppendAtHead<H extends Position, E> {
  private readonly known: Map<string, H>;
  private readonly queue: Map<string, Promise<unknown>>;

  constructor(
    conn: Connection,
    private readonly store: ChainStore<H, E>,
  ) {
    // Every instance on one connection and collection shares them (API and worker wiring).
    this.known = perName(memories, conn, store.name) as Map<string, H>;
    this.queue = perName(queues, conn, store.name);
  }

  /** The head this process last saw (no I/O): where an appender starts; never trusted as the head. */
  knownHead(chain: string): H | null {
    return this.known.get(chain) ?? null;
  }

  async readHint(chain: string): Promise<H | null> {
    const doc = await this.store.hints.findOne({ _id: chain });
    return doc ? this.store.fromHint(doc) : null;
  }

  /** The chain's real head as of now (null: empty): the furthest of memory and the hint, probed. */
  async head(chain: string): Promise<H | null> {
    const hint = await this.readHint(chain);
    return this.probe(chain, furthest(this.knownHead(chain), hint), hint?.seq ?? 0);
  }

  /**
   * Follows the chain from `from` to the end of its unbroken run: the position after it first
   * (usually absent), then HINT_EVERY at once. With the stored hint's position: a hint HINT_EVERY or
   * more behind is brought forward.
   */
  async probe(chain: string, from: H | null, hintSeq?: number): Promise<H | null> {
    let head = from;
    for (let full = true, width = 1; full; width = HINT_EVERY) {
      const after = head?.seq ?? 0;
      const next = await Promise.all(
        Array.from({ length: width }, (_, k) => this.store.entryAt(chain, after + k + 1)),
      );
      for (const e of next) {
        if (!e) {
          full = false;
          break;
        }
        head = this.store.headOf(e);
      }
    }
    if (head) this.remember(chain, head);
    if (head && hintSeq !== undefined && head.seq - hintSeq >= HINT_EVERY) await this.writeHint(chain, head);
    return head;
  }

  /** Whether the inserter of `seq` writes the hint. */
  hintDue(seq: number): boolean {
    return seq % HINT_EVERY === 0;
  }

  /** Best effort: a hint behind costs readers a few probes; it is never trusted as the head. */
  async writeHint(chain: string, head: H): Promise<void> {
    try {
      await this.store.hints.updateOne({ _id: chain }, { $set: this.store.hintOf(head) }, { upsert: true });
    } catch {
      // a concurrent first upsert won (duplicate _id), or the database is unreachable: both harmless
    }
  }

  remember(chain: string, head: H): void {
    const known = this.known.get(chain);
    if (known && (head.seq < known.seq || (head.seq === known.seq && !this.store.richer?.(known, head))))
      return;
    this.known.delete(chain);
    this.known.set(chain, head);
    if (this.known.size > KNOWN_HEADS) this.known.delete(this.known.keys().next().value!);
  }

  /**
   * Inserts at the head: from `from` (memory, or the probed head), position by position until an
   * insert wins or `steps` decides. `inserted` is true only when this call's insert won.
   */
  async append<R>(
    chain: string,
    from: H | null,
    steps: AppendSteps<H, E, R>,
    maxAttempts: number,
  ): Promise<{ result: R; inserted: boolean; head: H | null }> {
    let below = from;
    let fresh = false;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const seq = (below?.seq ?? 0) + 1;
      const next = await steps.attempt(below, seq, fresh);
      if ('done' in next) return { result: next.done, inserted: false, head: below };
      if ('probe' in next) {
        below = await this.probe(chain, below);
        fresh = true;
        continue;
      }
      let duplicate: unknown;
      try {
        await this.store.insert({ _id: chainKey(chain, seq), ...next.doc });
        this.remember(chain, next.head);
        return { result: next.result, inserted: true, head: next.head };
      } catch (err) {
        if (!duplicateKey(err)) throw err;
        duplicate = err;
      }
      // The position is taken (another writer, or a head that was behind), or this append exists
      // already (a replay): the entry at the position tells which.
      const there = await this.store.entryAt(chain, seq);
      if (!there) {
        const earlier = (await this.mineBelow(chain, seq, steps)) ?? (await steps.elsewhere(duplicate));
        if (earlier !== null) return { result: earlier, inserted: false, head: below };
        continue;
      }
      const head = this.store.headOf(there);
      this.remember(chain, head);
      const mine = steps.mine(there);
      if (mine !== null) return { result: mine, inserted: false, head };
      // Lost the position: go on above the entry that won it.
      below = head;
      fresh = false;
      if (attempt > 0) await sleep(Math.random() * Math.min(20, attempt));
    }
    throw new ChainContentionError(chain, maxAttempts);
  }

  /**
   * This append's own entry among the NEAR_BELOW positions under `seq`, nearest first, read by `_id`
   * a batch at a time; null when it is not there (further down, or not in this chain at all).
   */
  private async mineBelow<R>(chain: string, seq: number, steps: AppendSteps<H, E, R>): Promise<R | null> {
    const lowest = Math.max(1, seq - NEAR_BELOW);
    for (let top = seq - 1; top >= lowest; top -= NEAR_BATCH) {
      const positions = Array.from({ length: Math.min(NEAR_BATCH, top - lowest + 1) }, (_, k) => top - k);
      const entries = await Promise.all(positions.map((p) => this.store.entryAt(chain, p)));
      for (const entry of entries) {
        const mine = entry ? steps.mine(entry) : null;
        if (mine !== null) return mine;
      }
    }
    return null;
  }

  /** Runs `fn` after the previous local writer of the same chain is done (fewer lost races). */
  async serialized<R>(chain: string, fn: () => Promise<R>): Promise<R> {
    const previous = this.queue.get(chain) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queue.set(chain, tail);
    void tail.then(() => {
      if (this.queue.get(chain) === tail) this.queue.delete(chain);
    });
    return run;
  }
}

export class ChainContentionError extends Error {
  constructor(chain: string, attempts: number) {
    super(`could not append to ${chain} after ${attempts} attempts`);
    this.name = 'ChainContentionError';
  }
}
