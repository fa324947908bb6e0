import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import { configSchema } from '../src/config';
import { connectMongo } from '../src/persistence/mongo';
import { startSimulator } from '../src/simulator/server';
import {
  freePort,
  startFerretDB,
  startTemporalDevServer,
  type LocalServer,
} from '../src/infra/local-servers';

/**
 * The embedded topology's servers for a bench: FerretDB (SQLite) and the Temporal dev server on free
 * ports with their data in `dir`, unless MONGODB_URI / TEMPORAL_ADDRESS point at running ones.
 */
export async function embeddedServers(
  dir: string,
  opts: {
    mongoUri?: string;
    temporalAddress?: string;
    ferretDebugAddr?: string;
    dynamicConfig?: string[];
  } = {},
): Promise<{ servers: LocalServer[]; mongoUri: string; temporalAddress: string }> {
  const servers: LocalServer[] = [];
  let { mongoUri, temporalAddress } = opts;
  if (!mongoUri) {
    const port = await freePort();
    servers.push(
      await startFerretDB({
        dataDir: join(dir, 'ferretdb'),
        port,
        ...(opts.ferretDebugAddr ? { debugAddr: opts.ferretDebugAddr } : {}),
      }),
    );
    mongoUri = `mongodb://127.0.0.1:${port}/bench`;
  }
  if (!temporalAddress) {
    const port = await freePort();
    servers.push(
      await startTemporalDevServer({
        dataDir: join(dir, 'temporal'),
        port,
        uiPort: await freePort(),
        namespace: 'default',
        dynamicConfig: opts.dynamicConfig ?? [],
      }),
    );
    temporalAddress = `127.0.0.1:${port}`;
  }
  return { servers, mongoUri, temporalAddress };
}

/**
 * A bench's connections to the stores, its operator simulator (settling in 20 ms, calling the API
 * back), and the environment the service's processes share: the stores, a task queue of their
 * own, the simulator as operator.
 */
export async function benchService(opts: {
  mongoUri: string;
  temporalAddress: string;
  queue: string;
  logLevel: string;
}) {
  const mongo = await connectMongo(opts.mongoUri);
  const temporalConn = await TemporalConnection.connect({ address: opts.temporalAddress });
  const client = new Client({ connection: temporalConn });
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const simulator = await startSimulator({
    port: 0,
    callbackSecrets: configSchema.parse({}).OPERATOR_CALLBACK_SECRETS,
    callbackBaseUrl: apiUrl,
    settleDelayMs: 20,
  });
  const taskQueue = `${opts.queue}-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: opts.logLevel,
    MONGODB_URI: opts.mongoUri,
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    OPERATOR_BASE_URL: simulator.url,
    OPERATOR_CALLBACK_BASE_URL: apiUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
    WORKER_METRICS_PORT: '0',
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
  };
  return { mongo, temporalConn, client, apiPort, apiUrl, simulator, taskQueue, env };
}
