import type { Connection } from 'mongoose';
import type { ConnectorName } from '../connectors/connector';
import type { RankingInput, RouteReason } from './ranking';

export type { RouteReason } from './ranking';
import { LRUCache } from 'lru-cache';
import { insertOnce } from '../../persistence/insert-once';

// Which route took each live payin and payout, and why: the one record every process follows for
// a transaction's requests, status reads, cancellation and refunds. Each entry is inserted once
// under a fixed `_id` (FerretDB enforces unique ids; its updates are read-then-replace and could
// lose a concurrent write): the first process to insert an entry decides it, the others read it.
// Nothing here is ever updated, so a decision cannot be overwritten.

const COLLECTION = 'transaction_routes';

/** The transactions a route takes: a refund follows its payin's route and has no entry of its own. */
export type RoutedKind = 'collection' | 'disbursement';

/** Route number `seq` of a transaction: 1 is the first route asked, 2 the one it failed over to. */
export interface RouteEntry {
  kind: RoutedKind;
  id: string;
  seq: number;
  connector: ConnectorName;
  reason: RouteReason;
  /** Route 1: each route as the choice saw it (rate, elimination, cost), to explain it afterwards. */
  ranking?: RankingInput[];
  /** Failover: the route left, and what it answered (a refusal's text, never personal data). */
  after?: { connector: ConnectorName; answer: string };
  at: string;
}

/**
 * The previous route's verdict before a failover is taken: `go` when, after the fence, it answered
 * that it does not hold the transaction (or failed it); `stay` when it holds it.
 */
export interface RouteVerdict {
  kind: RoutedKind;
  id: string;
  /** The entry whose route the verdict opens (its predecessor is the route that was read). */
  seq: number;
  verdict: 'go' | 'stay';
  /** The previous route's answer to the verification read (an outcome, never personal data). */
  answer: string;
  at: string;
}

export interface RouteBook {
  /** A transaction's entries and verdicts, entries in order. */
  read(kind: RoutedKind, id: string): Promise<{ entries: RouteEntry[]; verdicts: RouteVerdict[] }>;
  /** Inserts the entry unless one with its number exists; answers the one stored (this or the first). */
  record(entry: RouteEntry): Promise<RouteEntry>;
  /** Inserts the verdict unless one exists for its entry; answers the one stored. */
  decide(verdict: RouteVerdict): Promise<RouteVerdict>;
}

type Doc = ({ _id: string; type: 'entry' } & RouteEntry) | ({ _id: string; type: 'verdict' } & RouteVerdict);

const entryId = (kind: RoutedKind, id: string, seq: number) => `${kind}:${id}:${seq}`;
const verdictId = (kind: RoutedKind, id: string, seq: number) => `${entryId(kind, id, seq)}:verdict`;

type Read = { entries: RouteEntry[]; verdicts: RouteVerdict[] };

export class RouteBookStore implements RouteBook {
  // What can no longer change, kept per process: a transaction's entry 1 (so a status read costs one
  // store read, for entry 2), and a transaction whose entry 2 has its verdict (none). Nothing stored
  // is ever updated, so a kept entry is never stale.
  private readonly firsts = new LRUCache<string, RouteEntry>({ max: 20_000 });
  private readonly settled = new LRUCache<string, Read>({ max: 5_000 });

  constructor(private readonly conn: Connection) {}

  private get docs() {
    return this.conn.collection<Doc>(COLLECTION);
  }

  async read(kind: RoutedKind, id: string): Promise<Read> {
    const key = entryId(kind, id, 1);
    const settled = this.settled.get(key);
    if (settled) return settled;
    // By exact `_id` (FerretDB pushes down no other filter), one after the other in the order they
    // are written: entry 2 only exists after entry 1, the verdict after entry 2. Read together, a
    // read could miss entry 1 and see entry 2, and send the transaction to route 2 with no verdict.
    const byId = (_id: string) => this.docs.findOne({ _id });
    let first = this.firsts.get(key);
    if (!first) {
      const doc = await byId(key);
      if (!doc) return { entries: [], verdicts: [] };
      first = fieldsOf(doc) as RouteEntry;
      this.firsts.set(key, first);
    }
    const second = await byId(entryId(kind, id, 2));
    if (!second) return { entries: [first], verdicts: [] };
    const verdict = await byId(verdictId(kind, id, 2));
    const read = {
      entries: [first, fieldsOf(second) as RouteEntry],
      verdicts: verdict ? [fieldsOf(verdict) as RouteVerdict] : [],
    };
    if (verdict) this.settled.set(key, read);
    return read;
  }

  async record(entry: RouteEntry): Promise<RouteEntry> {
    const stored = await this.insertOnce({
      _id: entryId(entry.kind, entry.id, entry.seq),
      type: 'entry',
      ...entry,
    });
    if (stored.seq === 1) this.firsts.set(entryId(entry.kind, entry.id, 1), stored);
    return stored;
  }

  async decide(verdict: RouteVerdict): Promise<RouteVerdict> {
    return this.insertOnce({
      _id: verdictId(verdict.kind, verdict.id, verdict.seq),
      type: 'verdict',
      ...verdict,
    });
  }

  private async insertOnce<T extends RouteEntry | RouteVerdict>(doc: Doc & T): Promise<T> {
    const { value } = await insertOnce(
      () => this.docs.insertOne(doc),
      () => this.docs.findOne({ _id: doc._id }),
      doc,
    );
    return fieldsOf(value) as T;
  }
}

/** A stored document without its storage fields. */
function fieldsOf(doc: Doc): RouteEntry | RouteVerdict {
  const { _id: _ignoredId, type: _ignoredType, ...fields } = doc;
  return fields;
}
