import { createPayinActivities, type PayinActivityDeps } from './payin-activities';
import { createEventActivities, type EventActivityDeps } from './event-activities';
import { createPayoutActivities, type PayoutActivityDeps } from './payout-activities';
import { createRefundActivities, type RefundActivityDeps } from './refund-activities';

export type ActivityDeps = PayinActivityDeps & EventActivityDeps & PayoutActivityDeps & RefundActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPayinActivities(deps),
    ...createEventActivities(deps),
    ...createPayoutActivities(deps),
    ...createRefundActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
