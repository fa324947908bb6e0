import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import { recoverySweepWorkflow } from '../../workflows/operations/recovery-sweep';
import { recoverySweepScheduleId } from '../temporal/workflow-ids';

// The recovery sweep runs on a Temporal Schedule, ensured by every worker at start: created when
// missing, brought to the configured interval when present (a paused schedule stays paused).

type SweepAction = ScheduleOptionsStartWorkflowAction<typeof recoverySweepWorkflow>;

export function recoveryScheduleOptions(opts: {
  taskQueue: string;
  intervalMs: number;
}): ScheduleOptions<SweepAction> {
  return {
    scheduleId: recoverySweepScheduleId(opts.taskQueue),
    spec: { intervals: [{ every: opts.intervalMs }] },
    action: {
      type: 'startWorkflow',
      workflowType: recoverySweepWorkflow,
      workflowId: recoverySweepScheduleId(opts.taskQueue),
      taskQueue: opts.taskQueue,
      args: [],
      // A pass that cannot finish in this long is abandoned; the next one starts over (idempotent).
      workflowExecutionTimeout: opts.intervalMs * 10,
    },
    policies: {
      // A pass still running when the next is due: the next is skipped, never two at once.
      overlap: ScheduleOverlapPolicy.SKIP,
      // After an outage one pass catches up on everything: missed ones are not replayed.
      catchupWindow: opts.intervalMs,
    },
  };
}

/** Creates the schedule, or updates its spec, action and policies; safe from every worker at once. */
export async function ensureRecoverySchedule(
  client: Client,
  opts: { taskQueue: string; intervalMs: number },
): Promise<'created' | 'updated'> {
  const options = recoveryScheduleOptions(opts);
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(options.scheduleId).update<typeof recoverySweepWorkflow>((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: { ...previous.policies, ...options.policies },
  }));
  return 'updated';
}
