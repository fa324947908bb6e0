import type { createEventActivities } from './shared/event-activities';
import type { createOperatorActivities } from './shared/operator-activities';
import type { createPayinActivities } from './payin/payin-activities';
import type { createPayinOutcomeActivities } from './payin/payin-outcome-activities';
import type { createPayoutActivities } from './payout/payout-activities';
import type { createPayoutOutcomeActivities } from './payout/payout-outcome-activities';
import type { createPayoutBatchActivities } from './payout/payout-batch-activities';
import type { createRefundActivities } from './refund/refund-activities';
import type { createRefundOutcomeActivities } from './refund/refund-outcome-activities';
import type { createReconciliationActivities } from './operations/reconciliation-activities';
import type { createRecoveryActivities } from './operations/recovery-activities';
import type { createStatementActivities } from './operations/statement-activities';
import {
  ensureAllDispatchers,
  type createWebhookDispatchActivities,
} from './webhooks/webhook-dispatch-activities';
import type { createWebhookReplayActivities } from './webhooks/webhook-replay-activities';
import { createPayinFlowActivities, payinActivityNames, type PayinFlowDeps } from './payin';
import { createPayoutFlowActivities, payoutActivityNames, type PayoutFlowDeps } from './payout';
import { createRefundFlowActivities, refundActivityNames, type RefundFlowDeps } from './refund';
import { createWebhookFlowActivities, webhookActivityNames, type WebhookFlowDeps } from './webhooks';
import {
  createOperationsFlowActivities,
  operationsActivityNames,
  type OperationsFlowDeps,
} from './operations';

// The worker registers the union of the flows' activities: each flow (activities/<flow>/index.ts)
// names the ones its workflows schedule, and nothing else is registered. The single steps the
// merged activities are built from (creditMerchantForPayin, readRefundStatus, ...) stay out: no
// workflow and no golden history (the 1.0 shapes, test/golden) schedules them; workflow tests still
// stub them one by one to build the merged ones (test/workflows/helpers/stub-activities.ts).

export type ActivityDeps = PayinFlowDeps &
  PayoutFlowDeps &
  RefundFlowDeps &
  WebhookFlowDeps &
  OperationsFlowDeps;

/** Each flow and the activities it registers (test/unit/activity-registration.test.ts). */
export const flowActivityNames = {
  payin: payinActivityNames,
  payout: payoutActivityNames,
  refund: refundActivityNames,
  webhooks: webhookActivityNames,
  operations: operationsActivityNames,
} as const;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPayinFlowActivities(deps),
    ...createPayoutFlowActivities(deps),
    ...createRefundFlowActivities(deps),
    ...createWebhookFlowActivities(deps),
    ...createOperationsFlowActivities({
      ...deps,
      ensureDispatchers: (client) => ensureAllDispatchers(deps, client, deps.recovery.taskQueue),
    }),
  };
}

/**
 * Every activity the factories build: the registered ones and the single steps merged ones are made
 * of (workflow tests stub both).
 */
export type Activities = ReturnType<typeof createPayinActivities> &
  ReturnType<typeof createPayinOutcomeActivities> &
  ReturnType<typeof createEventActivities> &
  ReturnType<typeof createPayoutActivities> &
  ReturnType<typeof createPayoutOutcomeActivities> &
  ReturnType<typeof createRefundActivities> &
  ReturnType<typeof createRefundOutcomeActivities> &
  ReturnType<typeof createReconciliationActivities> &
  ReturnType<typeof createRecoveryActivities> &
  ReturnType<typeof createOperatorActivities> &
  ReturnType<typeof createStatementActivities> &
  ReturnType<typeof createPayoutBatchActivities> &
  ReturnType<typeof createWebhookReplayActivities> &
  ReturnType<typeof createWebhookDispatchActivities>;
