import type { Plan } from './schedule';

// Both sides' books for one transaction, and what it means when they disagree. Pure: the suite
// gathers the views (API, stored record, ledger legs, the operator's statement) and asks here.

/** What the operator's books say about one of our ids. */
export interface OperatorView {
  /** `unknown`: the operator never took it (or only holds a cancellation tombstone, which is not money). */
  status: 'completed' | 'failed' | 'pending' | 'unknown';
  amount: number | null;
  failureCode: string | null;
  /** Where this view comes from: the statement endpoint, or the simulator's in-process books. */
  source: 'statement' | 'books';
}

/** Whether a ledger movement (a fixed sourceRef) was applied: both its legs, exactly once. */
export interface Movement {
  applied: boolean;
  /** Something other than zero or one leg of each side: never acceptable. */
  broken: string | null;
}

export interface OurView {
  /** null: the API never accepted the transaction. */
  id: string | null;
  status: string | null;
  amount: number | null;
  /** The stored record's `attention` (ops flagged: unresolved past our deadline). */
  attention: unknown;
  /** Payins: credit; payouts and refunds: debit and reversal. */
  credit?: Movement;
  debit?: Movement;
  reversal?: Movement;
  createError?: string;
}

export interface Divergence {
  reference: string;
  id: string | null;
  kind: Plan['kind'];
  what: string;
  schedule: string;
  ours: OurView;
  operator: OperatorView;
}

const finalStatuses: Record<Plan['kind'], string[]> = {
  payin: ['success', 'failed', 'expired'],
  payout: ['completed', 'failed', 'reversed', 'expired'],
  refund: ['completed', 'failed', 'reversed'],
};

export function isFinal(kind: Plan['kind'], status: string | null): boolean {
  return status !== null && finalStatuses[kind].includes(status);
}

export const isFlagged = (ours: OurView): boolean =>
  ours.attention !== null && ours.attention !== undefined && ours.attention !== false;

/**
 * Why this transaction's books disagree (empty when they agree):
 * - collections: completed at the operator <=> the merchant credited (once);
 * - disbursements and refunds: completed <=> debited and not reversed; failed or unknown to the
 *   operator <=> reversed (or never debited); still pending at the operator: not reversed;
 * - a completed amount is ours;
 * - every transaction final, or flagged for ops;
 * - every movement has its two legs once.
 */
export function divergencesOf(kind: Plan['kind'], ours: OurView, op: OperatorView): string[] {
  if (ours.id === null) return [`never accepted by the API: ${ours.createError ?? 'no answer'}`];
  const out: string[] = [];
  for (const [name, m] of Object.entries({ credit: ours.credit, debit: ours.debit, reversal: ours.reversal }))
    if (m?.broken) out.push(`ledger ${name}: ${m.broken}`);
  if (op.status === 'completed' && op.amount !== null && ours.amount !== null && op.amount !== ours.amount)
    out.push(`amount mismatch: operator ${op.amount}, ours ${ours.amount}`);
  if (kind === 'payin') {
    const credited = ours.credit?.applied ?? false;
    if (op.status === 'completed' && !credited) out.push('collected by the operator but not credited');
    if (op.status !== 'completed' && credited) out.push(`credited but the operator says ${op.status}`);
  } else {
    const what = kind === 'payout' ? 'paid' : 'refunded';
    const debited = ours.debit?.applied ?? false;
    const reversed = ours.reversal?.applied ?? false;
    if (op.status === 'completed' && reversed) out.push(`${what} by the operator but reversed`);
    if (op.status === 'completed' && !debited) out.push(`${what} by the operator but never debited`);
    if ((op.status === 'failed' || op.status === 'unknown') && debited && !reversed)
      out.push(`${op.status === 'failed' ? 'failed at' : 'unknown to'} the operator but not reversed`);
    if (op.status === 'pending' && reversed) out.push('reversed while the operator still says pending');
  }
  if (!isFinal(kind, ours.status) && !isFlagged(ours))
    out.push(`not final (${ours.status ?? 'unreadable'}) and not flagged`);
  return out;
}

/** Counts of legs per sourceRef and side -> the movement's state. */
export function movementOf(legs: Map<string, number>, sourceRef: string): Movement {
  const debit = legs.get(`${sourceRef}|debit`) ?? 0;
  const credit = legs.get(`${sourceRef}|credit`) ?? 0;
  if (debit === 0 && credit === 0) return { applied: false, broken: null };
  if (debit === 1 && credit === 1) return { applied: true, broken: null };
  return { applied: debit > 0, broken: `${debit} debit and ${credit} credit legs` };
}
