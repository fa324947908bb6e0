import type { TransactionRecord } from '../schemas/transaction-record';
import { toMajor } from '../../domain/money';
import type { Transaction } from '../../domain/transaction';
import { isLiveScope } from '../../domain/modes';
import { ussdCodeOf } from '../../domain/providers';
import type { Refund } from '../../domain/refund';
import { toRefundRecord } from './refund-record';

/**
 * The public record of a stored transaction. mobileMoney appears only for direct flows. `refunds`
 * (a payin's refunds and refunded total, minor units) is added by the payin status read.
 */
export function toTransactionRecord(
  tx: Transaction,
  refunds?: { refunds: Refund[]; refunded: number },
): TransactionRecord {
  return {
    id: tx.id,
    type: tx.kind,
    reference: tx.reference,
    status: tx.status,
    confirmationRequired: tx.confirmationRequired,
    confirmationStatus: tx.confirmationStatus,
    paymentUrl: tx.paymentUrl,
    customer: { name: tx.customer.name, phoneNumber: tx.customer.phoneNumber },
    ...(tx.flow === 'direct' && tx.provider ? { mobileMoney: { provider: { name: tx.provider } } } : {}),
    isDirect: tx.flow === 'direct',
    payFee: tx.payFee,
    createdAt: new Date(tx.createdAt).toISOString(),
    livemode: isLiveScope(tx.merchantId),
    amount: toMajor(tx.amount, tx.currency),
    fee: toMajor(tx.fee, tx.currency),
    chargedAmount: toMajor(tx.chargedAmount, tx.currency),
    currency: tx.currency,
    failure: tx.failure ?? null,
    ...(tx.kind === 'payin' && tx.flow === 'direct' && tx.provider && ussdCodeOf(tx.provider)
      ? { ussdCode: ussdCodeOf(tx.provider)! }
      : {}),
    ...(refunds
      ? {
          refundedAmount: toMajor(refunds.refunded, tx.currency),
          refunds: refunds.refunds.map(toRefundRecord),
        }
      : {}),
    metadata: tx.metadata ?? {},
    ...(tx.paymentLinkId ? { paymentLinkId: tx.paymentLinkId } : {}),
  };
}
