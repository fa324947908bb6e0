import { createEventActivities } from '../shared/event-activities';
import { createReconciliationActivities, type ReconciliationActivityDeps } from './reconciliation-activities';
import { createRecoveryActivities, type RecoveryActivityDeps } from './recovery-activities';
import { createStatementActivities, type StatementActivityDeps } from './statement-activities';
import { registered } from '../shared/registration';

/**
 * What the operations' workflows (workflows/operations/: reconciliation, recovery sweep, statement,
 * publish-event) schedule.
 */
export const operationsActivityNames = [
  'reconcileOperatorDay',
  'recoverUnstartedWorkflows',
  'generateStatement',
  'failStatement',
  'publishStatementReady',
  'recordEvent',
] as const;

export type OperationsFlowDeps = ReconciliationActivityDeps & RecoveryActivityDeps & StatementActivityDeps;

/** The operations' activities, as the worker registers them. */
export function createOperationsFlowActivities(deps: OperationsFlowDeps) {
  return registered(
    {
      ...createReconciliationActivities(deps),
      ...createRecoveryActivities(deps),
      ...createStatementActivities(deps),
      ...createEventActivities(deps),
    },
    operationsActivityNames,
  );
}
