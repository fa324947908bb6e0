import { createPayinActivities, type PayinActivityDeps } from './payin-activities';
import { createPayinOutcomeActivities } from './payin-outcome-activities';
import { createEventActivities, type EventActivityDeps } from './event-activities';
import { createPayoutActivities, type PayoutActivityDeps } from './payout-activities';
import { createPayoutOutcomeActivities } from './payout-outcome-activities';
import { createRefundActivities, type RefundActivityDeps } from './refund-activities';
import { createRefundOutcomeActivities } from './refund-outcome-activities';
import { createReconciliationActivities, type ReconciliationActivityDeps } from './reconciliation-activities';
import { createRecoveryActivities, type RecoveryActivityDeps } from './recovery-activities';
import { createOperatorActivities, type OperatorActivityDeps } from './operator-activities';
import { createStatementActivities, type StatementActivityDeps } from './statement-activities';
import { createPayoutBatchActivities, type PayoutBatchActivityDeps } from './payout-batch-activities';
import { createWebhookReplayActivities, type WebhookReplayActivityDeps } from './webhook-replay-activities';
import { createWebhookDispatchActivities, ensureAllDispatchers } from './webhook-dispatch-activities';

export type ActivityDeps = RecoveryActivityDeps &
  PayinActivityDeps &
  EventActivityDeps &
  PayoutActivityDeps &
  RefundActivityDeps &
  OperatorActivityDeps &
  ReconciliationActivityDeps &
  StatementActivityDeps &
  PayoutBatchActivityDeps &
  WebhookReplayActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPayinActivities(deps),
    ...createPayinOutcomeActivities(deps),
    ...createEventActivities(deps),
    ...createPayoutActivities(deps),
    ...createPayoutOutcomeActivities(deps),
    ...createRefundActivities(deps),
    ...createRefundOutcomeActivities(deps),
    ...createReconciliationActivities(deps),
    ...createRecoveryActivities({
      ...deps,
      ensureDispatchers: (client) => ensureAllDispatchers(deps, client, deps.recovery.taskQueue),
    }),
    ...createOperatorActivities(deps),
    ...createStatementActivities(deps),
    ...createPayoutBatchActivities(deps),
    ...createWebhookReplayActivities(deps),
    ...createWebhookDispatchActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
