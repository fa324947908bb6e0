import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { Country, OperatorCode } from '../domain/operators';
import type {
  CollectionRequest,
  DisbursementRequest,
  OperatorGateway,
  OperatorKind,
  OperatorStatement,
  OperatorStatus,
  PartnerCheckResult,
  RefundRequest,
} from '../operators/gateway';

// Which of our ids were asked of which operator on which UTC day: what reconciliation needs to find
// "unknown to the operator" (we say money moved, the operator's books do not list the id). The
// statement gives the operator's ids; ours must be enumerable per operator and day without a scan
// (FerretDB 1.24 pushes only an exact `_id` filter down), so each day is a few chains of documents
// numbered 1, 2, 3… (`_id` `<operator>:<day>:<shard>:<seq>`): an ask inserts the next position (the
// unique `_id` makes one writer win it; the loser moves on), and a reader follows each chain by `_id`
// until a position is missing. Ids are spread over SHARDS chains to keep writers from racing on one.
// A marker `_id` `<kind>:<id>` records each id once, whatever the retries.

export const ASKS_COLLECTION = 'operator_asks';
export const ASK_DAYS_COLLECTION = 'operator_ask_days';
const SHARDS = 8;
const MAX_ATTEMPTS = 1_000;
const HINT_EVERY = 8;

export interface OperatorAsk {
  kind: OperatorKind;
  /** Our id: the transaction id, or the refund id. */
  id: string;
  operator: OperatorCode;
  country: Country;
}

interface AskMarker extends OperatorAsk {
  _id: string;
  day: string;
  askedAt: Date;
}

interface ChainEntry {
  _id: string;
  kind: OperatorKind;
  id: string;
}

interface ChainHead {
  _id: string;
  seq: number;
}

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;
const pad = (seq: number) => String(seq).padStart(9, '0');
const shardOf = (kind: OperatorKind, id: string) =>
  createHash('sha256').update(`${kind}:${id}`).digest().readUInt8(0) % SHARDS;

