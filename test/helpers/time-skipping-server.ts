import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataConverter, LoadedDataConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort, waitForPort } from '../../src/infra/local-servers';
import { testServerWrapper } from '../../src/infra/tools';
import { ensureSearchAttributes } from '../../src/temporal/ensure-search-attributes';

// One time-skipping test server (a JVM) per jest worker instead of one per file (issue 42). Jest
// runs one file at a time in a worker, so the worker's files take turns on its server, each on its
// own task queues. A file must still find the server as a fresh one would be: no workflow left open
// (an open workflow's next task, on a queue nobody polls any more, would lock time skipping for
// good) and the server's clock on the real clock (time skipped by a file stays skipped: workflows
// of the next file would start days ahead of the API and the store). So a file's last environment,
// at its teardown, keeps the server for the next file only when no workflow is open and no time
// was skipped; otherwise it stops it and starts the next one at once, which starts while jest
// loads the next file. The servers are found through a state file per worker in the run's
// directory (TEST_SERVERS_DIR, from the global setup), which stops those still running.
// docs/decisions/testing/ci-shared-servers.md

interface Shared {
  port: number;
  pid: number;
  /** The workflows' search attributes are registered (the test server cannot list them). */
  searchAttributes?: boolean;
  /** In use by a file, not yet released (a file that ended without its teardown leaves it so). */
  inUse?: boolean;
}

/** Skipped time above this (ms) ends the server's use; a fresh server is within a few ms. */
const CLOCK_TOLERANCE_MS = 1_000;

type Creator = {
  create(opts: {
    server: { type: 'existing' };
    address: string;
    namespace: string;
    supportsTimeSkipping: true;
    client: { dataConverter: DataConverter | LoadedDataConverter };
  }): Promise<TestWorkflowEnvironment>;
};

function stateFile(): string | null {
  const dir = process.env.TEST_SERVERS_DIR;
  const worker = process.env.JEST_WORKER_ID;
  return dir && worker ? join(dir, `temporal-test-server-${worker}.json`) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readShared(file: string): Shared | null {
  try {
    const shared = JSON.parse(readFileSync(file, 'utf8')) as Shared;
    return alive(shared.pid) ? shared : null;
  } catch {
    return null;
  }
}

function stop(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // gone already
  }
}

/** Starts a server and records it; it may still be starting when this returns. */
async function spawnShared(file: string): Promise<Shared> {
  const port = await freePort();
  const proc = spawn(testServerWrapper, [String(port)], { stdio: 'ignore' });
  proc.unref();
  const shared = { port, pid: proc.pid! };
  writeFileSync(file, JSON.stringify(shared));
  return shared;
}

/** Stops every server the run's workers left (jest's global teardown). */
export function stopSharedServers(dir: string, files: string[]): void {
  for (const name of files.filter((f) => /^temporal-test-server-\d+\.json$/.test(f))) {
    const shared = readShared(join(dir, name));
    if (shared) stop(shared.pid);
  }
}

// Environments of this file still open on the shared server (a file may run two stacks at once).
let open = 0;

/** Whether the server is as a fresh one for the next file: nothing open, its clock not skipped. */
async function reusable(env: TestWorkflowEnvironment): Promise<boolean> {
  try {
    const { executions } = await env.connection.workflowService.listOpenWorkflowExecutions({
      namespace: env.namespace ?? 'default',
      maximumPageSize: 1,
    });
    if (executions.length > 0) return false;
    return Math.abs((await env.currentTimeMs()) - Date.now()) < CLOCK_TOLERANCE_MS;
  } catch {
    return false;
  }
}

/**
 * A time-skipping environment on this jest worker's server (started on first use), or outside jest
 * a server of its own, as `TestWorkflowEnvironment.createTimeSkipping` gives; with the search
 * attributes the workflows upsert.
 */
export async function timeSkippingEnv(client: {
  dataConverter: DataConverter | LoadedDataConverter;
}): Promise<TestWorkflowEnvironment> {
  const file = stateFile();
  if (!file) {
    const create = () =>
      TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: testServerWrapper } },
        client,
      });
    // The SDK gives the server's port 5 s to open, which a loaded 2-core machine can miss: a second try.
    const env = await create().catch((err: unknown) => {
      if (!/did not start within/.test(String(err))) throw err;
      return create();
    });
    await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
    return env;
  }
  let shared = readShared(file);
  // Left in use by a file that ended without its teardown: it may hold that file's workflows.
  if (shared?.inUse && open === 0) {
    stop(shared.pid);
    shared = null;
  }
  shared ??= await spawnShared(file);
  await waitForPort(shared.port, 60_000);
  const env = await (TestWorkflowEnvironment as unknown as Creator).create({
    server: { type: 'existing' },
    address: `127.0.0.1:${shared.port}`,
    namespace: 'default',
    supportsTimeSkipping: true,
    client,
  });
  // Registered once per server: the test server lists none, and refuses a second registration.
  if (!shared.searchAttributes) await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
  const used: Shared = { ...shared, searchAttributes: true, inUse: true };
  writeFileSync(file, JSON.stringify(used));
  open++;
  const close = env.teardown.bind(env);
  env.teardown = async () => {
    open--;
    const keep = open > 0 || (await reusable(env));
    await close();
    if (keep) {
      if (open === 0) writeFileSync(file, JSON.stringify({ ...used, inUse: false }));
      return;
    }
    stop(used.pid);
    await spawnShared(file);
  };
  return env;
}
