import { z } from 'zod';
import type { Language, Text } from '../../contract/i18n';
import {
  transactionSearchQuery,
  type TransactionSearchQuery,
} from '../../contract/schemas/transaction-search';
import type { TransactionSearch } from '../../services/transaction-search';
import { maskPhone } from '../access/audit-actions';

// The lists' exports (docs/decisions/dashboard/list-exports.md): the rows GET /v1/transactions
// answers for the filters shown, one list's columns named in the member's language, phone numbers
// masked as the transactions list shows them, money as an integer and its currency.

/** Rows an export holds at most: above it the member narrows the filters (EXPORT_TOO_LARGE). */
export const EXPORT_MAX_ROWS = 10_000;
/** Records read for one page of the walk: the store is read page by page, never whole. */
const PAGE = 100;

export const exportLists = ['transactions', 'refunds', 'payouts'] as const;
export type ExportList = (typeof exportLists)[number];

/** The filters of GET /v1/transactions (no page), the list and the file's format. */
export const exportQuery = transactionSearchQuery
  .omit({ limit: true, cursor: true })
  .extend({
    list: z.enum(exportLists),
    format: z.enum(['csv', 'xlsx']).default('csv'),
  })
  // The refunds and payouts lists are GET /v1/transactions of one type: another type is no row.
  .refine((q) => q.list === 'transactions' || q.type === undefined || q.type === listType[q.list], {
    path: ['type'],
  });
export type ExportQuery = z.infer<typeof exportQuery>;

const listType = { refunds: 'refund', payouts: 'payout' } as const;

export interface Column {
  key: string;
  title: Text;
  /** Numbers stay numbers in a spreadsheet (amounts). */
  numeric?: true;
}

const col = (key: string, en: string, fr: string, numeric?: true): Column => ({
  key,
  title: { en, fr },
  ...(numeric ? { numeric } : {}),
});
const reference = col('reference', 'Reference', 'Référence');
const status = col('status', 'Status', 'Statut');
const amount = col('amount', 'Amount', 'Montant', true);
const currency = col('currency', 'Currency', 'Devise');
const fee = col('fee', 'Fee', 'Frais', true);
const failure = col('failure', 'Why it failed', 'Cause de l’échec');
const createdAt = col('createdAt', 'Created (UTC)', 'Créé le (UTC)');

/** Each list's columns, in its page's order, then what a spreadsheet needs besides (fee, currency). */
export const exportColumns: Readonly<Record<ExportList, readonly Column[]>> = {
  transactions: [
    reference,
    col('type', 'Type', 'Type'),
    status,
    amount,
    currency,
    fee,
    col('phone', 'Phone number', 'Numéro de téléphone'),
    col('operator', 'Operator', 'Opérateur'),
    failure,
    createdAt,
  ],
  refunds: [
    col('reference', 'Refund', 'Remboursement'),
    col('payment', 'Payment refunded', 'Paiement remboursé'),
    amount,
    currency,
    fee,
    col('reason', 'Reason', 'Motif'),
    status,
    failure,
    createdAt,
  ],
  payouts: [
    reference,
    col('recipient', 'Recipient', 'Bénéficiaire'),
    col('phone', 'Phone number', 'Numéro de téléphone'),
    amount,
    currency,
    fee,
    status,
    failure,
    createdAt,
  ],
};

/**
 * A payment link's payments (GET /dashboard/api/payment-links/{id}/export): the transactions list's
 * columns but the type, every row being a payin.
 */
export const linkPaymentColumns: readonly Column[] = exportColumns.transactions.filter(
  (c) => c.key !== 'type',
);
export const linkExportQuery = z.strictObject({ format: z.enum(['csv', 'xlsx']).default('csv') });

/** `payment-link-pl_…-2026-11-28.csv`, or `lien-de-paiement-…` in French. */
export function linkFileName(linkId: string, lang: Language, format: 'csv' | 'xlsx', now = new Date()) {
  const name = lang === 'fr' ? 'lien-de-paiement' : 'payment-link';
  return `${name}-${linkId}-${now.toISOString().slice(0, 10)}.${format}`;
}

