import { createHash } from 'node:crypto';
import type { TransactionStore } from '../persistence/transactions';
import type { RefundStore } from '../persistence/refunds';
import { listed, type IndexList, type IndexMember } from '../persistence/transaction-index';
import type { ChainEntry } from '../persistence/read-chains';
import type { TransactionSearchQuery } from '../contract/schemas/transaction-search';
import { toPublicRecord } from '../contract/records/payout-record';
import { toRefundRecord } from '../contract/records/refund-record';
import type { Transaction } from '../domain/transaction';
import { refundedTotal, type Refund } from '../domain/refund';
import { countries, isOffered, providerName, type OperatorCode } from '../domain/operators';

// GET /v1/transactions as a story: pick the most selective list the filters name, walk it newest
// first by `_id` reads, read each member's current record, keep those every filter accepts. A page
// reads at most BUDGET positions whatever is stored, so its cost does not grow with the data; a
// sparse filter may answer a short page whose cursor goes on (docs/search.md).

/** Positions read for one page at most. */
const BUDGET = 400;

type Found =
  | { tx: Transaction; refund?: never }
  /** A refund, with its payin's country and provider when a filter names them. */
  | { refund: Refund; listedAs?: Pick<Transaction, 'country' | 'provider'> | undefined; tx?: never };

export interface SearchPage {
  items: Found[];
  /** The position to continue below, or null. */
  next: number | null;
  /** Names the query a cursor belongs to: another query's cursor is refused. */
  queryKey: string;
}

export interface SearchCursor {
  s: number;
  q: string;
}

export class TransactionSearch {
  constructor(private readonly deps: { transactions: TransactionStore; refunds: RefundStore }) {}

  async search(merchantId: string, q: TransactionSearchQuery, cursor?: SearchCursor): Promise<SearchPage> {
    const queryKey = keyOf(q);
    if (q.reference) return { items: await this.byReference(merchantId, q), next: null, queryKey };
    const list = mostSelective(q);
    // From the cursor or the head, down to where every entry left was created before `from`: list
    // positions do not follow creation (a session joins its provider's list at confirmation, a
    // retry after a crash joins late), so `to` is checked on each record, never used to skip ahead.
    const from = q.from ? new Date(q.from) : undefined;
    let before = cursor?.s;
    const items: Found[] = [];
    let read = 0;
    while (items.length < q.limit && read < BUDGET) {
      const walked = await this.deps.transactions.index.walk(merchantId, list, {
        ...(before !== undefined ? { before } : {}),
        limit: q.limit - items.length,
        budget: BUDGET - read,
        ...(from ? { stopBelow: from } : {}),
      });
      read += walked.entries.length === 0 ? BUDGET : walked.entries.length;
      const found = await Promise.all(walked.entries.map((e) => this.load(e, q)));
      for (const f of found) if (f && matches(f, merchantId, q)) items.push(f);
      if (walked.next === null) return { items, next: null, queryKey };
      before = walked.next;
    }
    return { items, next: before ?? null, queryKey };
  }

  /** The entry's record, if it is the one the entry lists (its time is the record's). */
  private async load(e: ChainEntry<IndexMember>, q: TransactionSearchQuery): Promise<Found | null> {
    const m = e.doc;
    if (m.kind === 'refund') {
      const refund = await this.deps.refunds.findById(m.id);
      return refund && listed(e, refund.createdAt) ? this.withPayin(refund, q) : null;
    }
    const tx = await this.deps.transactions.findById(m.id);
    return tx && listed(e, tx.createdAt) ? { tx } : null;
  }
  private async withPayin(refund: Refund, q: TransactionSearchQuery): Promise<Found> {
    if (!q.provider && !q.country) return { refund };
    return { refund, listedAs: (await this.deps.transactions.findById(refund.payinId)) ?? undefined };
  }

