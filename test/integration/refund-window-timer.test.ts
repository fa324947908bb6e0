import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { createWorker } from '../../src/temporal/worker';
import { buildActivityDeps } from '../../src/main/wiring';
import { connectTestMongo, startTimeSkippingEnv } from '../helpers/stack';
import type { PayinWorkflowInput } from '../../workflows/payin';

// The payin workflow keeps a 7-day refund-window timer after success; time skipping passes it fast.
describe('time skipping', () => {
  let env: TestWorkflowEnvironment;
  let mongo: Connection;
  let worker: Worker;
  const taskQueue = `tq-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    env = await startTimeSkippingEnv();
    mongo = await connectTestMongo();
    worker = await createWorker({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      deps: await buildActivityDeps({ mongo }),
      workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE!,
    });
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await mongo?.close();
    await env?.teardown();
  });

  it('passes a 7-day timer in under 5 seconds of wall time', async () => {
    const input: PayinWorkflowInput = {
      transactionId: 'pr_timer',
      provider: 'ORANGE_CI',
      collection: {
        transactionId: 'pr_timer',
        operator: 'ORANGE',
        country: 'CI',
        msisdn: '+2250700000001',
        amount: 1000,
        currency: 'XOF',
        sandboxScenario: 'completed',
      },
      expiryMs: 15 * 60_000,
      refundWindowMs: 7 * 24 * 3_600_000,
    };
    const before = await env.currentTimeMs();
    const started = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute('payinWorkflow', {
        taskQueue,
        workflowId: `timer-${taskQueue}`,
        args: [input],
      }),
    );
    const wallMs = Date.now() - started;
    const skippedMs = (await env.currentTimeMs()) - before;
    expect(result).toMatchObject({ status: 'success' });
    expect(skippedMs).toBeGreaterThanOrEqual(7 * 24 * 3_600_000);
    expect(wallMs).toBeLessThan(5_000);
  });
});