export type ExportRow = Record<string, string | number>;

/** A record of GET /v1/transactions, read loosely: the three kinds share most of their fields. */
interface AnyRecord {
  type: string;
  reference: string;
  status: string;
  amount: number;
  fee?: number;
  currency: string;
  createdAt: string;
  failure?: { code: string } | null;
  customer?: { name: string; phoneNumber: string };
  mobileMoney?: { provider: { name: string } };
  phoneNumber?: string;
  customerName?: string;
  customerMsisdn?: string;
  originalReference?: string;
  reason?: string;
}

/**
 * A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab or return first) is
 * quoted with `'`: references, reasons and names are typed by merchants and their customers.
 */
export function inert(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A phone number as the transactions list shows it (+225 •• •• 43 21), never in clear. */
const masked = (phone: string | undefined) => (phone ? (maskPhone(phone) ?? '••') : '');

export function exportRow(list: ExportList, record: unknown): ExportRow {
  const r = record as AnyRecord;
  const common = {
    reference: inert(r.reference),
    status: r.status,
    amount: Math.round(r.amount),
    currency: r.currency,
    fee: Math.round(r.fee ?? 0),
    failure: r.failure?.code ?? '',
    createdAt: new Date(r.createdAt).toISOString(),
  };
  const phone = r.customer?.phoneNumber ?? r.phoneNumber ?? r.customerMsisdn;
  if (list === 'refunds')
    return { ...common, payment: inert(r.originalReference ?? ''), reason: inert(r.reason ?? '') };
  if (list === 'payouts')
    return {
      ...common,
      recipient: inert(r.customer?.name ?? r.customerName ?? ''),
      phone: masked(phone),
    };
  return {
    ...common,
    type: r.type,
    phone: masked(phone),
    operator: r.mobileMoney?.provider.name ?? '',
  };
}

/** The search query an export walks: its list's type, pages of PAGE. */
export function searchOf(q: ExportQuery): TransactionSearchQuery {
  const { list, format: _format, ...filters } = q;
  return { ...filters, limit: PAGE, ...(list === 'transactions' ? {} : { type: listType[list] }) };
}

/**
 * The records the filters match, newest first, a page at a time: only one page is held. `withRecord`
 * false skips building the records (the count before an export).
 */
export async function* walkExport(
  search: TransactionSearch,
  merchantId: string,
  q: TransactionSearchQuery,
  withRecord = true,
): AsyncGenerator<unknown> {
  let cursor: { s: number; q: string } | undefined;
  for (;;) {
    const page = await search.search(merchantId, q, cursor);
    if (withRecord) for (const f of page.items) yield await search.recordOf(f);
    else for (const _ of page.items) yield null;
    if (page.next === null || q.reference) return;
    cursor = { s: page.next, q: page.queryKey };
  }
}

/** Whether more than `max` rows match, reading no further than the row after `max`. */
export async function exceeds(
  search: TransactionSearch,
  merchantId: string,
  q: TransactionSearchQuery,
  max = EXPORT_MAX_ROWS,
): Promise<boolean> {
  let n = 0;
  for await (const _ of walkExport(search, merchantId, q, false)) if (++n > max) return true;
  return false;
}

export const headerOf = (columns: readonly Column[], lang: Language) =>
  columns.map((c) => ({ key: c.key, header: c.title[lang] }));

/** `transactions-2026-11-28.csv`, or `remboursements-…` in French. */
export function fileName(list: ExportList, lang: Language, format: 'csv' | 'xlsx', now = new Date()): string {
  const names: Record<ExportList, Text> = {
    transactions: { en: 'transactions', fr: 'transactions' },
    refunds: { en: 'refunds', fr: 'remboursements' },
    payouts: { en: 'payouts', fr: 'decaissements' },
  };
  return `${names[list][lang]}-${now.toISOString().slice(0, 10)}.${format}`;
}
