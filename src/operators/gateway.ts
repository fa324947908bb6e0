import type { Country, OperatorCode } from '../domain/operators';
import type { SandboxScenario } from '../domain/transaction';

// The one boundary between activities and mobile-money operators. The HTTP gateway implements it
// against the operator simulator today; real operators' adapters slot in behind the same interface.
// Every request carries our own id (transaction or refund id) as the operator's idempotency key, so
// an activity that retries after a timeout never collects, pays or refunds twice.

export type OperatorOutcome = 'completed' | 'failed' | 'pending';

export interface CollectionRequest {
  /** Our transaction id: the operator's idempotency key, so a retried request collects once. */
  transactionId: string;
  operator: OperatorCode;
  country: Country;
  msisdn: string;
  /** Integer minor units. */
  amount: number;
  currency: string;
  otp?: string;
  sandboxScenario: SandboxScenario | null;
}

export interface DisbursementRequest {
  /** Our transaction id, the idempotency key. */
  transactionId: string;
  operator: OperatorCode;
  country: Country;
  msisdn: string;
  /** Integer minor units. */
  amount: number;
  currency: string;
  sandboxScenario: SandboxScenario | null;
}

export interface RefundRequest {
  /** Our refund id, the idempotency key. */
  refundId: string;
  /** The collection being reversed (our transaction id). */
  transactionId: string;
  operator: OperatorCode;
  country: Country;
  /** Integer minor units: the whole collection or part of it. */
  amount: number;
  currency: string;
  sandboxScenario: SandboxScenario | null;
}

export interface OperatorStatus {
  outcome: OperatorOutcome;
  operatorReference: string;
  failure?: { code: string; message: string };
  /** Where to send the customer (Wave answers a redirect address). */
  paymentUrl?: string;
  /** Code the customer dials when the push does not appear (MTN CI *133#, Moov CI *155#). */
  ussdCode?: string;
}

export interface PartnerCheckResult {
  /** The operator's partner confirms the customer was debited for this collection. */
  collected: boolean;
  operatorReference?: string;
}

export interface OperatorGateway {
  requestCollection(req: CollectionRequest): Promise<OperatorStatus>;
  collectionStatus(transactionId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus>;
  /** Asks the operator's partner (settlement side) whether a collection that failed was in fact debited. */
  partnerCheck(transactionId: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult>;
  disburse(req: DisbursementRequest): Promise<OperatorStatus>;
  disbursementStatus(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus>;
  /** Reverses a completed collection to the customer, in full or in part. */
  refund(req: RefundRequest): Promise<OperatorStatus>;
  refundStatus(refundId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus>;
}

/** The operator did not answer (timeout, network, 5xx): retry with the same id. */
export class OperatorUnavailableError extends Error {
  override readonly name = 'OperatorUnavailableError';
}

/**
 * The operator refused the request itself (4xx other than not-found): retrying the same request
 * will not help. Workflows may list this name in `nonRetryableErrorTypes`.
 */
export class OperatorRejectedError extends Error {
  override readonly name = 'OperatorRejectedError';
}
