import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { createWorker } from '../../src/main/temporal/worker';
import { buildActivityDeps } from '../../src/main/wiring';
import { connectTestMongo, startTimeSkippingEnv } from '../helpers/stack';
import { configSchema } from '../../src/config';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { directPayinInput, storedDirectPayin } from '../helpers/payin-input';
import { eventually } from '../helpers/http';
import { TransactionStore } from '../../src/persistence/transactions';

// A session payin waits for its customer until its session expires: the longest timer a new payin
// keeps (its refund window is a stored date, not a timer). Time skipping
// passes it fast.
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

  it('passes a 24-hour session wait in under 5 seconds of wall time', async () => {
    const sessionExpiryMs = 24 * 3_600_000;
    const direct = directPayinInput({
      id: 'pr_timer',
      merchantId: 'mer_timer_test',
      reference: 'timer-1',
      refundWindowMs: 7 * 24 * 3_600_000,
    });
    const input = {
      ...direct,
      flow: 'session' as const,
      collection: null,
      timing: { ...direct.timing, sessionExpiryMs },
    };
    // The workflow's activities update the stored payin, as they do for a real one.
    await TransactionStore.on(mongo).insertOrGet({
      ...storedDirectPayin({
        id: 'pr_timer',
        merchantId: 'mer_timer_test',
        reference: 'timer-1',
        workflowId: `timer-${taskQueue}`,
      }),
      flow: 'session',
      provider: null,
      paymentUrl: 'https://pay.example.test/pr_timer',
    });
    // Time skips only while the test waits for a result, so nothing has run ahead before this read.
    const before = await env.currentTimeMs();
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('payinWorkflow', {
        taskQueue,
        workflowId: `timer-${taskQueue}`,
        args: [input],
      });
      const started = Date.now();
      const state = await handle.result();
      return { state, wallMs: Date.now() - started, skippedMs: (await env.currentTimeMs()) - before };
    });
    expect(result.state).toMatchObject({ status: 'expired', awaitingCustomer: false });
    await eventually(
      () => TransactionStore.on(mongo).findById('pr_timer'),
      (stored) => stored?.status === 'expired',
    );
    expect(result.skippedMs).toBeGreaterThanOrEqual(sessionExpiryMs);
    expect(result.wallMs).toBeLessThan(5_000);
  });
});
