// Production entry point of the API (node dist/src/main/api.js); scales independently of the worker.
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { startTracing } from '../infra/tracing';
import { onShutdown, runApi } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { role: 'api' });
  startTracing(config, 'api');
  if (!config.MONGODB_URI || !config.TEMPORAL_ADDRESS)
    throw new ConfigError('MONGODB_URI and TEMPORAL_ADDRESS are required');
  const api = await runApi(config, logger, { mongo: config.MONGODB_URI, temporal: config.TEMPORAL_ADDRESS });
  logger.info({ port: config.PORT }, 'API listening');
  onShutdown(logger, () => api.stop());
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
