import type { Fault } from '../helpers/fault-proxy';

// The fault suite's plans (test/faults/faults.test.ts): a plan per transaction, its kind, what the
// operator will do, and the faults on each step of its conversation with the operator. Drawn in
// draw.ts, applied by the proxy rules of proxy-rules.ts.

export type OperatorPath = 'collections' | 'disbursements' | 'refunds';
export type BookKind = 'collection' | 'disbursement' | 'refund';
export const bookKindOf: Record<OperatorPath, BookKind> = {
  collections: 'collection',
  disbursements: 'disbursement',
  refunds: 'refund',
};
export const pathOfBook: Record<BookKind, OperatorPath> = {
  collection: 'collections',
  disbursement: 'disbursements',
  refund: 'refunds',
};

/** One fault on one step, applied to this many matching requests of the transaction. */
export interface StepFault {
  label: string;
  fault: Fault;
  times: number;
}

/** Status reads answer `pending` (the operator's real outcome hidden) until our deadline plus this. */
export interface PendingWindow {
  label: 'reads:pending-past-deadline' | 'reads:pending-before-deadline';
  /** Milliseconds after our deadline (negative: before it). */
  afterDeadlineMs: number;
}

export interface Schedule {
  /** The request that asks the operator to act (collection, disbursement, refund). */
  request: StepFault | null;
  /** Status reads (and the answers to repeated requests, for a pending window). */
  reads: StepFault | PendingWindow | null;
  /** The operator's callbacks to the API. */
  callback: StepFault | null;
  /** Cancellations we ask for past our deadline. */
  cancel: StepFault | null;
}

export type Provider = 'MTN' | 'ORANGE' | 'MOOV' | 'WAVE';

interface PlanBase {
  /** Position in the run; also what makes the amount unique. */
  index: number;
  reference: string;
  /** Integer XOF, unique per operator path in the run: how a request is told from the others. */
  amount: number;
  schedule: Schedule;
  /** Set while running. */
  id: string | null;
  /** When it was asked of us (the customer's confirmation, for a session). */
  startedAt: number | null;
  /**
   * When the operator was asked, moved along by the retries of that first request (for 45 s at
   * most: a retry after a killed worker's activity timed out is one): about where our deadline
   * starts counting, whatever faults or kills delayed the first answer.
   */
  askedAt: number | null;
  /** When its status was first read: our workflow has its deadline by then, whatever delayed it. */
  readAt: number | null;
}

/**
 * Where a plan's deadline is counted from: its first status read, else its last first request,
 * else its creation. A worker killed around the request can hold a workflow for tens of seconds
 * before its deadline is even set; its first read comes after that, so a window counted from it
 * reaches past the real deadline (by more than planned, when the first read was late).
 */
export const anchorOf = (p: Plan): number | null => p.readAt ?? p.askedAt ?? p.startedAt;

export interface PayinPlan extends PlanBase {
  kind: 'payin';
  flow: 'direct' | 'session';
  provider: Provider;
  scenario: 'completed' | 'failed' | 'pending';
  /** A pending collection the customer approves this long after our deadline (negative: before). */
  lateApprovalMs: number | null;
  /** A clean payin that carries a refund (no fault of its own). */
  carrier: boolean;
}

export interface PayoutPlan extends PlanBase {
  kind: 'payout';
  scenario: 'completed' | 'failed' | 'pending';
  /** A pending disbursement the operator settles this long after our deadline (negative: before). */
  lateSettle: { afterDeadlineMs: number; outcome: 'completed' | 'failed' } | null;
}

export interface RefundPlan extends PlanBase {
  kind: 'refund';
  scenario: 'completed' | 'failed';
  /** The clean payin it refunds. */
  payin: PayinPlan;
}

export type Plan = PayinPlan | PayoutPlan | RefundPlan;

export const operatorPathOf = (p: Plan): OperatorPath =>
  p.kind === 'payin' ? 'collections' : p.kind === 'payout' ? 'disbursements' : 'refunds';
