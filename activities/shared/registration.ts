// How a flow registers its activities (activities/<flow>/index.ts): out of the factories it is
// built from, only the activities its workflows schedule, named in a list. The worker registers the
// union of the flows' lists (activities/index.ts); test/unit/activity-registration.test.ts holds
// each list equal to what the flow's workflows call (docs/decisions/temporal/one-folder-per-flow.md).

export function registered<T extends object, const K extends keyof T>(
  all: T,
  names: readonly K[],
): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const name of names) picked[name] = all[name];
  return picked;
}
