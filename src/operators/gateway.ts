import type { Country, OperatorCode } from '../domain/operators';
import type { SandboxScenario } from '../domain/transaction';

// The one boundary between activities and mobile-money operators. The HTTP gateway implements it
// against the operator simulator today; real operators' adapters slot in behind the same interface.
// Every request carries our own id (transaction or refund id) as the operator's idempotency key, so
// an activity that retries after a timeout never collects, pays or refunds twice.

/**
 * `unknown`: a status read found no such id at the operator (yet). Like `pending`, it is not an
 * answer: the request may still be in flight, or the operator's read side may lag its write side.
 */
export type OperatorOutcome = 'completed' | 'failed' | 'pending' | 'unknown';

/** The three kinds of operator transactions, each with its own id space at the operator. */
export type OperatorKind = 'collection' | 'disbursement' | 'refund';

/**
 * What the customer recognises a payment by: the merchant's name and the merchant's reference (of
 * the payin, the payout, or the payin a refund reverses). Connectors show it within their
 * provider's limits (src/operators/connectors/customer-text.ts); never our own ids.
 */
export interface CustomerText {
  merchant: string | null;
  reference: string;
}

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
  /**
   * Where a provider that redirects the customer (Wave's checkout) sends them back: the merchant's
   * `action` URLs of a direct payin. Absent, the connector's configured defaults.
   */
  successUrl?: string;
  failureUrl?: string;
  customerText?: CustomerText;
  /** Test mode: the tenant it belongs to, for the sandbox's per-merchant outage controls. */
  sandboxScope?: string;
  /**
   * The transaction's tenant (its record's `merchantId`, which encodes the mode), put in by whoever
   * built the request from the record or the workflow's input: the mode gateway then reads no
   * record to choose sandbox or live. Absent (requests in histories from before 2026-11-29), the
   * record is read.
   */
  scope?: string;
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
  customerText?: CustomerText;
  /** Test mode: the tenant it belongs to, for the sandbox's per-merchant outage controls. */
  sandboxScope?: string;
  /** The transaction's tenant, as in CollectionRequest. */
  scope?: string;
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
  customerText?: CustomerText;
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

/** One line of an operator's statement: what the operator's books say happened to one of our ids. */
export interface StatementEntry {
  kind: OperatorKind;
  /** Our id: the payin or payout transaction id, or the refund id. */
  id: string;
  /** Refunds: the collection they reverse; otherwise null. */
  originalId: string | null;
  operatorReference: string;
  country: Country;
  /** Integer minor units. */
  amount: number;
  currency: string;
  /** Integer minor units charged by the operator. */
  fee: number;
  status: 'completed' | 'failed' | 'pending';
  failureCode: string | null;
  createdAt: string;
  finalizedAt: string | null;
}

/** An operator's books for one UTC day (entries created that day, with their status when generated). */
export interface OperatorStatement {
  operator: OperatorCode;
  date: string;
  generatedAt: string;
  entries: StatementEntry[];
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
  /**
   * Asks the operator to cancel a transaction it has not settled. A cancellation is confirmed only
   * by `failed` with code `CANCELLED`; `completed` means it was too late; anything else (pending,
   * an error) confirms nothing.
   */
  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus>;
  /** The operator's statement of one UTC day (YYYY-MM-DD), for reconciliation. */
  statement(operator: OperatorCode, date: string): Promise<OperatorStatement>;
}

/** The operator did not answer (timeout, network, 5xx): retry with the same id. */
export class OperatorUnavailableError extends Error {
  override readonly name: string = 'OperatorUnavailableError';
}

/**
 * The operator certainly did not take the request, by its documented word (pawaPay's REJECTED
 * PROVIDER_TEMPORARILY_UNAVAILABLE) or because no connection was made: retried like any unanswered
 * request, and the one unanswered request another route may take (src/operators/routes/failover.ts).
 */
export class OperatorNotTakenError extends OperatorUnavailableError {
  override readonly name = 'OperatorNotTakenError';
}

/**
 * The operator refused the request itself (a 4xx other than not-found and conflict): nothing was
 * done, and retrying the same request will not help. Non-retryable in every workflow, and a
 * definitive answer for a request (no partner check).
 */
export class OperatorRejectedError extends Error {
  override readonly name = 'OperatorRejectedError';
}

/**
 * The operator already holds this id with other terms (409). Not a refusal: something with our id
 * exists there, so only its status read tells what happened.
 */
export class OperatorConflictError extends Error {
  override readonly name = 'OperatorConflictError';
}

/** Failure codes of this boundary (src/domain/failures.ts says which are definitive). */
export const operatorFailureCodes = {
  /** The operator refused our request with a 4xx: nothing was done. */
  rejected: 'OPERATOR_REJECTED',
  /** The operator confirmed our cancellation: nothing was done, nothing will be. */
  cancelled: 'CANCELLED',
} as const;
