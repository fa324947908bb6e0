import type { AccountPayoutRecord } from '../schemas/payout';
import type { TransactionRecord } from '../schemas/transaction-record';
import { minorUnitDigits, toMajor } from '../../domain/money';
import { isLiveScope } from '../../domain/modes';
import type { Transaction } from '../../domain/transaction';
import { toTransactionRecord } from './transaction-record';

// A payout answers in the shape it was created with: the transaction record (direct flow, with
// mobileMoney; standard shape A, without) or the alternative record of shape B (with accountId).

/** Minor units as decimal text with two decimals: 1500 XOF -> "1500.00", 1250 cents -> "12.50". */
export function decimalText(minor: number, currency: Transaction['currency']): string {
  return toMajor(minor, currency).toFixed(Math.max(2, minorUnitDigits[currency]));
}

/** Shape B: `reference` is ours (mtr_), the merchant's is `customerReference`; `transaction` is {} until processed. */
export function toAccountPayoutRecord(tx: Transaction): AccountPayoutRecord {
  const p = tx.payout;
  if (!p) throw new Error(`transaction ${tx.id} is not a payout`);
  const processed = p.operatorStatus !== null && p.processedAt !== null;
  return {
    type: 'payout',
    fee: toMajor(tx.fee, tx.currency),
    reference: p.transferReference,
    phoneNumber: tx.customer.phoneNumber,
    customerName: tx.customer.name,
    amount: toMajor(tx.amount, tx.currency),
    chargedAmount: toMajor(tx.chargedAmount, tx.currency),
    status: tx.status as AccountPayoutRecord['status'],
    currency: tx.currency,
    customerReference: tx.reference,
    confirmationRequired: tx.confirmationRequired,
    confirmationStatus: tx.confirmationStatus,
    transaction: processed
      ? {
          reference: p.operatorReference ?? p.transferReference,
          status: p.operatorStatus!,
          processedAt: p.processedAt!,
          phoneNumber: tx.customer.phoneNumber,
          amount: decimalText(tx.amount, tx.currency),
          fees: decimalText(tx.fee, tx.currency),
          chargedAmount: decimalText(tx.chargedAmount, tx.currency),
          currency: tx.currency,
        }
      : {},
    createdAt: new Date(tx.createdAt).toISOString(),
    livemode: isLiveScope(tx.merchantId),
    failure: tx.failure ?? null,
    metadata: tx.metadata ?? {},
  };
}

/** The public record of any payin or payout, in the shape its creation answered (events use it too). */
export function toPublicRecord(
  tx: Transaction,
  refunds?: Parameters<typeof toTransactionRecord>[1],
): TransactionRecord | AccountPayoutRecord {
  return tx.kind === 'payout' && tx.payout?.shape === 'B'
    ? toAccountPayoutRecord(tx)
    : toTransactionRecord(tx, refunds);
}
