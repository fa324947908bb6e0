import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { OperatorStatus } from '../../src/operators/gateway';
import { directPayinInput } from '../helpers/payin-input';
import { operatorCallbackSignal } from '../../workflows/signals';
import { startTimeSkippingEnv } from '../helpers/stack';
import { CODE_REVISION } from '../../workflows/code-revision';
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

  // Every new execution runs the current code behind one patch (operator-answers-only), whatever
  // its input's revision; the earlier changes it includes ask nothing more.
  it.each([
    ['started for revision 2', CODE_REVISION],
    ['started without a revision', undefined],
  ])('%s: wakes the first wait, no poll timer before the status is read', async (_label, codeRevision) => {
    statusReads = 0;
    const noop = async () => undefined;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
      activities: {
        recordPayinState: noop,
        creditMerchantForPayin: async () => ({ credited: 985, fee: 15 }),
        emitTransactionEvent: async () => ({ eventId: 'evt_stub' }),
        async requestCollection(): Promise<OperatorStatus> {
          const { workflowId } = Context.current().info.workflowExecution!;
          await env.client.workflow
            .getHandle(workflowId)
            .signal(operatorCallbackSignal, { kind: 'collection', id: 'pr_early' });
          return { outcome: 'pending', operatorReference: 'op_early' };
        },
        async readCollectionStatus(): Promise<OperatorStatus> {
          statusReads++;
          return { outcome: 'completed', operatorReference: 'op_early' };
        },
        // Since `payin-closes-at-final-status`: the read that finds the success records it.
        async readCollectionAndSettle(): Promise<OperatorStatus & { settled: boolean }> {
          statusReads++;
          return { outcome: 'completed', operatorReference: 'op_early', settled: true };
        },
        recordPayinOutcome: noop,
      },
    });
    const input = {
      ...directPayinInput({
        id: 'pr_early',
        merchantId: 'mer_early',
        reference: 'early-1',
        refundWindowMs: 60_000,
      }),
      ...(codeRevision === undefined ? {} : { codeRevision }),
    };
    const workflowId = `early-${taskQueue}-${codeRevision ?? 'none'}`;
    const state = await worker.runUntil(
      env.client.workflow.execute('payinWorkflow', { taskQueue, workflowId, args: [input] }),
    );
    expect(state).toMatchObject({ status: 'success' });
    expect(statusReads).toBe(1);

    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const types = events.map((e) => Number(e.eventType));
    const activityNames = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    const firstRead = activityNames.findIndex(
      (name) => name === 'readCollectionStatus' || name === 'readCollectionAndSettle',
    );
    expect(firstRead).toBeGreaterThan(activityNames.indexOf('requestCollection'));
    // Before the fix the callback was cleared before the first wait: a 5 s poll timer came first.
    expect(types.slice(0, firstRead)).not.toContain(EventType.EVENT_TYPE_TIMER_STARTED);
    expect(types).toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);

    // One patch marker, the gate in front of the current code (workflows/code-revision.ts).
    expect(events.filter((e) => e.markerRecordedEventAttributes)).toHaveLength(1);

    // And the current code replays the history it wrote, whichever way it was started.
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
