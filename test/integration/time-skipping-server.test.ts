import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';
import { timeSkippingEnv } from '../helpers/time-skipping-server';

// The jest worker's one time-skipping server (issue 42): the next file gets it only as a fresh
// one would be, with no workflow left open and its clock on the real clock; otherwise a new one.
describe("the jest worker's time-skipping server", () => {
  const client = { dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS) };
  const envs: TestWorkflowEnvironment[] = [];
  const next = async () => {
    const env = await timeSkippingEnv(client);
    envs.push(env);
    return env;
  };

  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already in this process
    }
  });

  it('is kept for the next file when no workflow is open and no time was skipped', async () => {
    const first = await next();
    const second = await next(); // a second stack of the same file: the same server
    expect(second.address).toBe(first.address);
    await second.teardown();
    await first.teardown();
    // The search attributes are registered once per server: a second registration is refused.
    const after = await next();
    expect(after.address).toBe(first.address);
    await after.teardown();
  });

  it('is replaced after a file that skipped time, by one on the real clock', async () => {
    const env = await next();
    await env.sleep(3_600_000);
    expect((await env.currentTimeMs()) - Date.now()).toBeGreaterThan(3_000_000);
    await env.teardown();
    const fresh = await next();
    expect(fresh.address).not.toBe(env.address);
    expect(Math.abs((await fresh.currentTimeMs()) - Date.now())).toBeLessThan(1_000);
    await fresh.teardown();
  });

  it('is replaced after a file that left a workflow open, by one with none open', async () => {
    const env = await next();
    // Nobody polls this queue: its first task would lock time skipping for every later file.
    await env.client.workflow.start('payinWorkflow', {
      taskQueue: `nobody-${randomBytes(4).toString('hex')}`,
      workflowId: `left-open-${randomBytes(4).toString('hex')}`,
      args: [],
    });
    await env.teardown();
    const fresh = await next();
    expect(fresh.address).not.toBe(env.address);
    const { executions } = await fresh.connection.workflowService.listOpenWorkflowExecutions({
      namespace: 'default',
      maximumPageSize: 10,
    });
    expect(executions).toHaveLength(0);
    await fresh.teardown();
  });

  // Last: the abandoned environment stays counted as open in this copy of the helper.
  it('is replaced after a file that ended without its teardown', async () => {
    let nextFile!: typeof import('../helpers/time-skipping-server');
    await jest.isolateModulesAsync(async () => {
      nextFile = await import('../helpers/time-skipping-server');
    });
    const abandoned = await next();
    const env = await nextFile.timeSkippingEnv(client);
    expect(env.address).not.toBe(abandoned.address);
    await env.teardown();
    await abandoned.connection.close();
    await abandoned.nativeConnection.close();
  });
});
