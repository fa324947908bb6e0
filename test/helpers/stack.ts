import { randomBytes } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { addTemporalMetricsSource } from '../../src/infra/metrics';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, type Worker, type WorkerOptions } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { configSchema, type Config } from '../../src/config';
import { createLogger } from '../../src/infra/logger';
import { testServerWrapper } from '../../src/infra/tools';
import { connectMongo } from '../../src/persistence/mongo';
import { createWorker } from '../../src/main/temporal/worker';
import { Client } from '@temporalio/client';
import { clientInterceptors } from '../../src/main/temporal/connection';
import { tracing } from '../../src/infra/tracing';
import { buildActivityDeps, buildApi } from '../../src/main/wiring';
import { stopBackground } from '../../src/main/background';
import { realtimeOf } from '../../src/api/ws';
import { listenApi, stopListening } from '../../src/api/http-server';
import { ensureSearchAttributes } from '../../src/temporal/ensure-search-attributes';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { SimulatorOptions } from '../../src/simulator/app';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { dataConverter } from '../../src/temporal/codec';
import { stackBundle } from './workflow-bundles';
import type { KeyRing } from '../../src/security/key-ring';

// The real stack for one test file: FerretDB (own database), a time-skipping Temporal test
// server, a worker on the pre-built bundle, and the HTTP API on a free port.

let runtimeInstalled = false;
async function quietRuntime(): Promise<void> {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // The worker's own Prometheus exporter on a free port, appended to the API's /metrics. Jest gives
  // each test file fresh modules but the process keeps its runtime: the address is kept globally.
  const shared = globalThis as { temporalPrometheusAddress?: string };
  const bindAddress = (shared.temporalPrometheusAddress ??= `127.0.0.1:${await freePort()}`);
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { metrics: { prometheus: { bindAddress } } },
    });
  } catch {
    // already installed in this process
  }
  addTemporalMetricsSource(bindAddress);
}

export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((res) => probe.listen(0, '127.0.0.1', res));
  const addr = probe.address();
  await new Promise<void>((res) => probe.close(() => res()));
  return typeof addr === 'object' && addr ? addr.port : 0;
}

export interface TestStack {
  env: TestWorkflowEnvironment;
  mongo: Connection;
  worker: Worker;
  config: Config;
  baseUrl: string;
  /** The API's Express app, in a box (useStack's stand-in would bind the app, a function, and hide its router stack). */
  http: { app: import('express').Express };
  taskQueue: string;
  /** The operator simulator the gateway calls; it calls this stack's API back. */
  simulator: RunningSimulator;
  /** With `operatorProxy`: the fault proxy between the worker's gateway and the simulator. */
  proxy: FaultProxy | null;
  stop(): Promise<void>;
}

/** The test server's client seals payloads with `payloadKeys` (default: the configuration's default ring). */
export async function startTimeSkippingEnv(
  payloadKeys: KeyRing = configSchema.parse({}).PAYLOAD_CODEC_KEYS,
): Promise<TestWorkflowEnvironment> {
  await quietRuntime();
  const create = () =>
    TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: testServerWrapper } },
      client: { dataConverter: dataConverter(payloadKeys) },
    });
  // The SDK gives the server's port 5 s to open, which a loaded 2-core machine can miss even for the
  // forwarder: a second try, not a failed file.
  const env = await create().catch((err: unknown) => {
    if (!/did not start within/.test(String(err))) throw err;
    return create();
  });
  await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
  return env;
}

export async function connectTestMongo(serverSelectionTimeoutMS?: number): Promise<Connection> {
  const base = process.env.TEST_MONGODB_URL;
  if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
  return connectMongo(
    `${base}/t_${randomBytes(6).toString('hex')}`,
    serverSelectionTimeoutMS ? { serverSelectionTimeoutMS } : {},
  );
}

