import { payinStatuses, payoutStatuses, type PayinStatus, type PayoutStatus } from './transaction';
import { refundStatuses, type RefundStatus } from './refund';

// The one rule of a final status, for every kind of money movement. Pure (workflows import it).
// A status is final when its record's outcome is decided: our workflow is done with it, no workflow
// may be started for it any more, and nothing changes it by itself (only a person or the
// reconciliation's correction of a failed payin may). docs/decisions/architecture/one-final-status.md

/** What has a status of its own: transactions (payin, payout) and refunds. */
export type StatusKind = 'payin' | 'payout' | 'refund';
export const statusKinds = ['payin', 'payout', 'refund'] as const satisfies readonly StatusKind[];

export interface StatusOf {
  payin: PayinStatus;
  payout: PayoutStatus;
  refund: RefundStatus;
}

/** Every status of each kind, in lifecycle order. */
export const statusesOf: { [K in StatusKind]: readonly StatusOf[K][] } = {
  payin: payinStatuses,
  payout: payoutStatuses,
  refund: refundStatuses,
};

/** The status each kind has when its create answers (the 201): what a timeline starts with. */
export const statusAtCreation: { [K in StatusKind]: StatusOf[K] } = {
  payin: 'processing',
  payout: 'pending',
  refund: 'processing',
};

const finalStatuses: { [K in StatusKind]: ReadonlySet<string> } = {
  payin: new Set<PayinStatus>(['success', 'failed', 'expired']),
  payout: new Set<PayoutStatus>(['completed', 'failed', 'reversed', 'expired']),
  refund: new Set<RefundStatus>(['completed', 'failed', 'reversed']),
};

/**
 * Whether `status` is final for `kind`. A string that is not a status of the kind (another kind's,
 * or none) is not final.
 */
export function isFinal(kind: StatusKind, status: string): boolean {
  return finalStatuses[kind].has(status);
}

/** Whether `kind` is one that has a status (an event's subject may be a batch or a statement). */
export function isStatusKind(kind: string): kind is StatusKind {
  return (statusKinds as readonly string[]).includes(kind);
}
