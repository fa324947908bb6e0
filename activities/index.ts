import { createPayinActivities, type PayinActivityDeps } from './payin-activities';
import { createEventActivities, type EventActivityDeps } from './event-activities';

export type ActivityDeps = PayinActivityDeps & EventActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPayinActivities(deps),
    ...createEventActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
