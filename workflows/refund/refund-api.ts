import { defineUpdate } from '@temporalio/workflow';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { SandboxScenario } from '../../src/domain/transaction';
import type { RefundRequest } from '../../src/operators/gateway';
import type { AskState } from '../shared/ask-operator';

// The messages of refunds: the refund desk's `requestRefund` Update, which serialises every refund
// of the payin (workflows/refund/payin-refund-desk.ts), and the input of each refund's own (child) workflow.

/** A merchant's refund request, as the API hands it to the payin's refund desk. */
export interface RefundAsk {
  /** rf_… and tr_…, chosen by the API so a crash-and-retry can be recognised. */
  refundId: string;
  transactionRef: string;
  externalReference: string;
  reason: string;
  /** Integer minor units; null: the whole remainder. */
  amount: number | null;
  sandboxScenario: SandboxScenario | null;
  /** The request's X-Idempotency-Key: the same key asking again gets the same refund back. */
  idempotencyKey: string | null;
  /**
   * sha256 of the request (src/api/idempotency.ts), kept on the refund: a same-key retry with another
   * body is refused. Absent (read as null) in Updates sent before it existed.
   */
  requestFingerprint: string | null;
  /**
   * Whether the request carried metadata (kept by the API under the refund id, never in an Update):
   * false spares openRefund the read of it. Absent in Updates sent before it existed: read.
   */
  withMetadata?: boolean;
  apiKey: string | null;
  /** ISO 8601, when the API received it. */
  requestedAt: string;
}

/**
 * Accepted only when the refund fits (validator, no history when refused): payin in success,
 * window open, amount within what remains, externalReference new. Refusals are ApplicationFailures
 * whose type is the API problem code (REFUND_NOT_ALLOWED, INVALID_AMOUNT, DUPLICATE_REFUND, and
 * INSUFFICIENT_BALANCE from the handler). Answers the refund id once the merchant was debited and
 * the refund stored.
 */
export const requestRefundUpdate = defineUpdate<{ refundId: string }, [RefundAsk]>('requestRefund');

/** The refund's own workflow: asks the operator, then completes, or fails and is reversed. */
export interface RefundWorkflowInput {
  refundId: string;
  payinId: string;
  operator: OperatorCode;
  country: Country;
  /** Integer minor units. */
  amount: number;
  currency: string;
  sandboxScenario: SandboxScenario | null;
  /** Status reads in one run before continuing as new (tests lower it). */
  readsPerRun?: number;
  /** Set when the workflow continued as new while asking the operator. */
  resume?: { ask: AskState; deadline: number };
}

/** What the refund's workflow asks the operator (our refund id its idempotency key). */
export const refundRequestOf = (input: RefundWorkflowInput): RefundRequest => ({
  refundId: input.refundId,
  transactionId: input.payinId,
  operator: input.operator,
  country: input.country,
  amount: input.amount,
  currency: input.currency,
  sandboxScenario: input.sandboxScenario,
});

/** `reversed`: the operator refused, the merchant was credited back, the remainder is free again. */
export type RefundOutcome = 'completed' | 'reversed';

// Built with every other workflow id (pure module, safe in the sandbox).