  /** A reference names at most a payin, a payout and a refund: read each by its key. */
  private async byReference(merchantId: string, q: TransactionSearchQuery): Promise<Found[]> {
    const ref = q.reference!;
    const [payin, payout, refund] = await Promise.all([
      this.deps.transactions.find(merchantId, 'payin', ref),
      this.deps.transactions.find(merchantId, 'payout', ref),
      ref.startsWith('rf_') ? this.deps.refunds.find(merchantId, ref) : Promise.resolve(null),
    ]);
    const found: Found[] = [
      ...(payin ? [{ tx: payin }] : []),
      ...(payout ? [{ tx: payout }] : []),
      ...(refund ? [await this.withPayin(refund, q)] : []),
    ];
    return found.filter((f) => matches(f, merchantId, q)).sort((a, b) => createdAt(b) - createdAt(a));
  }

  /** The public record of a found item: what its own read endpoint answers. */
  async recordOf(f: Found) {
    if (f.refund) return toRefundRecord(f.refund);
    const tx = f.tx;
    // A payin's status read shows its refunds: so does its item here.
    if (tx.kind !== 'payin') return toPublicRecord(tx);
    const refunds = await this.deps.refunds.ofPayin(tx);
    return toPublicRecord(tx, { refunds, refunded: refundedTotal(refunds) });
  }
}

/**
 * The provider names the `provider` filter accepts: the one it names, or for an operator code
 * alone (`MTN`, as requests spell it) that operator in `country`, else in every country it serves.
 */
function providersOf(q: TransactionSearchQuery): readonly string[] | null {
  if (!q.provider) return null;
  if (q.provider.includes('_')) return [q.provider];
  const code = q.provider as OperatorCode;
  return (q.country ? [q.country] : countries)
    .filter((c) => isOffered(code, c))
    .map((c) => providerName(code, c));
}

/**
 * A metadata pair is rarest, then a provider, a type; else everything. A country alone is checked on
 * the records: its list is not kept (src/persistence/transaction-index.ts, listsOf).
 */
function mostSelective(q: TransactionSearchQuery): IndexList {
  const pair = Object.entries(q.metadata ?? {})[0];
  if (pair) return { by: 'metadata', key: pair[0], value: pair[1] };
  const providers = providersOf(q);
  // An operator of several countries has one list per country: its country's list then.
  if (providers?.length === 1) return { by: 'provider', value: providers[0]! };
  if (q.type) return { by: 'type', value: q.type };
  return { by: 'all' };
}

const createdAt = (f: Found) => new Date(f.tx ? f.tx.createdAt : f.refund.createdAt).getTime();

/** Every filter, checked on the current record (statuses change after a member is listed). */
function matches(f: Found, merchantId: string, q: TransactionSearchQuery): boolean {
  const at = createdAt(f);
  if (q.from && at < new Date(q.from).getTime()) return false;
  if (q.to && at >= new Date(q.to).getTime()) return false;
  if (f.refund) {
    const r = f.refund;
    return (
      r.merchantId === merchantId &&
      (!q.type || q.type === 'refund') &&
      (!q.status || q.status === r.status) &&
      // A refund takes its payin's country and provider.
      (!q.provider || providersOf(q)!.includes(f.listedAs?.provider ?? '')) &&
      (!q.country || q.country === f.listedAs?.country) &&
      pairsMatch(r.metadata, q.metadata)
    );
  }
  const tx = f.tx;
  return (
    tx.merchantId === merchantId &&
    (!q.type || q.type === tx.kind) &&
    (!q.status || q.status === tx.status) &&
    (!q.provider || providersOf(q)!.includes(tx.provider ?? '')) &&
    (!q.country || q.country === tx.country) &&
    pairsMatch(tx.metadata, q.metadata)
  );
}

function pairsMatch(have: Record<string, string> | undefined, want: Record<string, string> | undefined) {
  return Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
}

function keyOf(q: TransactionSearchQuery): string {
  const { limit: _limit, cursor: _cursor, ...filters } = q;
  const sorted = Object.fromEntries(Object.entries(filters).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 12);
}
