import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { configSchema, type Config } from '../../src/config';
import { createLogger } from '../../src/infra/logger';
import { testServerWrapper } from '../../src/infra/tools';
import { connectMongo } from '../../src/persistence/mongo';
import { createWorker } from '../../src/temporal/worker';
import { buildActivityDeps, buildApi } from '../../src/main/wiring';
import { ensureSearchAttributes } from '../../src/temporal/connection';

// The real stack for one test file: FerretDB (own database), a time-skipping Temporal test
// server, a worker on the pre-built bundle, and the HTTP API on a free port.

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed in this process
  }
}

export interface TestStack {
  env: TestWorkflowEnvironment;
  mongo: Connection;
  worker: Worker;
  config: Config;
  baseUrl: string;
  taskQueue: string;
  stop(): Promise<void>;
}

export async function startTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServerWrapper } },
  });
  await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
  return env;
}

export async function connectTestMongo(): Promise<Connection> {
  const base = process.env.TEST_MONGODB_URL;
  if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
  return connectMongo(`${base}/t_${randomBytes(6).toString('hex')}`);
}

export async function startStack(overrides: Partial<Record<keyof Config, string>> = {}): Promise<TestStack> {
  const env = await startTimeSkippingEnv();
  const mongo = await connectTestMongo();
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const config = configSchema.parse({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...overrides,
  });
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    deps: await buildActivityDeps({ mongo }),
    workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE!,
  });
  const running = worker.run();
  const app = await buildApi({ config, mongo, temporal: env.client, logger: createLogger('silent') });
  const server = await new Promise<Server>((res) => {
    const s = app.listen(0, '127.0.0.1', () => res(s));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    env,
    mongo,
    worker,
    config,
    taskQueue,
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      await new Promise<void>((res) => server.close(() => res()));
      worker.shutdown();
      await running;
      await mongo.close();
      await env.teardown();
    },
  };
}
