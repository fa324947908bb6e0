import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { createLogger } from '../infra/logger';
import { connectTemporalClient } from './temporal/connection';
import { ensureReconciliationSchedule } from './reconciliation-schedule';
import { ensureRecoverySchedule } from './recovery-schedule';
import { RECONCILIATION_SCHEDULE_ID } from '../temporal/workflow-ids';

// The Temporal Schedules every worker ensures at start (the daily reconciliation, the recovery
// sweep), each on a client of its own. A failure is logged, not fatal: payments run without them,
// and the next worker start tries again.

type ScheduleConfig = Pick<
  Config,
  'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'LOG_LEVEL' | 'PAYLOAD_CODEC_KEYS'
>;

async function withClient(
  config: ScheduleConfig,
  address: string,
  what: string,
  fn: (client: Client) => Promise<void>,
): Promise<void> {
  const logger = createLogger(config.LOG_LEVEL, { role: 'worker' });
  let client: Client | null = null;
  try {
    client = await connectTemporalClient(address, config.TEMPORAL_NAMESPACE, config.PAYLOAD_CODEC_KEYS);
    await fn(client);
  } catch (err) {
    logger.warn({ err }, `${what} not ensured`);
  } finally {
    await client?.connection.close();
  }
}

/** The daily reconciliation at RECONCILIATION_TIME (src/main/reconciliation-schedule.ts). */
export async function ensureReconciliationScheduleAtStart(
  config: ScheduleConfig & Pick<Config, 'RECONCILIATION_TIME'>,
  address: string,
): Promise<void> {
  await withClient(config, address, 'reconciliation schedule', async (client) => {
    const done = await ensureReconciliationSchedule(client, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      time: config.RECONCILIATION_TIME,
    });
    createLogger(config.LOG_LEVEL, { role: 'worker' }).info(
      { schedule: RECONCILIATION_SCHEDULE_ID, time: config.RECONCILIATION_TIME, done },
      'reconciliation schedule',
    );
  });
}

/** The recovery sweep every RECOVERY_SWEEP_INTERVAL (src/main/recovery-schedule.ts). */
export async function ensureRecoveryScheduleAtStart(
  config: ScheduleConfig & Pick<Config, 'RECOVERY_SWEEP_INTERVAL'>,
  address: string,
): Promise<void> {
  await withClient(config, address, 'recovery sweep schedule', async (client) => {
    await ensureRecoverySchedule(client, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      intervalMs: config.RECOVERY_SWEEP_INTERVAL,
    });
  });
}
