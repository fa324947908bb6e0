import { ScheduleOverlapPolicy } from '@temporalio/client';
import { configSchema } from '../../src/config';
import { parseScheduleTime, reconciliationSchedule } from '../../src/main/reconciliation-schedule';
import { RECONCILIATION_SCHEDULE_ID } from '../../src/temporal/workflow-ids';
import { previousUtcDay, shiftDay } from '../../src/domain/days';
import { reconciliationWorkflow } from '../../workflows/operations/reconciliation';

// The daily reconciliation's Temporal Schedule (the time-skipping test server has no Schedules:
// test/integration/reconciliation-schedule.test.ts runs it on the dev server).
describe('reconciliation schedule', () => {
  it('starts reconciliationWorkflow daily at the configured UTC time, skipping a run while one is going', () => {
    expect(reconciliationSchedule({ taskQueue: 'payments', time: '02:30' })).toEqual({
      scheduleId: RECONCILIATION_SCHEDULE_ID,
      spec: { calendars: [{ hour: 2, minute: 30, comment: expect.any(String) }] },
      action: {
        type: 'startWorkflow',
        workflowType: reconciliationWorkflow,
        args: [{}],
        taskQueue: 'payments',
        workflowId: RECONCILIATION_SCHEDULE_ID,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '2 days' },
    });
    expect(reconciliationWorkflow.name).toBe('reconciliationWorkflow');
    expect(reconciliationSchedule({ taskQueue: 'payments', time: 'off' })).toBeNull();
  });

  it('reads RECONCILIATION_TIME as HH:MM (UTC) or off, 02:00 by default', () => {
    expect(configSchema.parse({}).RECONCILIATION_TIME).toBe('02:00');
    expect(parseScheduleTime('00:00')).toEqual({ hour: 0, minute: 0 });
    expect(parseScheduleTime('23:59')).toEqual({ hour: 23, minute: 59 });
    expect(parseScheduleTime('off')).toBeNull();
    for (const bad of ['24:00', '2:30', '02:60', 'daily'])
      expect(configSchema.safeParse({ RECONCILIATION_TIME: bad }).success).toBe(false);
    expect(() => parseScheduleTime('24:00')).toThrow(/HH:MM/);
  });

  it('reconciles the UTC day before the time the run was due', () => {
    expect(previousUtcDay(new Date('2026-03-01T00:30:00Z'))).toBe('2026-02-28');
    expect(previousUtcDay(new Date('2026-01-01T23:59:59.999Z'))).toBe('2025-12-31');
    expect(shiftDay('2028-02-28', 1)).toBe('2028-02-29');
    expect(shiftDay('2026-11-23', -1)).toBe('2026-11-22');
  });
});
