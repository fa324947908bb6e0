import { stringify } from 'csv-stringify/sync';
import { minorUnitDigits, toMajor, type Currency } from '../domain/money';
import type { Ledger, LedgerEntry } from '../ledger';
import type { TransactionStore } from '../persistence/transactions';
import type { RefundStore } from '../persistence/refunds';
import type { StatementDocument, StatementRow } from '../contract/schemas/statements';
import type { Statement } from './store';

// A statement's content: the opening balance, every entry of the account in the period with what
// it belongs to, the closing balance. The rows are checked to add up before anything is stored.

export interface StatementSources {
  ledger: Ledger;
  transactions: TransactionStore;
  refunds: RefundStore;
}

export interface GeneratedStatement {
  content: string;
  opening: number;
  closing: number;
  count: number;
}

export class StatementMismatchError extends Error {}

const COLUMNS: (keyof StatementRow)[] = [
  'entryId',
  'createdAt',
  'type',
  'direction',
  'amount',
  'fee',
  'balanceAfter',
  'transactionReference',
  'operatorReference',
  'description',
  'metadata',
];

interface Subject {
  reference: string;
  operatorReference: string | null;
  fee: number;
  metadata: Record<string, string>;
}

/** What a movement was, from its fixed source reference (src/ledger/postings.ts). */
function typeOf(sourceRef: string): string {
  if (sourceRef.startsWith('fund:')) return 'funding';
  const kind = sourceRef.slice(sourceRef.lastIndexOf(':') + 1);
  return /^[a-z-]+$/.test(kind) ? kind : 'transfer';
}

export async function generateStatement(src: StatementSources, st: Statement): Promise<GeneratedStatement> {
  const period = await src.ledger.periodEntries(st.accountId, new Date(st.from), new Date(st.to));
  const subjects = new Map<string, Promise<Subject | null>>();
  const subjectOf = (id: string): Promise<Subject | null> => {
    let s = subjects.get(id);
    if (!s) subjects.set(id, (s = lookUp(src, id)));
    return s;
  };
  const currency = st.currency;
  const major = (minor: number) => toMajor(minor, currency);
  const rows: StatementRow[] = [];
  let balance = period.opening;
  for await (const batch of period.batches) {
    const found = await Promise.all(
      batch.map((e) => (e.transactionId ? subjectOf(e.transactionId) : Promise.resolve(null))),
    );
    batch.forEach((e: LedgerEntry, k) => {
      balance += e.amount;
      // Each entry's balance is the one before plus its amount: a gap or a foreign entry shows here.
      if (balance !== e.balanceAfter)
        throw new StatementMismatchError(`entry ${e.seq} of ${st.accountId}: balance does not follow`);
      const s = found[k];
      rows.push({
        entryId: e.id,
        createdAt: new Date(e.createdAt).toISOString(),
        type: typeOf(e.sourceRef),
        direction: e.amount < 0 ? 'debit' : 'credit',
        amount: major(e.amount),
        fee: major(s?.fee ?? 0),
        balanceAfter: major(e.balanceAfter),
        transactionReference: s?.reference ?? null,
        operatorReference: s?.operatorReference ?? null,
        description: e.reason,
        metadata: s?.metadata ?? {},
      });
    });
  }
  const closing = balance;
  const sum = rows.reduce((acc, r) => acc + Math.round(r.amount * 10 ** minorUnitDigits[currency]), 0);
  if (period.opening + sum !== closing)
    throw new StatementMismatchError(`statement ${st.id}: opening + entries != closing`);
  const doc: StatementDocument = {
    statementId: st.id,
    accountId: st.accountId,
    currency,
    from: new Date(st.from).toISOString(),
    to: new Date(st.to).toISOString(),
    openingBalance: major(period.opening),
    closingBalance: major(closing),
    entries: rows,
  };
  const content = st.format === 'json' ? JSON.stringify(doc) : toCsv(doc, currency);
  return { content, opening: period.opening, closing, count: rows.length };
}

/** RFC 4180 (csv-stringify): a header, an opening row, the entries, a closing row; decimals fixed. */
export function toCsv(doc: StatementDocument, currency: Currency): string {
  const digits = minorUnitDigits[currency];
  const money = (n: number) => n.toFixed(digits);
  const balanceRow = (type: string, at: string, balance: number) => [
    null,
    at,
    type,
    null,
    null,
    null,
    money(balance),
    null,
    null,
    null,
    null,
  ];
  const records = [
    balanceRow('opening_balance', doc.from, doc.openingBalance),
    ...doc.entries.map((r) => [
      r.entryId,
      r.createdAt,
      r.type,
      r.direction,
      money(r.amount),
      money(r.fee),
      money(r.balanceAfter),
      text(r.transactionReference),
      text(r.operatorReference),
      text(r.description),
      Object.keys(r.metadata).length > 0 ? JSON.stringify(r.metadata) : null,
    ]),
    balanceRow('closing_balance', doc.to, doc.closingBalance),
  ];
  return stringify(records, {
    header: true,
    columns: COLUMNS,
    record_delimiter: 'windows',
  });
}

/**
 * Text a merchant chose (references, descriptions that quote them) opens in spreadsheets: one that
 * starts like a formula is prefixed with an apostrophe (OWASP's CSV injection advice).
 */
function text(value: string | null): string | null {
  return value !== null && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

async function lookUp(src: StatementSources, id: string): Promise<Subject | null> {
  if (id.startsWith('rf_')) {
    const r = await src.refunds.findById(id);
    return r
      ? { reference: r.externalReference, operatorReference: null, fee: r.fee, metadata: r.metadata ?? {} }
      : null;
  }
  const tx = await src.transactions.findById(id);
  if (!tx) return null;
  return {
    reference: tx.reference,
    operatorReference: tx.payout?.operatorReference ?? null,
    fee: tx.fee,
    metadata: tx.metadata ?? {},
  };
}
