import { createPayinActivities, type PayinActivityDeps } from './payin-activities';
import { createPayinOutcomeActivities } from './payin-outcome-activities';
import type { EventActivityDeps } from '../shared/event-activities';
import { createOperatorActivities, type OperatorActivityDeps } from '../shared/operator-activities';
import { registered } from '../shared/registration';

/** What the payin's workflows (workflows/payin/) schedule: the activities this flow registers. */
export const payinActivityNames = [
  'requestCollection',
  'readCollectionAndSettle',
  'partnerCheck',
  'recordPayinState',
  'recordPayinOutcome',
  'forgetOtp',
  'cancelAtOperator',
  'flagForOps',
] as const;

export type PayinFlowDeps = PayinActivityDeps & EventActivityDeps & OperatorActivityDeps;

/** The payin's activities, as the worker registers them. */
export function createPayinFlowActivities(deps: PayinFlowDeps) {
  return registered(
    {
      ...createPayinActivities(deps),
      ...createPayinOutcomeActivities(deps),
      ...createOperatorActivities(deps),
    },
    payinActivityNames,
  );
}
