// The operator simulator on its own (node dist/src/main/simulator.js, or tsx): the sandbox operator
// as a separate HTTP service. `npm start` runs it in-process when OPERATOR_BASE_URL is unset.
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { startSimulator } from '../simulator/server';
import { onShutdown } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { role: 'simulator' });
  const sim = await startSimulator({
    port: config.EMBEDDED_SIMULATOR_PORT,
    host: config.HOST,
    callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
    callbackBaseUrl: config.OPERATOR_CALLBACK_BASE_URL ?? config.PUBLIC_BASE_URL ?? null,
    // The operator's books survive a restart, as an operator's do.
    dataDir: resolve(config.DATA_DIR, 'simulator'),
  });
  logger.info({ url: sim.url }, 'operator simulator listening');
  onShutdown(logger, () => sim.stop());
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
