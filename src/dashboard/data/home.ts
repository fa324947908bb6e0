import type { Connection } from 'mongoose';
import { ReadChains, type ChainEntry } from '../../persistence/read-chains';
import { listed, streamOf, type IndexMember } from '../../persistence/transaction-index';
import type { CreatedRecord, TransactionStore } from '../../persistence/transactions';
import type { RefundStore } from '../../persistence/refunds';
import type { Ledger } from '../../ledger';
import { toMajor, type Currency } from '../../domain/money';
import { isFinal } from '../../domain/final-status';
import type { CurrencyVolumes, HomeAnswer, PeriodFigures } from './shapes';

// The dashboard's home figures (docs/decisions/dashboard/home-figures.md). Counting 100,000
// transactions at each visit is out of the question, and FerretDB has no aggregation worth the
// name (and loses concurrent $inc), so the figures are a fold over the scope's list of everything
// (the read chain of GET /v1/transactions), kept as immutable snapshots: a snapshot holds the
// per-day figures of the last 31 UTC days up to a chain position, plus the members not final yet.
// A visit reads the positions appended since and re-reads the open members: its cost follows what
// happened since the last visit, not what is stored. A fold reads at most WALK_LIMIT positions by
// `_id`: a scope's first fold over more (or a fold after more were appended) scans the scope's
// records of the window instead, in one streamed pass (docs/decisions/dashboard/home-first-fold.md).
// Snapshots are inserted, never updated (their `_id` names the scope, the position and the open
// count, so two racing folds of the same state insert the same key once); a pointer document names
// the latest, best effort: a stale pointer only makes the next fold start further back.

export const SERIES_DAYS = 30;
const KEPT_DAYS = 31;
const DAY_MS = 86_400_000;
/** Records read in parallel while folding. */
const PARALLEL = 100;
/** Chain positions per range read, and range reads in parallel, when walking a window. */
const CHUNK = 25;
const PARALLEL_CHUNKS = 8;
/**
 * Positions a fold reads by `_id` at most (two reads each, the entry then its record: one to three
 * seconds). Past it, one scan of the scope's records costs less (measured in docs/benchmarks.md).
 */
const WALK_LIMIT = 500;
/**
 * How long a visit waits for its fold; past it the visit answers with `ready: false` and empty
 * figures while the fold goes on, and a later visit gets them.
 */
const WAIT_FOR_FOLD_MS = 3_000;
/** A listed member whose record never appears (its insert lost to a duplicate) is dropped after this. */
const MISSING_GRACE_MS = 5 * 60_000;
const FINAL_SUCCESS = new Set(['success', 'completed']);

type Kind = 'payin' | 'payout' | 'refund';
interface KindDay {
  /** Created that day, whatever became of them. */
  count: number;
  /** Of those, succeeded: their count and amount (minor units) per currency. */
  succeeded: Record<string, { count: number; amount: number }>;
}
interface DayFigures {
  payin: KindDay;
  payout: KindDay;
  refund: KindDay;
  /** Payins and payouts that reached a final status, per provider: how many, how many succeeded. */
  operators: Record<string, { final: number; success: number }>;
}
interface OpenMember {
  kind: Kind;
  id: string;
  day: string;
  /** When the fold first met it (ms), for MISSING_GRACE_MS. */
  seen: number;
  /** false: its record did not exist yet when first met, so its day has not counted it. */
  counted?: false;
}
interface Snapshot {
  _id: string;
  scope: string;
  upTo: number;
  days: Record<string, DayFigures>;
  open: OpenMember[];
  /**
   * ms: the records created before it were counted by a scan (from their records, not the chain),
   * so entries listing them that are appended later are skipped. Absent: no scan in this lineage.
   */
  scannedBelow?: number;
  at: Date;
}
interface Pointer {
  _id: string;
  snapshot: string;
}

const dayOf = (at: Date | number) => new Date(at).toISOString().slice(0, 10);
const emptyKind = (): KindDay => ({ count: 0, succeeded: {} });
const emptyDay = (): DayFigures => ({
  payin: emptyKind(),
  payout: emptyKind(),
  refund: emptyKind(),
  operators: {},
});

interface Outcome {
  status: string;
  amount: number;
  currency: Currency;
  provider: string | null;
  createdAt: Date;
}

