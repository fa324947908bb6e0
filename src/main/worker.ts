// Production entry point of the Temporal worker (node dist/src/main/worker.js).
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { startTracing } from '../infra/tracing';
import { onShutdown, runWorker } from './run';
import { installWorkerRuntime } from './temporal/runtime';
import { internalAccess, startMetricsServer } from '../infra/metrics-server';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { role: 'worker' });
  startTracing(config, 'worker');
  if (!config.MONGODB_URI || !config.TEMPORAL_ADDRESS)
    throw new ConfigError('MONGODB_URI and TEMPORAL_ADDRESS are required');
  installWorkerRuntime({ logger, metricsAddress: config.TEMPORAL_METRICS_ADDRESS });
  const worker = await runWorker(config, { mongo: config.MONGODB_URI, temporal: config.TEMPORAL_ADDRESS });
  // No API in this process: the worker's counters (and Temporal's) get their own /metrics.
  const metrics = config.WORKER_METRICS_PORT
    ? await startMetricsServer(config.WORKER_METRICS_PORT, config.HOST, internalAccess(config.METRICS_TOKEN))
    : null;
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  onShutdown(logger, async () => {
    metrics?.close();
    await worker.stop();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
