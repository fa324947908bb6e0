import type { Server } from 'node:http';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import type { Config } from '../config';
import type { Logger } from '../infra/logger';
import { connectMongo } from '../persistence/mongo';
import { connectTemporalClient } from './temporal/connection';
import { createWorker } from './temporal/worker';
import { buildActivityDeps, buildApi } from './wiring';
import { ensureReconciliationScheduleAtStart, ensureRecoveryScheduleAtStart } from './schedules';
import { realtimeOf } from '../api/ws';
import { listenApi, stopListening } from '../api/http-server';
import { tracing } from '../infra/tracing';
import { stopBackground } from './background';

// Starting and stopping the API and the worker; shared by the production entry points and npm start.

export interface Running {
  stop(): Promise<void>;
}

export async function runApi(
  config: Config,
  logger: Logger,
  urls: { mongo: string; temporal: string },
): Promise<Running & { server: Server }> {
  const mongo = await connectMongo(urls.mongo);
  const temporal = await connectTemporalClient(
    urls.temporal,
    config.TEMPORAL_NAMESPACE,
    config.PAYLOAD_CODEC_KEYS,
  );
  const app = await buildApi({ config, mongo, temporal, logger });
  const server = await listenApi(app, config, config.HOST);
  const realtime = realtimeOf(app);
  realtime?.attach(server);
  return {
    server,
    stop: async () => {
      await realtime?.close();
      await stopListening(server);
      await stopBackground(app);
      await temporal.connection.close();
      await mongo.close();
    },
  };
}

export async function runWorker(
  config: Config,
  urls: { mongo: string; temporal: string },
): Promise<Running & { worker: Worker }> {
  const mongo: Connection = await connectMongo(urls.mongo);
  const connection = await NativeConnection.connect({ address: urls.temporal });
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: await buildActivityDeps({ mongo, config }),
    payloadKeys: config.PAYLOAD_CODEC_KEYS,
    ...(config.WORKFLOW_BUNDLE_PATH ? { workflowBundlePath: config.WORKFLOW_BUNDLE_PATH } : {}),
  });
  const done = worker.run();
  await ensureReconciliationScheduleAtStart(config, urls.temporal);
  await ensureRecoveryScheduleAtStart(config, urls.temporal);
  return {
    worker,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
      await connection.close();
      await mongo.close();
    },
  };
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop()
      // Spans still batched leave before the process does.
      .then(() => tracing()?.shutdown())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
