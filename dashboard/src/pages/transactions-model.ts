// One row shape for the three kinds of records GET /v1/transactions returns.
import type { TransactionPage } from '../api/dashboard';

export type AnyTransaction = TransactionPage['data'][number];

export interface TransactionRow {
  reference: string;
  type: 'payin' | 'payout' | 'refund';
  status: string;
  amount: number;
  currency: string;
  createdAt: string;
  phone: string | null;
  operator: string | null;
}

export function toRow(tx: AnyTransaction): TransactionRow {
  const base = {
    reference: tx.reference,
    status: tx.status,
    amount: tx.amount,
    currency: tx.currency,
    createdAt: tx.createdAt,
  };
  if (tx.type === 'refund') return { ...base, type: 'refund', phone: tx.customerMsisdn, operator: null };
  if ('customer' in tx)
    return {
      ...base,
      type: tx.type,
      phone: tx.customer.phoneNumber,
      operator: tx.mobileMoney?.provider.name ?? null,
    };
  return { ...base, type: 'payout', phone: tx.phoneNumber, operator: null };
}

export const statuses = [
  'pending',
  'processing',
  'processed',
  'success',
  'completed',
  'failed',
  'reversed',
  'expired',
] as const;
export const providers = [
  'ORANGE',
  'MTN',
  'MOOV',
  'WAVE',
  'ORANGE_CI',
  'MTN_CI',
  'MOOV_CI',
  'WAVE_CI',
  'ORANGE_CM',
  'MTN_CM',
] as const;
export const countries = ['CI', 'CM'] as const;
export type Country = (typeof countries)[number];
/** Each country pays in one currency (the server refuses another). */
export const currencyOf: Record<Country, 'XOF' | 'XAF'> = { CI: 'XOF', CM: 'XAF' };
export const types = ['payin', 'payout', 'refund'] as const;

/** A day chosen in a date input, as the instant its local midnight is (`to` adds a day: exclusive). */
export function dayStart(day: string, plusDays = 0): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + plusDays);
  return d.toISOString();
}
