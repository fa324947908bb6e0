// What the balance history shows of an account's entries (GET /v1/accounts/{id}/entries): each
// movement in words with the transaction it belongs to, and the entries by day with each day's
// closing balance (docs/decisions/dashboard/balance-history.md).
// The API's types straight from the generated schema, not through ../api (which needs the DOM): the
// unit tests read this file under Node.
import type { components } from '../../../src/client/schema';

export type Entry = components['schemas']['EntryPage']['data'][number];

export type MovementKind =
  | 'payin'
  | 'payin-fee'
  | 'payout'
  | 'payout-fee'
  | 'payout-reversal'
  | 'refund'
  | 'refund-fee'
  | 'refund-reversal'
  | 'bulk-hold'
  | 'bulk-release';

export interface Movement {
  /** null: a reason the page does not know (a sandbox funding, an operator's correction), shown as written. */
  kind: MovementKind | null;
  /** The reference the movement names: the payin's or payout's, the refund's own, the bulk payout's id. */
  reference: string | null;
  /** The payment a refund gives back. */
  payment: string | null;
  /** The transaction's page in the dashboard, when the entry names a transaction. */
  link: string | null;
}

/**
 * The entry's reason as the ledger writes it (src/ledger/postings.ts, the bulk payouts' hold and
 * release): references have no spaces, so each template reads back exactly. The API gives the
 * reason as text only; test/unit/dashboard-balance-history.test.ts holds these to the writers.
 */
const reasons: [RegExp, MovementKind][] = [
  [/^payin fee (\S+)$/, 'payin-fee'],
  [/^payin (\S+)$/, 'payin'],
  [/^payout fee (\S+)$/, 'payout-fee'],
  [/^payout reversal (\S+)$/, 'payout-reversal'],
  [/^payout (\S+)$/, 'payout'],
  [/^refund fee (\S+)$/, 'refund-fee'],
  [/^reversal of failed refund (\S+)$/, 'refund-reversal'],
  [/^refund (\S+) of payin (\S+)$/, 'refund'],
  [/^bulk payout (\S+): hold$/, 'bulk-hold'],
  [/^bulk payout (\S+): release$/, 'bulk-release'],
];

const page = (type: 'payin' | 'payout' | 'refund', reference: string) =>
  `/transactions/${type}/${encodeURIComponent(reference)}`;

export function movementOf(entry: Pick<Entry, 'reason' | 'transactionId'>): Movement {
  const id = entry.transactionId;
  // A refund's page is found by the refund's own id (rf_…), which the entry carries.
  const refundPage = id?.startsWith('rf_') ? page('refund', id) : null;
  for (const [pattern, kind] of reasons) {
    const m = pattern.exec(entry.reason);
    if (!m) continue;
    const reference = m[1]!;
    const link = !id
      ? null
      : kind.startsWith('payin')
        ? page('payin', reference)
        : kind.startsWith('payout')
          ? page('payout', reference)
          : refundPage;
    return { kind, reference, payment: m[2] ?? null, link };
  }
  return { kind: null, reference: null, payment: null, link: refundPage };
}

/** The calendar day (YYYY-MM-DD) of an instant in the browser's time zone, as the statements' days are. */
export function localDay(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The day a page ended on and its closing balance: the next page may go on with that day. */
export interface Carried {
  day: string;
  closing: number;
}

export interface Day extends Carried {
  /** The day began on the page before: its closing balance is the one carried from there. */
  continued: boolean;
  entries: Entry[];
}

/**
 * Entries (newest first) by day. A day's closing balance is the balance after its last movement,
 * the first listed; a day that began on the page before keeps the closing balance shown there.
 */
export function byDay(entries: readonly Entry[], carried?: Carried): Day[] {
  const days: Day[] = [];
  for (const entry of entries) {
    const day = localDay(entry.createdAt);
    const last = days[days.length - 1];
    if (last?.day === day) {
      last.entries.push(entry);
      continue;
    }
    const continued = days.length === 0 && carried?.day === day;
    days.push({
      day,
      closing: continued ? carried.closing : entry.balanceAfter,
      continued,
      entries: [entry],
    });
  }
  return days;
}

export const periods = ['all', 'today', 'week', 'month'] as const;
export type Period = (typeof periods)[number];

/** Where a shortcut starts, a local midnight (today, 6 days before it, the 1st); undefined: all. */
export function periodStart(period: Period, now = new Date()): string | undefined {
  if (period === 'all') return undefined;
  const day = period === 'month' ? 1 : now.getDate() - (period === 'week' ? 6 : 0);
  return new Date(now.getFullYear(), now.getMonth(), day).toISOString();
}
