import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { Failure, TransactionStatus } from '../../src/domain/transaction';
import type { RefundRefusal } from '../../src/domain/refund';

// The legacy payin workflow's (legacy/payin.ts) types and pure helpers, moved out of it unchanged:
// none of them issues a command, so the workflow's histories replay as they ran. Do not edit.

/** Partner checks after an ambiguous failure: 5 min, 10 min ... capped at 2 hours (by default). */
export const partnerCheckDelayMs = (attempt: number, intervalMs = 300_000) =>
  Math.min(intervalMs * 2 ** attempt, intervalMs * 24);

export type Outcome = { kind: 'success' } | { kind: 'failed'; failure: Failure } | { kind: 'expired' };

/** A refund of this payin as the workflow tracks it; `opening` while the merchant is being debited. */
export interface RefundSlot {
  refundId: string;
  externalReference: string;
  idempotencyKey: string | null;
  /** Integer minor units, reserved from the refundable remainder until the refund is reversed. */
  amount: number;
  phase: 'opening' | 'processing' | 'completed' | 'reversed';
}

const refusalMessages: Record<RefundRefusal, string> = {
  REFUND_NOT_ALLOWED:
    'This payment is not refundable (not successful, fully refunded, or its refund window closed).',
  INVALID_AMOUNT: 'The amount is greater than what this payment still allows.',
  DUPLICATE_REFUND: 'A refund of this payment already uses this externalReference.',
};

export function isFinal(status: TransactionStatus): boolean {
  return status !== 'processing' && status !== 'pending';
}

export function refusal(type: RefundRefusal): ApplicationFailure {
  return ApplicationFailure.create({ type, message: refusalMessages[type], nonRetryable: true });
}

export function failureOf(code: string, message: string, provider: string | null): Failure {
  return { code, message, provider: provider as Failure['provider'] };
}

/** The refusal a refund gets when the merchant's balance does not cover it; null for any other failure. */
export function insufficientBalance(err: unknown): ApplicationFailure | null {
  const type =
    err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause.type : null;
  // The activity's type was INSUFFICIENT_BALANCE before the ledger's own type was used everywhere.
  if (type === 'INSUFFICIENT_BALANCE' || type === 'InsufficientFundsError')
    return ApplicationFailure.create({
      type,
      message: 'The merchant balance does not cover this refund.',
      nonRetryable: true,
    });
  return null;
}
