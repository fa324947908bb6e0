import type { Country, OperatorCode, ProviderName } from './operators';
import type { Currency, MinorAmount } from './money';
import type { Metadata } from './metadata';

// The lifecycle of a payin or payout as the service stores it.
export const transactionKinds = ['payin', 'payout'] as const;
export type TransactionKind = (typeof transactionKinds)[number];

export const sandboxScenarios = ['completed', 'failed', 'pending'] as const;
export type SandboxScenario = (typeof sandboxScenarios)[number];

/** Every status a payin takes (src/domain/final-status.ts says which are final). */
export const payinStatuses = ['pending', 'processing', 'success', 'failed', 'expired'] as const;
/** Every status a payout takes: `processed` once the operator took it, `reversed` once refunded back. */
export const payoutStatuses = [
  'pending',
  'processing',
  'processed',
  'completed',
  'failed',
  'reversed',
  'expired',
] as const;
export type PayinStatus = (typeof payinStatuses)[number];
export type PayoutStatus = (typeof payoutStatuses)[number];
export type TransactionStatus = PayinStatus | PayoutStatus;

export type ConfirmationStatus = 'none' | 'pending' | 'accepted' | 'declined';

export interface Failure {
  code: string;
  message: string;
  provider: ProviderName | null;
}

/**
 * Set while a transaction needs a person: past our deadline, the operator neither settled nor
 * cancelled it (money stays where it is until it answers). Cleared by the final state.
 */
export interface Attention {
  reason: 'OPERATOR_UNRESOLVED';
  /** ISO 8601. */
  since: string;
}

export interface Transaction {
  id: string;
  merchantId: string;
  kind: TransactionKind;
  reference: string;
  /** 'standard': a payout of POST /v1/payout (no mobileMoney in its record). */
  flow: 'direct' | 'session' | 'standard';
  status: TransactionStatus;
  confirmationRequired: boolean;
  confirmationStatus: ConfirmationStatus;
  paymentUrl: string | null;
  customer: { name: string; phoneNumber: string };
  country: Country;
  provider: ProviderName | null;
  currency: Currency;
  /** Integer minor units. */
  amount: MinorAmount;
  fee: MinorAmount;
  chargedAmount: MinorAmount;
  payFee: boolean;
  sandboxScenario: 'completed' | 'failed' | 'pending' | null;
  failure: Failure | null;
  /** Where the checkout page sends the customer once the payin ends (the merchant's action URLs). */
  action?: { successUrl: string; failureUrl: string };
  workflowId: string;
  /** Payouts only: how it was asked for and what the operator did (src/contract/records/payout-record.ts). */
  payout?: PayoutDetails;
  /**
   * Payins only: ids of its refunds, written by its workflow (one writer at a time) once each is
   * opened. Reads fetch each by `_id` instead of searching the refunds. Absent on documents written
   * before it existed.
   */
  refundIds?: string[];
  /**
   * Payins only: the end of the refund window, written with the success by payin workflows that
   * close at their final status (their refunds go to the payin's refund desk,
   * workflows/refund/payin-refund-desk.ts). Absent: the payin's own workflow keeps the window open.
   */
  refundableUntil?: Date;
  /** X-Idempotency-Key of the request that created it: its retry gets it back, another key a 409. */
  idempotencyKey?: string | null;
  /**
   * sha256 of the creating request (method, path, canonical body): a same-key retry with another body
   * is refused even once the idempotency record is gone. Absent on records stored before it existed.
   */
  requestFingerprint?: string | null;
  attention?: Attention | null;
  /** The merchant's own key/value pairs given at creation (src/domain/metadata.ts); absent: none. */
  metadata?: Metadata;
  /** Payins only: the payment link (pl_…) whose page opened this session (docs/payment-links.md). */
  paymentLinkId?: string;
  /** Sessions only: the operators the checkout offers (a payment link's); absent: the country's. */
  operators?: OperatorCode[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A payout's own facts. `shape` is the request's (direct flow, standard flat A, standard with
 * accountId B) and decides the public record; `accountId` is the ledger account debited.
 */
export interface PayoutDetails {
  shape: 'direct' | 'A' | 'B';
  accountId: string;
  /**
   * Where the debit comes from when not `accountId`: the hold an atomic bulk payout placed
   * (docs/bulk-payouts.md). A reversal still returns the money to `accountId`.
   */
  fundedFrom?: string;
  /** mtr_…: the transfer's system-side reference, shown as `reference` in the shape B record. */
  transferReference: string;
  /** Set once the operator took the transfer (status processed). */
  operatorReference: string | null;
  /** ISO 8601: when the operator took it, then when it reached its final outcome. */
  processedAt: string | null;
  operatorStatus: 'pending' | 'completed' | 'failed' | null;
}
