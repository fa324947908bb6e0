import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import pino from 'pino';
import type { Connection } from 'mongoose';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';
import { createLogger } from '../../src/infra/logger';
import { freePort, startTemporalDevServer, type LocalServer } from '../../src/infra/local-servers';
import { buildApi } from '../../src/main/wiring';
import { connectMongo } from '../../src/persistence/mongo';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { WorkerProcess } from './worker-process';

/** A live provider beside the simulator (test/faults/pawapay-faults.test.ts): its settings, its start. */
export interface EnvironmentExtra {
  /** More settings for the API and the worker, known before the API starts. */
  settings?: () => Promise<Record<string, string>>;
  /** Once the API listens, before the worker starts: what calls the API back. */
  afterApi?: (apiUrl: string) => Promise<void>;
}

// The fault suite's world (test/faults/faults.test.ts): a real Temporal dev server (real time), a
// database on the shared FerretDB, the API in this process, the worker as a child process, and the
// operator simulator behind two fault proxies: gateway -> operatorProxy -> simulator, and
// simulator callbacks -> callbackProxy -> API.
export class FaultEnvironment {
  dir: string | undefined;
  temporalServer: LocalServer | undefined;
  temporalConnection: TemporalConnection | undefined;
  mongo!: Connection;
  mongoUri = '';
  simulator!: RunningSimulator;
  operatorProxy!: FaultProxy;
  callbackProxy!: FaultProxy;
  server: Server | undefined;
  apiUrl = '';
  worker!: WorkerProcess;
  workerEnv: NodeJS.ProcessEnv = {};
  temporalAddress = '';
  temporal!: Client;
  /** The API's and the worker's logs (info), for a divergence's diagnosis (test/faults/diagnose.ts). */
  logFiles: string[] = [];
  /** The test's pending timers, cleared before anything stops. */
  readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly timings: Record<string, string>,
    private readonly extra: EnvironmentExtra = {},
  ) {}

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'momo-faults-'));
    const temporalPort = await freePort();
    this.temporalServer = await startTemporalDevServer({
      dataDir: join(this.dir, 'temporal'),
      port: temporalPort,
      uiPort: await freePort(),
      namespace: 'default',
    });
    this.temporalAddress = `127.0.0.1:${temporalPort}`;
    this.temporalConnection = await TemporalConnection.connect({ address: this.temporalAddress });
    const temporal = (this.temporal = new Client({
      connection: this.temporalConnection,
      namespace: 'default',
      dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
    }));
    mkdirSync(join(this.dir, 'logs'));
    this.logFiles = ['api.log', 'worker.log'].map((f) => join(this.dir!, 'logs', f));
    // Synchronous: what diagnose() reads is on disk, and a sweep logging after stop() cannot throw.
    const apiLog = pino.destination({ dest: this.logFiles[0]!, sync: true });
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    this.mongoUri = `${base}/faults_${randomBytes(4).toString('hex')}`;
    this.mongo = await connectMongo(this.mongoUri);
    const settings = {
      NODE_ENV: 'test',
      TEMPORAL_TASK_QUEUE: `faults-${randomUUID().slice(0, 8)}`,
      // The operator's books compared are the first sandbox route's; two routes are the
      // two-routes suite's (test/faults/two-routes.test.ts).
      SANDBOX_ROUTES: '1',
      ...this.timings,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_CACHE_TTL: '10m',
      ...(await this.extra.settings?.()),
    };
    const config = configSchema.parse({ ...settings, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1' });
    this.simulator = await startSimulator({
      port: 0,
      callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
      slowResponseMs: 1_500,
    });
    // gateway -> operatorProxy -> simulator; simulator callbacks -> callbackProxy -> API.
    this.operatorProxy = await startFaultProxy({ target: this.simulator.url });
    config.OPERATOR_BASE_URL = this.operatorProxy.url;
    const app = await buildApi({
      config,
      mongo: this.mongo,
      temporal,
      logger: createLogger('info', {}, apiLog),
    });
    this.server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    this.apiUrl = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    this.callbackProxy = await startFaultProxy({ target: this.apiUrl });
    this.simulator.simulator.setCallbackBaseUrl(this.callbackProxy.url);
    await this.extra.afterApi?.(this.apiUrl);
    this.workerEnv = {
      ...process.env,
      ...settings,
      LOG_LEVEL: 'info',
      MONGODB_URI: this.mongoUri,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
      OPERATOR_BASE_URL: this.operatorProxy.url,
      WORKER_METRICS_PORT: '0',
    };
    this.worker = new WorkerProcess(this.workerEnv, this.logFiles[1]);
    await this.worker.start();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    await this.worker?.stop();
    await this.callbackProxy?.stop();
    await this.operatorProxy?.stop();
    await this.simulator?.stop();
    this.server?.closeAllConnections();
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
    await this.mongo?.dropDatabase().catch(() => undefined);
    await this.mongo?.close();
    await this.temporalConnection?.close();
    await this.temporalServer?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
