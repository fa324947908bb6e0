import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
} from '@temporalio/client';
import { reconciliationWorkflow } from '../../workflows/operations/reconciliation';
import { RECONCILIATION_SCHEDULE_ID } from '../temporal/workflow-ids';

// The daily reconciliation: a Temporal Schedule that starts `reconciliationWorkflow` every day at
// RECONCILIATION_TIME (UTC) for the day before. Created at worker start (src/main/schedules.ts),
// idempotently: an existing schedule is left as it is, or brought to the configured time and task queue.

export interface ReconciliationScheduleConfig {
  taskQueue: string;
  /** `HH:MM` (UTC), or `off`: no schedule (an existing one is left alone; delete it by hand). */
  time: string;
}

/** `02:30` -> { hour: 2, minute: 30 }; null for `off`. */
export function parseScheduleTime(time: string): { hour: number; minute: number } | null {
  if (time === 'off') return null;
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  if (!m) throw new Error(`not a time of day HH:MM (UTC) nor "off": ${time}`);
  return { hour: Number(m[1]), minute: Number(m[2]) };
}

export function reconciliationSchedule(cfg: ReconciliationScheduleConfig): ScheduleOptions | null {
  const at = parseScheduleTime(cfg.time);
  if (!at) return null;
  return {
    scheduleId: RECONCILIATION_SCHEDULE_ID,
    spec: {
      calendars: [
        { hour: at.hour, minute: at.minute, comment: 'daily reconciliation of the day before (UTC)' },
      ],
    },
    action: {
      type: 'startWorkflow',
      workflowType: reconciliationWorkflow,
      // The workflow reconciles the day before the time it was due: a catch-up run does the right day.
      args: [{}],
      taskQueue: cfg.taskQueue,
      workflowId: RECONCILIATION_SCHEDULE_ID,
    },
    policies: {
      // A day still being reconciled is not started twice; a run missed while Temporal was down is
      // caught up within two days (it reconciles the day it was due for).
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '2 days',
    },
  };
}

/** Creates the schedule, or updates one that differs; answers what it did. */
export async function ensureReconciliationSchedule(
  client: Client,
  cfg: ReconciliationScheduleConfig,
): Promise<'created' | 'updated' | 'unchanged' | 'off'> {
  const options = reconciliationSchedule(cfg);
  if (!options) return 'off';
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID);
  const current = await handle.describe();
  const calendar = current.spec.calendars?.[0];
  const want = options.spec.calendars![0]!;
  const same =
    current.action.type === 'startWorkflow' &&
    current.action.taskQueue === cfg.taskQueue &&
    current.spec.calendars?.length === 1 &&
    sameValue(calendar?.hour, want.hour) &&
    sameValue(calendar?.minute, want.minute) &&
    current.policies.overlap === ScheduleOverlapPolicy.SKIP;
  if (same) return 'unchanged';
  await handle.update((prev) => ({
    ...prev,
    spec: options.spec,
    action: options.action,
    policies: { ...prev.policies, ...options.policies },
  }));
  return 'updated';
}

/** A described calendar field is a list of ranges; ours is one value. */
function sameValue(described: unknown, want: unknown): boolean {
  const ranges = Array.isArray(described) ? (described as Array<{ start: number; end?: number }>) : null;
  if (ranges) return ranges.length === 1 && ranges[0]!.start === want && (ranges[0]!.end ?? want) === want;
  return described === want;
}