/** Folds a member's outcome into its day once final: false while it is not. */
function fold(fig: DayFigures, kind: Kind, o: Outcome): boolean {
  if (!isFinal(kind, o.status)) return false;
  if (FINAL_SUCCESS.has(o.status)) {
    const s = (fig[kind].succeeded[o.currency] ??= { count: 0, amount: 0 });
    s.count++;
    s.amount += o.amount;
  }
  if (kind !== 'refund' && o.provider) {
    const op = (fig.operators[o.provider] ??= { final: 0, success: 0 });
    op.final++;
    if (FINAL_SUCCESS.has(o.status)) op.success++;
  }
  return true;
}

export class HomeFigures {
  private readonly chains: ReadChains<IndexMember>;
  private readonly folds = new Map<string, Promise<Snapshot>>();
  /** Scans run one at a time in this process: each decodes the whole collection on FerretDB. */
  private scanning: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: {
      conn: Connection;
      transactions: TransactionStore;
      refunds: RefundStore;
      ledger: Ledger;
      now?: () => Date;
    },
  ) {
    // The same chains the transaction store appends to (one per connection, shared heads).
    this.chains = new ReadChains<IndexMember>(deps.conn, 'transaction_index');
  }

  private get snapshots() {
    return this.deps.conn.db!.collection<Snapshot>('dashboard_home_snapshots');
  }
  private get pointers() {
    return this.deps.conn.db!.collection<Pointer>('dashboard_home_pointers');
  }
  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  async home(scope: string, waitMs = WAIT_FOR_FOLD_MS): Promise<HomeAnswer> {
    const folding = this.fold(scope);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((res) => (timer = setTimeout(() => res(null), waitMs)));
    try {
      const [snapshot, accounts] = await Promise.all([
        Promise.race([folding, late]),
        this.deps.ledger.listAccounts(scope),
      ]);
      const now = this.now();
      if (snapshot) return answer(snapshot, accounts, now, true);
      const empty: Snapshot = { _id: '', scope, upTo: 0, days: {}, open: [], at: now };
      return answer(empty, accounts, now, false);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One fold per scope at a time in this process; callers in the meantime share its result. */
  private fold(scope: string): Promise<Snapshot> {
    let running = this.folds.get(scope);
    if (!running) {
      running = this.foldOnce(scope).finally(() => this.folds.delete(scope));
      // A visit that stopped waiting leaves the fold running: its failure is the next visit's.
      running.catch(() => undefined);
      this.folds.set(scope, running);
    }
    return running;
  }

  private async foldOnce(scope: string): Promise<Snapshot> {
    const stream = streamOf(scope, { by: 'all' });
    const pointer = await this.pointers.findOne({ _id: scope });
    const base = pointer ? await this.snapshots.findOne({ _id: pointer.snapshot }) : null;
    const now = this.now();
    const oldest = dayOf(now.getTime() - (KEPT_DAYS - 1) * DAY_MS);
    const windowStart = new Date(`${oldest}T00:00:00.000Z`);
    const head = await this.chains.head(stream);
    // From the snapshot, or anew when there is none or too much happened since (a refold).
    const start = base && head - base.upTo <= WALK_LIMIT ? base : null;
    let fresh: ChainEntry<IndexMember>[] = [];
    let scanned: { days: Record<string, DayFigures>; open: OpenMember[] } | null = null;
    let scannedBelow = start?.scannedBelow;
    if (start) {
      if (head > start.upTo) fresh = await this.chains.range(stream, start.upTo + 1, head);
    } else {
      const first = await this.firstReaching(stream, head, windowStart);
      if (head - first < WALK_LIMIT) fresh = await this.read(stream, first, head, windowStart);
      else {
        // The records of the window but its last minutes come from a scan, after the head was
        // read: an entry appended since that lists a scanned record is skipped (scannedBelow).
        // The last minutes come from the chain, whose members may still be missing their record.
        scannedBelow = now.getTime() - MISSING_GRACE_MS;
        const recent = new Date(scannedBelow);
        const [chained, found] = await Promise.all([
          this.firstReaching(stream, head, recent).then((p) => this.read(stream, p, head, recent)),
          this.scan(scope, windowStart, recent, now),
        ]);
        [fresh, scanned] = [chained, found];
      }
    }
    const days: Record<string, DayFigures> = structuredClone(scanned?.days ?? start?.days ?? {});
    const open: OpenMember[] = [];
    const dayFig = (day: string) => (days[day] ??= emptyDay());

    const apply = (m: { kind: Kind; day: string }, o: Outcome) => fold(dayFig(m.day), m.kind, o);

    // Members appended since: counted on their day, their outcome folded once final.
    const newcomers = fresh.filter(
      (e) => e.doc.kind === 'payin' || e.doc.kind === 'payout' || e.doc.kind === 'refund',
    );
    await inBatches(newcomers, async (e) => {
      const day = dayOf(new Date(e.at));
      if (day < oldest || (scannedBelow !== undefined && new Date(e.at).getTime() < scannedBelow)) return;
      const o = await this.outcome(e.doc.kind, e.doc.id);
      // An entry that does not list its record (a retry under another time): its twin counts.
      if (o && !listed(e, o.createdAt)) return;
      const m = { kind: e.doc.kind, id: e.doc.id, day, seen: now.getTime() };
      if (!o) {
        if (now.getTime() - new Date(e.at).getTime() < MISSING_GRACE_MS) open.push({ ...m, counted: false });
        return;
      }
      dayFig(day)[m.kind].count++;
      if (!apply(m, o)) open.push(m);
    });
    // Members still open at the last fold (or at the scan): folded once they are final.
    await inBatches(scanned?.open ?? start?.open ?? [], async (m) => {
      if (m.day < oldest) return;
      const o = await this.outcome(m.kind, m.id);
      if (!o) {
        if (now.getTime() - m.seen < MISSING_GRACE_MS) open.push(m);
        return;
      }
      // Counted when first met only if its record existed then; a late record counts now.
      if (m.counted === false) dayFig(m.day)[m.kind].count++;
      const { counted: _, ...counted } = m;
      if (!apply(m, o)) open.push(counted);
    });
    for (const day of Object.keys(days)) if (day < oldest) delete days[day];

    const snapshot: Snapshot = {
      _id: `${scope}:${head}:${open.length}`,
      scope,
      upTo: head,
      days,
      open,
      ...(scannedBelow !== undefined ? { scannedBelow } : {}),
      at: now,
    };
    if (base && base._id === snapshot._id) return base;
    try {
      await this.snapshots.insertOne(snapshot);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
    await this.pointers
      .replaceOne({ _id: scope }, { snapshot: snapshot._id }, { upsert: true })
      .catch(() => undefined);
    // The previous snapshot goes a little later: a fold that read the old pointer may still read it.
    if (base)
      setTimeout(
        () => void this.snapshots.deleteOne({ _id: base._id }).catch(() => undefined),
        30_000,
      ).unref();
    return snapshot;
  }

  /**
   * The first position whose `max` reaches `from` (a binary search: `max` never decreases along a
   * chain): every position below it holds members older than `from`.
   */
  private async firstReaching(stream: string, head: number, from: Date): Promise<number> {
    let [lo, hi] = [1, head + 1];
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const e = await this.chains.at(stream, mid);
      // An entry without `max` (older than it) or a hole: look above it.
      if (e?.max !== undefined && new Date(e.max).getTime() >= from.getTime()) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Positions `first`..`head` listing members of `from` or later, read in parallel. */
  private async read(
    stream: string,
    first: number,
    head: number,
    from: Date,
  ): Promise<ChainEntry<IndexMember>[]> {
    const chunks: [number, number][] = [];
    for (let p = first; p <= head; p += CHUNK) chunks.push([p, Math.min(p + CHUNK - 1, head)]);
    const out: ChainEntry<IndexMember>[][] = [];
    for (let i = 0; i < chunks.length; i += PARALLEL_CHUNKS)
      out.push(
        ...(await Promise.all(
          chunks.slice(i, i + PARALLEL_CHUNKS).map(([a, b]) => this.chains.range(stream, a, b)),
        )),
      );
    return out.flat().filter((e) => new Date(e.at).getTime() >= from.getTime());
  }

  /**
   * The scope's payins, payouts and refunds created in [from, to), folded from their records in one
   * streamed pass each (one scan at a time in this process); those not final yet are open, counted.
   */
  private scan(
    scope: string,
    from: Date,
    to: Date,
    now: Date,
  ): Promise<{ days: Record<string, DayFigures>; open: OpenMember[] }> {
    const run = this.scanning.then(async () => {
      const days: Record<string, DayFigures> = {};
      const open: OpenMember[] = [];
      const each = async (records: AsyncIterable<CreatedRecord>) => {
        for await (const r of records) {
          const day = dayOf(r.createdAt);
          const fig = (days[day] ??= emptyDay());
          fig[r.kind].count++;
          if (!fold(fig, r.kind, r)) open.push({ kind: r.kind, id: r.id, day, seen: now.getTime() });
        }
      };
      await Promise.all([
        each(this.deps.transactions.createdBetween(scope, from, to)),
        each(this.deps.refunds.createdBetween(scope, from, to)),
      ]);
      return { days, open };
    });
    this.scanning = run.catch(() => undefined);
    return run;
  }

  private async outcome(kind: Kind, id: string): Promise<Outcome | null> {
    if (kind === 'refund') {
      const r = await this.deps.refunds.findById(id);
      return (
        r && {
          status: r.status,
          amount: r.amount,
          currency: r.currency,
          provider: null,
          createdAt: r.createdAt,
        }
      );
    }
    const tx = await this.deps.transactions.findById(id);
    return (
      tx && {
        status: tx.status,
        amount: tx.amount,
        currency: tx.currency,
        provider: tx.provider,
        createdAt: tx.createdAt,
      }
    );
  }
}

async function inBatches<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL) await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

function period(days: DayFigures[]): PeriodFigures {
  const volumes = new Map<string, CurrencyVolumes>();
  const out: PeriodFigures = { payins: 0, payouts: 0, refunds: 0, volumes: [] };
  for (const d of days) {
    out.payins += d.payin.count;
    out.payouts += d.payout.count;
    out.refunds += d.refund.count;
    for (const [kind, field] of [
      ['payin', 'payins'],
      ['payout', 'payouts'],
      ['refund', 'refunds'],
    ] as const)
      for (const [currency, s] of Object.entries(d[kind].succeeded)) {
        const v = volumes.get(currency) ?? { currency, payins: 0, payouts: 0, refunds: 0 };
        v[field] += toMajor(s.amount, currency as Currency);
        volumes.set(currency, v);
      }
  }
  out.volumes = [...volumes.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  return out;
}

function answer(
  s: Snapshot,
  accounts: { currency: Currency; balance: number }[],
  now: Date,
  ready: boolean,
): HomeAnswer {
  const today = dayOf(now);
  const month = today.slice(0, 7);
  const seriesDays = Array.from({ length: SERIES_DAYS }, (_, k) =>
    dayOf(now.getTime() - (SERIES_DAYS - 1 - k) * DAY_MS),
  );
  const balances = new Map<string, { currency: string; available: number; accounts: number }>();
  for (const a of accounts) {
    const b = balances.get(a.currency) ?? { currency: a.currency, available: 0, accounts: 0 };
    b.available += toMajor(a.balance, a.currency);
    b.accounts++;
    balances.set(a.currency, b);
  }
  const operators = new Map<string, { final: number; success: number }>();
  for (const day of seriesDays)
    for (const [provider, o] of Object.entries(s.days[day]?.operators ?? {})) {
      const t = operators.get(provider) ?? { final: 0, success: 0 };
      t.final += o.final;
      t.success += o.success;
      operators.set(provider, t);
    }
  return {
    balances: [...balances.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    today: period([s.days[today] ?? emptyDay()]),
    month: period(
      Object.entries(s.days)
        .filter(([d]) => d.startsWith(month))
        .map(([, f]) => f),
    ),
    successRates: [...operators.entries()]
      .map(([provider, o]) => ({
        provider,
        ...o,
        rate: o.final ? Math.round((o.success / o.final) * 1000) / 1000 : null,
      }))
      .sort((a, b) => a.provider.localeCompare(b.provider)),
    series: seriesDays.map((day) => {
      const p = period([s.days[day] ?? emptyDay()]);
      return { day, payins: p.payins, payouts: p.payouts, refunds: p.refunds, volumes: p.volumes };
    }),
    pending: s.open.length,
    ready,
    computedAt: now.toISOString(),
  };
}
