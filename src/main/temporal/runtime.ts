import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../../infra/logger';
import { addTemporalMetricsSource } from '../../infra/metrics';

// The worker's Temporal runtime, installed once per process: its logs go to our pino logger (an
// activity's lines carry workflowId, workflowType, activityType and attempt from Temporal's
// context), and Core's Prometheus exporter serves the worker's own metrics, which /metrics appends.

const pinoLevel = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
const temporalLevel = (level: string): LogLevel =>
  (({ trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' }) as Record<string, LogLevel>)[level] ??
  'ERROR';

let installed = false;

export function installWorkerRuntime(opts: { logger: Logger; metricsAddress: string | null }): void {
  if (installed) return;
  installed = true;
  const log = opts.logger.child({ component: 'temporal' });
  Runtime.install({
    logger: new DefaultLogger(temporalLevel(opts.logger.level), (entry) => {
      const { sdkComponent, ...meta } = (entry.meta ?? {}) as Record<string, unknown>;
      log[pinoLevel[entry.level]]({ ...meta, sdkComponent }, entry.message);
    }),
    telemetryOptions: {
      // Core's own lines (Rust) go through the same logger instead of the console.
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(opts.metricsAddress ? { metrics: { prometheus: { bindAddress: opts.metricsAddress } } } : {}),
    },
  });
  if (opts.metricsAddress) addTemporalMetricsSource(opts.metricsAddress);
}
