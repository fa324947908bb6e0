import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { createWorker } from '../../src/temporal/worker';
import { buildActivityDeps } from '../../src/main/wiring';
import { connectTestMongo, startTimeSkippingEnv } from '../helpers/stack';
import { configSchema } from '../../src/config';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { directPayinInput, storedDirectPayin } from '../helpers/payin-input';
import { payinStateQuery } from '../../workflows/payin-api';
import { eventually } from '../helpers/http';
import { TransactionStore } from '../../src/persistence/transactions';

// The payin workflow keeps a 7-day refund-window timer after success; time skipping passes it fast.
describe('time skipping', () => {
  let env: TestWorkflowEnvironment;
  let mongo: Connection;
  let worker: Worker;
  let simulator: RunningSimulator;
  const taskQueue = `tq-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    env = await startTimeSkippingEnv();
    mongo = await connectTestMongo();
    // Settles at once: time skipping would otherwise race the simulator's real-time delay.
    const config = configSchema.parse({});
    simulator = await startSimulator({
      port: 0,
      callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
      settleDelayMs: 0,
    });
    config.OPERATOR_BASE_URL = simulator.url;
    worker = await createWorker({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      deps: await buildActivityDeps({ mongo, config }),
      payloadKeys: config.PAYLOAD_CODEC_KEYS,
      workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE!,
    });
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await mongo?.close();
    // runUntil has returned by now, so the worker no longer holds the connection
    await env?.teardown();
    await simulator?.stop();
  });

  it('passes a 7-day timer in under 5 seconds of wall time', async () => {
    const input = directPayinInput({
      id: 'pr_timer',
      merchantId: 'mer_timer_test',
      reference: 'timer-1',
      refundWindowMs: 7 * 24 * 3_600_000,
    });
    // The workflow's activities read and update the stored payin, as they do for a real one.
    await TransactionStore.on(mongo).insertOrGet(
      storedDirectPayin({
        id: 'pr_timer',
        merchantId: 'mer_timer_test',
        reference: 'timer-1',
        workflowId: `timer-${taskQueue}`,
      }),
    );
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('payinWorkflow', {
        taskQueue,
        workflowId: `timer-${taskQueue}`,
        args: [input],
      });
      // Reach success first (operator, ledger, events: real work, real time)...
      await eventually(
        () => handle.query(payinStateQuery),
        (s) => s.status === 'success',
      );
      // ...then time only the refund window's 7-day timer.
      const before = await env.currentTimeMs();
      const started = Date.now();
      const state = await handle.result();
      return { state, wallMs: Date.now() - started, skippedMs: (await env.currentTimeMs()) - before };
    });
    expect(result.state).toMatchObject({ status: 'success' });
    expect(result.skippedMs).toBeGreaterThanOrEqual(7 * 24 * 3_600_000 - 60_000);
    expect(result.wallMs).toBeLessThan(5_000);
  });
});
