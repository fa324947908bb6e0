import { createPayinActivities, type PayinActivityDeps } from './payin-activities';

export type ActivityDeps = PayinActivityDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPayinActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
