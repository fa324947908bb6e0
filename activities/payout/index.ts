import { createPayoutActivities, type PayoutActivityDeps } from './payout-activities';
import { createPayoutOutcomeActivities } from './payout-outcome-activities';
import { createPayoutBatchActivities, type PayoutBatchActivityDeps } from './payout-batch-activities';
import { createOperatorActivities, type OperatorActivityDeps } from '../shared/operator-activities';
import { registered } from '../shared/registration';

/** What the payout's workflows (workflows/payout/: a payout, a batch) schedule: what this flow registers. */
export const payoutActivityNames = [
  'payoutProviderState',
  'beginPayout',
  'requestDisbursement',
  'readDisbursementAndSettle',
  'recordPayoutStep',
  'recordPayoutEnd',
  'cancelAtOperator',
  'flagForOps',
  'batchProgress',
  'finishBatch',
  'completeBatch',
] as const;

export type PayoutFlowDeps = PayoutActivityDeps & PayoutBatchActivityDeps & OperatorActivityDeps;

/** The payout's activities, as the worker registers them. */
export function createPayoutFlowActivities(deps: PayoutFlowDeps) {
  return registered(
    {
      ...createPayoutActivities(deps),
      ...createPayoutOutcomeActivities(deps),
      ...createPayoutBatchActivities(deps),
      ...createOperatorActivities(deps),
    },
    payoutActivityNames,
  );
}
