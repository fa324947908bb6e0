import type { RefundRecord } from '../schemas/refund';
import { toMajor } from '../../domain/money';
import { isLiveScope } from '../../domain/modes';
import type { Refund } from '../../domain/refund';

/** The public record of a stored refund (amounts in major units, as in transaction records). */
export function toRefundRecord(r: Refund): RefundRecord {
  return {
    type: 'refund',
    reference: r.id,
    originalReference: r.payinReference,
    externalReference: r.externalReference,
    amount: toMajor(r.amount, r.currency),
    fee: toMajor(r.fee, r.currency),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    refundType: r.refundType,
    customerMsisdn: r.customerMsisdn,
    customerName: r.customerName,
    createdAt: new Date(r.createdAt).toISOString(),
    livemode: isLiveScope(r.merchantId),
    transaction: {
      reference: r.transactionRef,
      status: r.transactionStatus,
      processedAt: r.processedAt ? new Date(r.processedAt).toISOString() : null,
    },
    failure: r.failure ?? null,
    metadata: r.metadata ?? {},
  };
}
