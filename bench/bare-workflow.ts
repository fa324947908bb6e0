import { proxyActivities } from '@temporalio/workflow';

// The bound of the benchmark: a workflow that runs `activities` no-op activities one after another,
// as a payin runs its own, with nothing else (no database, no operator, no HTTP).
const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '30s' });

export async function bareWorkflow(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await noop();
}
