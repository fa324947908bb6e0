// Production entry point of the Temporal worker (node dist/src/main/worker.js).
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { onShutdown, runWorker } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { role: 'worker' });
  if (!config.MONGODB_URI || !config.TEMPORAL_ADDRESS)
    throw new ConfigError('MONGODB_URI and TEMPORAL_ADDRESS are required');
  const worker = await runWorker(config, { mongo: config.MONGODB_URI, temporal: config.TEMPORAL_ADDRESS });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  onShutdown(logger, () => worker.stop());
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
