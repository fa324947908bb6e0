import { ScheduleOverlapPolicy } from '@temporalio/client';
import { configSchema } from '../../src/config';
import { recoveryScheduleOptions } from '../../src/main/recovery-schedule';
import { recoverySweepScheduleId } from '../../src/temporal/workflow-ids';
import { recoverySweepWorkflow } from '../../workflows/operations/recovery-sweep';

// The recovery sweep's schedule (its creation on a real server: test/integration/refund-update-limits.test.ts).
describe('recovery sweep schedule', () => {
  it('runs the sweep workflow on the task queue every RECOVERY_SWEEP_INTERVAL, never two at once', () => {
    const options = recoveryScheduleOptions({ taskQueue: 'payments', intervalMs: 60_000 });
    expect(options.scheduleId).toBe(recoverySweepScheduleId('payments'));
    expect(options.spec).toEqual({ intervals: [{ every: 60_000 }] });
    expect(options.action).toMatchObject({
      type: 'startWorkflow',
      // By reference: the schedule records the function's name, the type the worker registers.
      workflowType: recoverySweepWorkflow,
      taskQueue: 'payments',
      args: [],
    });
    expect(recoverySweepWorkflow.name).toBe('recoverySweepWorkflow');
    expect(options.policies).toMatchObject({ overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 });
  });

  it('defaults: a 60 s grace period, a pass every minute; both configurable', () => {
    const defaults = configSchema.parse({});
    expect(defaults.RECOVERY_GRACE_PERIOD).toBe(60_000);
    expect(defaults.RECOVERY_SWEEP_INTERVAL).toBe(60_000);
    const set = configSchema.parse({ RECOVERY_GRACE_PERIOD: '5m', RECOVERY_SWEEP_INTERVAL: '30s' });
    expect([set.RECOVERY_GRACE_PERIOD, set.RECOVERY_SWEEP_INTERVAL]).toEqual([300_000, 30_000]);
    expect(configSchema.safeParse({ RECOVERY_GRACE_PERIOD: 'soon' }).success).toBe(false);
  });
});
