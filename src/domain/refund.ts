import type { Currency, MinorAmount } from './money';
import type { Metadata } from './metadata';
import type { Attention, Failure, SandboxScenario } from './transaction';

// A refund of a payin, as the service stores it. Pure: the payin workflow's Update validator uses
// these rules too, so they must stay free of I/O (workflows import this module).

export const refundStatuses = ['pending', 'processing', 'completed', 'failed', 'reversed'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

/** Status of the refund's transaction on the core-system side (the record's `transaction`). */
export type RefundTransactionStatus = 'pending' | 'completed' | 'failed';

export type RefundType = 'full' | 'partial';

export interface Refund {
  /** rf_…: the refund's public reference. */
  id: string;
  /** tr_…: the core-system transaction that moves the money. */
  transactionRef: string;
  merchantId: string;
  payinId: string;
  /** The payin's reference (the record's originalReference). */
  payinReference: string;
  externalReference: string;
  reason: string;
  /** Integer minor units. */
  amount: MinorAmount;
  fee: MinorAmount;
  currency: Currency;
  refundType: RefundType;
  status: RefundStatus;
  transactionStatus: RefundTransactionStatus;
  processedAt: Date | null;
  customerMsisdn: string;
  customerName: string;
  sandboxScenario: SandboxScenario | null;
  failure: Failure | null;
  /** X-Idempotency-Key of the request that created it: its retry gets it back, another key a 409. */
  idempotencyKey: string | null;
  /** sha256 of the creating request, as on transactions; absent on refunds stored before it existed. */
  requestFingerprint?: string | null;
  /** Set while the operator neither settles nor cancels it past its deadline (src/domain/transaction.ts). */
  attention?: Attention | null;
  /** The api_key that asked for it (audit). */
  apiKey: string | null;
  workflowId: string;
  /** The merchant's own key/value pairs given at creation (src/domain/metadata.ts); absent: none. */
  metadata?: Metadata;
  createdAt: Date;
  updatedAt: Date;
}

/** The interface's rule: full when the refund equals the original payment, partial when less. */
export function refundTypeOf(amount: number, originalAmount: number): RefundType {
  return amount === originalAmount ? 'full' : 'partial';
}

/** Why a refund request is refused; each is a problem code of the API. */
export type RefundRefusal = 'REFUND_NOT_ALLOWED' | 'INVALID_AMOUNT' | 'DUPLICATE_REFUND';

export interface RefundableState {
  /** The payin reached success and its refund window is still open. */
  refundable: boolean;
  /** Integer minor units. */
  originalAmount: number;
  /** Completed refunds plus those in flight (reserved): what is no longer refundable. */
  committed: number;
}

/**
 * Decides a refund request against the payin's state: the amount to refund (the whole remainder
 * when none is asked), or why not. Order: not refundable, more than the original, nothing left,
 * more than what is left.
 */
export function decideRefund(
  s: RefundableState,
  requested: number | null,
): { ok: true; amount: number } | { ok: false; refusal: RefundRefusal; remaining?: number } {
  if (!s.refundable) return { ok: false, refusal: 'REFUND_NOT_ALLOWED' };
  const remaining = Math.max(0, s.originalAmount - s.committed);
  // An amount too large says what remains, so the merchant (or the dashboard's field) can correct it.
  if (requested !== null && requested > s.originalAmount)
    return { ok: false, refusal: 'INVALID_AMOUNT', remaining };
  if (remaining <= 0) return { ok: false, refusal: 'REFUND_NOT_ALLOWED' };
  if (requested !== null && requested > remaining) return { ok: false, refusal: 'INVALID_AMOUNT', remaining };
  return { ok: true, amount: requested ?? remaining };
}

/** Money that went back to the customer: completed refunds only (in flight or reversed ones did not). */
export function refundedTotal(refunds: Refund[]): number {
  return refunds.filter((r) => r.status === 'completed').reduce((sum, r) => sum + r.amount, 0);
}
