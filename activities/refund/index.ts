import { createRefundActivities, type RefundActivityDeps } from './refund-activities';
import { createRefundOutcomeActivities } from './refund-outcome-activities';
import type { EventActivityDeps } from '../shared/event-activities';
import { createOperatorActivities, type OperatorActivityDeps } from '../shared/operator-activities';
import { registered } from '../shared/registration';

/** What the refund's workflows (workflows/refund/: the payin's refund desk, a refund) schedule. */
export const refundActivityNames = [
  'openRefundDesk',
  'listPayinRefunds',
  'openRefund',
  'failRefund',
  'reverseRefund',
  'announceAndRequestRefund',
  'readRefundAndSettle',
  'recordRefundEnd',
  'cancelAtOperator',
  'flagForOps',
] as const;

export type RefundFlowDeps = RefundActivityDeps & EventActivityDeps & OperatorActivityDeps;

/** The refund's activities, as the worker registers them. */
export function createRefundFlowActivities(deps: RefundFlowDeps) {
  return registered(
    {
      ...createRefundActivities(deps),
      ...createRefundOutcomeActivities(deps),
      ...createOperatorActivities(deps),
    },
    refundActivityNames,
  );
}