export interface StackOptions {
  simulator?: Partial<SimulatorOptions>;
  /** e.g. `maxCachedWorkflows: 0` for worker-restart tests (the test server has no sticky timeout). */
  worker?: Partial<WorkerOptions>;
  /** Puts a fault proxy (test/helpers/fault-proxy.ts) between the worker's gateway and the simulator. */
  operatorProxy?: boolean;
  /** The built dashboard page the API serves under /dashboard (dist/dashboard by default). */
  dashboardStaticDir?: string;
  /** The driver's wait for an unreachable database (5 s by default, as in production). */
  serverSelectionTimeoutMS?: number;
}

export async function startStack(
  overrides: Partial<Record<keyof Config, string>> = {},
  opts: StackOptions = {},
): Promise<TestStack> {
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const config = configSchema.parse({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    TEMPORAL_TASK_QUEUE: taskQueue,
    OPERATOR_TIMEOUT: '1s',
    // One sandbox route unless a test asks for both: a fault a test injects at the operator would
    // otherwise move its transaction to the second route after the failover fence.
    SANDBOX_ROUTES: '1',
    // The alerts' mail sweep reads the store on its own clock: off unless a test asks for it, so
    // the tests that count store commands count only their own.
    ALERT_MAIL_EVERY: '0s',
    ...overrides,
  });
  const env = await startTimeSkippingEnv(config.PAYLOAD_CODEC_KEYS);
  const mongo = await connectTestMongo(opts.serverSelectionTimeoutMS);
  // A fresh simulator per stack: its 9904 number answers slower than the 1 s the gateway waits.
  const simulator = await startSimulator({
    port: 0,
    callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
    slowResponseMs: 1_500,
    ...opts.simulator,
  });
  const proxy = opts.operatorProxy ? await startFaultProxy({ target: simulator.url }) : null;
  config.OPERATOR_BASE_URL ??= proxy?.url ?? simulator.url;
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    deps: await buildActivityDeps({ mongo, config }),
    payloadKeys: config.PAYLOAD_CODEC_KEYS,
    workflowBundlePath: stackBundle(),
    ...(opts.worker ? { options: opts.worker } : {}),
  });
  const running = worker.run();
  const app = await buildApi({
    config,
    mongo,
    // With tracing on (test/integration/tracing.test.ts), the API's client carries the trace on.
    temporal: tracing()
      ? new Client({
          connection: env.connection,
          namespace: env.namespace ?? 'default',
          dataConverter: dataConverter(config.PAYLOAD_CODEC_KEYS),
          ...clientInterceptors(),
        })
      : env.client,
    // TEST_API_LOG_LEVEL=error shows what a 500 met (the tests' API logs nothing by default).
    logger: createLogger(process.env.TEST_API_LOG_LEVEL ?? 'silent'),
    ...(opts.dashboardStaticDir ? { dashboardStaticDir: opts.dashboardStaticDir } : {}),
  });
  // PORT is 0 (any) unless a test needs the address before the start (callbacks of provider fakes).
  const server = await listenApi(app, config, '127.0.0.1');
  const realtime = realtimeOf(app);
  realtime?.attach(server);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  simulator.simulator.setCallbackBaseUrl(`http://127.0.0.1:${port}`);
  return {
    env,
    mongo,
    worker,
    config,
    taskQueue,
    simulator,
    proxy,
    http: { app },
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      await proxy?.stop();
      await simulator.stop();
      await realtime?.close();
      await stopListening(server);
      await stopBackground(app);
      // A test may have stopped it already (worker restart tests).
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await mongo.close();
      await env.teardown();
    },
  };
}

/**
 * Another worker on the stack's task queue, as after a crash of the first one. No sticky cache:
 * the test server never times out the old worker's sticky queue.
 */
export async function replacementWorker(
  stack: TestStack,
  deps?: Awaited<ReturnType<typeof buildActivityDeps>>,
): Promise<Worker> {
  return createWorker({
    connection: stack.env.nativeConnection,
    namespace: stack.env.namespace ?? 'default',
    taskQueue: stack.taskQueue,
    deps: deps ?? (await buildActivityDeps({ mongo: stack.mongo, config: stack.config })),
    payloadKeys: stack.config.PAYLOAD_CODEC_KEYS,
    workflowBundlePath: stackBundle(),
    options: { maxCachedWorkflows: 0 },
  });
}
