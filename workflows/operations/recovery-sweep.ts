import { proxyActivities } from '@temporalio/workflow';
import type {
  createRecoveryActivities,
  RecoverySweepResult,
} from '../../activities/operations/recovery-activities';

// One pass of the recovery sweep (src/recovery/sweep.ts): started every minute by its schedule
// (src/main/recovery-schedule.ts). The pass is idempotent, so a retry or the next pass redoes it safely.

const { recoverUnstartedWorkflows } = proxyActivities<ReturnType<typeof createRecoveryActivities>>({
  startToCloseTimeout: '5m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function recoverySweepWorkflow(): Promise<RecoverySweepResult> {
  return recoverUnstartedWorkflows();
}
