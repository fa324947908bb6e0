import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, waitForPort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import type { TestStack } from './stack';

/** An API process of the production entry point (src/main/api.ts), beside a test stack. */
export interface ApiProcess {
  proc: ChildProcess;
  baseUrl: string;
  wsUrl: string;
}

/**
 * `count` more API processes on the stack's database, Temporal and task queue, as replicas behind a
 * load balancer; `env` adds or overrides settings. Resolves once each listens.
 */
export async function startApiProcesses(
  stack: TestStack,
  count: number,
  env: Record<string, string> = {},
): Promise<ApiProcess[]> {
  const apis: ApiProcess[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      cwd: repoRoot,
      stdio: 'ignore',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: String(port),
        MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
        TEMPORAL_ADDRESS: stack.env.address,
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        ...env,
      },
    });
    apis.push({ proc, baseUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/v1/ws` });
  }
  await Promise.all(apis.map((p) => waitForPort(Number(new URL(p.baseUrl).port), 60_000, p.proc)));
  return apis;
}

/** Ends the processes (SIGTERM) and waits for each to exit. */
export async function stopApiProcesses(apis: readonly ApiProcess[]): Promise<void> {
  await Promise.all(
    apis.map(
      (p) =>
        new Promise<void>((res) => {
          if (p.proc.exitCode !== null) return res();
          p.proc.once('exit', () => res());
          p.proc.kill('SIGTERM');
        }),
    ),
  );
}