export class OperatorAskIndex {
  /** The last position this process wrote or saw per chain: where its next append starts. */
  private readonly heads = new Map<string, number>();
  /** Markers this process wrote: a repeat of one (an activity's retry) records nothing again. */
  private readonly recorded = new Set<string>();
  /** Appends of this process queue per chain instead of racing each other in the database. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly conn: Connection,
    private readonly now: () => Date = () => new Date(),
  ) {}

  static on(conn: Connection, now?: () => Date): OperatorAskIndex {
    return new OperatorAskIndex(conn, now);
  }

  private get markers() {
    return this.conn.collection<AskMarker>(ASKS_COLLECTION);
  }

  private get chains() {
    return this.conn.collection<ChainEntry | ChainHead>(ASK_DAYS_COLLECTION);
  }

  /** Records that `ask.id` is asked of its operator today (once: a repeat finds its marker). */
  async record(ask: OperatorAsk): Promise<void> {
    const markerId = `${ask.kind}:${ask.id}`;
    // No read of the marker first: a repeat this process made is known here, and one from another
    // process lists the id twice in its day, which ofDay() reads once; the marker stays insert-once.
    if (this.recorded.has(markerId)) return;
    const askedAt = this.now();
    const day = askedAt.toISOString().slice(0, 10);
    // The chain first: a crash before the marker leaves the id listed, and the retry lists it again
    // (readers drop repeats); a marker without its listing would hide the id for good.
    await this.append(`${ask.operator}:${day}:${shardOf(ask.kind, ask.id)}`, ask.kind, ask.id);
    try {
      await this.markers.insertOne({ _id: markerId, ...pick(ask), day, askedAt });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    if (this.recorded.size >= 50_000) this.recorded.delete(this.recorded.values().next().value!);
    this.recorded.add(markerId);
  }

  /** The first time an id was asked, or null. */
  async find(kind: OperatorKind, id: string): Promise<(OperatorAsk & { day: string; askedAt: Date }) | null> {
    return this.markers.findOne({ _id: `${kind}:${id}` }, { projection: { _id: 0 } });
  }

  /** Every id asked of `operator` on `day` (UTC, YYYY-MM-DD): one `_id` read per id, plus one per chain. */
  async ofDay(operator: OperatorCode, day: string): Promise<Array<{ kind: OperatorKind; id: string }>> {
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, async (_, shard) => {
        const found: ChainEntry[] = [];
        for (let seq = 1; ; seq++) {
          const entry = (await this.chains.findOne({
            _id: `${operator}:${day}:${shard}:${pad(seq)}`,
          })) as ChainEntry | null;
          if (!entry) return found;
          found.push(entry);
        }
      }),
    );
    const seen = new Set<string>();
    const asks: Array<{ kind: OperatorKind; id: string }> = [];
    for (const e of shards.flat()) {
      const key = `${e.kind}:${e.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      asks.push({ kind: e.kind, id: e.id });
    }
    return asks;
  }

  private append(chain: string, kind: OperatorKind, id: string): Promise<void> {
    const previous = this.queues.get(chain) ?? Promise.resolve();
    const run = previous.then(
      () => this.appendNow(chain, kind, id),
      () => this.appendNow(chain, kind, id),
    );
    const tail = run.catch(() => undefined);
    this.queues.set(chain, tail);
    void tail.then(() => {
      if (this.queues.get(chain) === tail) this.queues.delete(chain);
    });
    return run;
  }

  private async appendNow(chain: string, kind: OperatorKind, id: string): Promise<void> {
    // Start after what this process knows, or after the stored hint (a lower bound: never ahead).
    let seq = this.heads.get(chain) ?? (await this.hint(chain));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const position = `${chain}:${pad(seq + 1)}`;
      try {
        await this.chains.insertOne({ _id: position, kind, id });
        this.heads.set(chain, seq + 1);
        // The hint every HINT_EVERY appends, not each: a new process starting from a hint that far
        // behind pays a few failed inserts once, where every append paid a write. At 8, 16… (not
        // 1, 9…): the same lag at most, and a chain's first append (each new day) writes none.
        if ((seq + 1) % HINT_EVERY === 0) await this.writeHint(chain, seq + 1);
        return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const taken = (await this.chains.findOne({ _id: position })) as ChainEntry | null;
      if (taken?.kind === kind && taken.id === id) return; // a retry of this very ask got there first
      // Lost the position: go on after it, or after the hint if another process got further.
      seq = Math.max(seq + 1, attempt > 0 ? await this.hint(chain) : 0);
      this.heads.set(chain, seq);
    }
    throw new Error(`could not list ${kind} ${id} on ${chain} after ${MAX_ATTEMPTS} attempts`);
  }

  private async hint(chain: string): Promise<number> {
    return ((await this.chains.findOne({ _id: `${chain}:head` })) as ChainHead | null)?.seq ?? 0;
  }

  /** Best effort: a hint behind the head only costs the next new process a few failed inserts. */
  private async writeHint(chain: string, seq: number): Promise<void> {
    try {
      await this.chains.updateOne({ _id: `${chain}:head` }, { $set: { seq } }, { upsert: true });
    } catch {
      // a concurrent first upsert won, or the database is unreachable: both harmless
    }
  }
}

function pick(ask: OperatorAsk): OperatorAsk {
  return { kind: ask.kind, id: ask.id, operator: ask.operator, country: ask.country };
}

/**
 * The gateway, recording every collection, disbursement and refund in the ask index before it is
 * sent. Recording comes first and must succeed: an id the operator may hold is always in the index.
 */
export class AskRecordingGateway implements OperatorGateway {
  constructor(
    private readonly inner: OperatorGateway,
    private readonly asks: OperatorAskIndex,
  ) {}

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    await this.asks.record({
      kind: 'collection',
      id: req.transactionId,
      operator: req.operator,
      country: req.country,
    });
    return this.inner.requestCollection(req);
  }

  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    await this.asks.record({
      kind: 'disbursement',
      id: req.transactionId,
      operator: req.operator,
      country: req.country,
    });
    return this.inner.disburse(req);
  }

  async refund(req: RefundRequest): Promise<OperatorStatus> {
    await this.asks.record({
      kind: 'refund',
      id: req.refundId,
      operator: req.operator,
      country: req.country,
    });
    return this.inner.refund(req);
  }

  collectionStatus(transactionId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.collectionStatus(transactionId, operator, country);
  }

  partnerCheck(transactionId: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return this.inner.partnerCheck(transactionId, operator, country);
  }

  disbursementStatus(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    return this.inner.disbursementStatus(transactionId, operator, country);
  }

  refundStatus(refundId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.refundStatus(refundId, operator, country);
  }

  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.cancel(kind, id, operator, country);
  }

  statement(operator: OperatorCode, date: string): Promise<OperatorStatement> {
    return this.inner.statement(operator, date);
  }
}
