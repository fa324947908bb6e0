import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { OperatorStatus } from '../../src/operators/gateway';
import { directPayinInput } from '../helpers/payin-input';
import { operatorCallbackSignal } from '../../src/operators/callback-signal';
import { startTimeSkippingEnv } from '../helpers/stack';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';

// A fast operator calls back while the workflow is still asking it for the payment (the
// simulator's 20 ms settlement does, in the benchmark): the payin must read the status at once,
// not sleep through its first poll interval. The payin workflow runs on the real (time-skipping)
// test server; its activities are stubs here, so the callback lands inside requestCollection,
// every time, which a real operator cannot be made to do deterministically.

const EventType = temporal.api.enums.v1.EventType;

describe('payin workflow: an operator callback during the collection request', () => {
  let env: TestWorkflowEnvironment;
  const taskQueue = `early-${randomBytes(4).toString('hex')}`;
  let statusReads = 0;

  beforeAll(async () => {
    env = await startTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('wakes the first wait, no poll timer before the status is read', async () => {
    statusReads = 0;
    const noop = async () => undefined;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
      activities: {
        async requestCollection(): Promise<OperatorStatus> {
          const { workflowId } = Context.current().info.workflowExecution!;
          await env.client.workflow
            .getHandle(workflowId)
            .signal(operatorCallbackSignal, { kind: 'collection', id: 'pr_early' });
          return { outcome: 'pending', operatorReference: 'op_early' };
        },
        // The read that finds the success records it.
        async readCollectionAndSettle(): Promise<OperatorStatus & { settled: boolean }> {
          statusReads++;
          return { outcome: 'completed', operatorReference: 'op_early', settled: true };
        },
        recordPayinOutcome: noop,
      },
    });
    const input = directPayinInput({
      id: 'pr_early',
      merchantId: 'mer_early',
      reference: 'early-1',
      refundWindowMs: 60_000,
    });
    const workflowId = `early-${taskQueue}`;
    const state = await worker.runUntil(
      env.client.workflow.execute('payinWorkflow', { taskQueue, workflowId, args: [input] }),
    );
    expect(state).toMatchObject({ status: 'success' });
    expect(statusReads).toBe(1);

    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const types = events.map((e) => Number(e.eventType));
    // Before the fix the callback was cleared before the first wait: the read waited for a 5 s poll
    // timer. Run as local activities (workflows/shared/activity-proxies.ts), the request's task ends
    // before the signal is delivered, so a poll timer is started, and cancelled by the callback.
    expect(types).not.toContain(EventType.EVENT_TYPE_TIMER_FIRED);
    expect(types).toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);

    // And the current code replays the history it wrote.
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
        dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
      },
      history,
      workflowId,
    );
  });
});
