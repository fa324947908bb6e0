import { createPayinActivities, type PayinActivityDeps } from './payin/payin-activities';
import { createPayinOutcomeActivities } from './payin/payin-outcome-activities';
import { createEventActivities, type EventActivityDeps } from './shared/event-activities';
import { createPayoutActivities, type PayoutActivityDeps } from './payout/payout-activities';
import { createPayoutOutcomeActivities } from './payout/payout-outcome-activities';
import { createRefundActivities, type RefundActivityDeps } from './refund/refund-activities';
import { createRefundOutcomeActivities } from './refund/refund-outcome-activities';
import {
  createReconciliationActivities,
  type ReconciliationActivityDeps,
} from './operations/reconciliation-activities';
import { createRecoveryActivities, type RecoveryActivityDeps } from './operations/recovery-activities';
import { createOperatorActivities, type OperatorActivityDeps } from './shared/operator-activities';
import { createStatementActivities, type StatementActivityDeps } from './operations/statement-activities';
import { createPayoutBatchActivities, type PayoutBatchActivityDeps } from './payout/payout-batch-activities';
import {
  createWebhookReplayActivities,
  type WebhookReplayActivityDeps,
} from './webhooks/webhook-replay-activities';
import {
  createWebhookDispatchActivities,
  ensureAllDispatchers,
} from './webhooks/webhook-dispatch-activities';

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

/**
 * Single steps only the merged activities call now: no workflow and no golden history (the 1.0
 * shapes, test/golden) schedules them, so the worker does not register them. Workflow tests still
 * stub them one by one to build the merged ones (test/workflows/helpers/stub-activities.ts).
 */
const unscheduled = [
  'creditMerchantForPayin',
  'readCollectionStatus',
  'ensurePayoutDebited',
  'recordPayoutState',
  'readRefundStatus',
  'refundEventInput',
  'emitRefundEvent',
  'readDisbursementStatus',
] as const;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(
  deps: ActivityDeps,
): Omit<ReturnType<typeof allActivities>, (typeof unscheduled)[number]> {
  const all: Partial<ReturnType<typeof allActivities>> = allActivities(deps);
  for (const name of unscheduled) delete all[name];
  return all as Omit<ReturnType<typeof allActivities>, (typeof unscheduled)[number]>;
}

function allActivities(deps: ActivityDeps) {
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

/** The activities and the single steps merged ones are built from (workflow tests stub both). */
export type Activities = ReturnType<typeof allActivities>;
