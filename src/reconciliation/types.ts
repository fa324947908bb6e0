import type { OperatorCode } from '../domain/operators';
import type { OperatorKind, StatementEntry } from '../operators/gateway';

// The vocabulary of reconciliation (docs/reconciliation.md): what can disagree between an operator's
// statement of a day and our records and ledger, and what was done about it.

export const mismatchClasses = [
  /** The operator collected; we have not credited the merchant (a payin we ended failed/expired). */
  'collected_not_credited',
  /** The operator paid the beneficiary; we gave the merchant its money back. */
  'paid_but_reversed',
  /** The operator refunded the customer; we gave the merchant its money back. */
  'refunded_but_reversed',
  /** Both sides know the id, with another amount or currency. */
  'amount_mismatch',
  /** On the operator's statement, unknown to us. */
  'unknown_to_us',
  /** We say money moved for an id the operator's statements (that day and the next) do not list. */
  'unknown_to_operator',
  /** We are final; the operator still says pending: money may still move there. */
  'pending_at_operator',
  /** The operator failed the collection; we credited the merchant. */
  'failed_but_credited',
  /** The operator failed the disbursement or refund; we call it completed (the merchant paid for nothing). */
  'failed_but_completed',
  /** The operator is final; our workflow has not caught up yet (it will find the answer itself). */
  'pending_on_our_side',
] as const;
export type MismatchClass = (typeof mismatchClasses)[number];

/**
 * `credited`: corrected automatically (the payin credited once, recorded success, `payin.corrected`
 * sent). `in_progress`: nothing done, the transaction's workflow is still running and will resolve
 * it. `needs_person`: recorded with both sides' evidence for ops (docs/reconciliation.md says how).
 */
export const findingActions = ['credited', 'in_progress', 'needs_person'] as const;
export type FindingAction = (typeof findingActions)[number];

/** Our side of one id: the record as stored, and which of its ledger movements exist (amount or null). */
export interface OurView {
  kind: 'payin' | 'payout' | 'refund';
  merchantId: string;
  /** The merchant's reference (a refund: its payin's). */
  reference: string;
  status: string;
  amount: number;
  currency: string;
  fee: number;
  failureCode: string | null;
  /** By movement (`payin-credit`, `payout-reversal`, …): the amount recorded under its sourceRef, or null. */
  ledger: Record<string, number | null>;
  updatedAt: string | null;
}

export interface Finding {
  class: MismatchClass;
  kind: OperatorKind;
  /** Our id (transaction or refund id). */
  id: string;
  action: FindingAction;
  needsPerson: boolean;
  /** One sentence for ops: what disagrees. */
  detail: string;
  /** The operator's statement entry; null when the operator does not list the id. */
  operator: StatementEntry | null;
  /** Our record as it was found (before any correction); null when we do not know the id. */
  ours: OurView | null;
}

export interface ReportTotals {
  /** Entries on the operator's statement of the day. */
  statement: number;
  /** Our operator-facing ids asked of this operator that day (the ask index). */
  asked: number;
  /** Entries on which both sides agree (final or not). */
  matched: number;
  /** Of those, still pending on both sides. */
  pending: number;
  findings: number;
  corrected: number;
  inProgress: number;
  needsPerson: number;
}

export type ReconciliationTrigger = 'schedule' | 'workflow' | 'cli';

export interface ReconciliationReport {
  /** `<operator>:<date>:<run>` */
  id: string;
  operator: OperatorCode;
  /** The UTC day reconciled, YYYY-MM-DD. */
  date: string;
  /** 1, 2, 3… per operator and day. */
  run: number;
  trigger: ReconciliationTrigger;
  /** The workflow that ran it (schedule or workflow trigger). */
  workflowId: string | null;
  startedAt: string;
  finishedAt: string;
  statementGeneratedAt: string;
  totals: ReportTotals;
  /** True when a finding needs a person: the CLI then exits non-zero. */
  needsPerson: boolean;
  findings: Finding[];
}
