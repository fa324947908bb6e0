import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { refundRequestOf, type RefundOutcome, type RefundWorkflowInput } from './refund-api';
import { operatorCallbackSignal } from '../../src/operators/callback-signal';
import {
  localFirst,
  localOperatorActivities,
  localRecordActivities,
  operatorActivities,
  recordActivities,
  type OperatorActivities,
  type RefundOutcomeActivities,
} from '../shared/activity-proxies';
import { askOperator } from '../shared/ask-operator';
import { watchStopRequest } from '../shared/stop-request';
import { saStatus } from '../../src/temporal/search-attributes';
import { isPatched } from '../shared/patches';

export type { RefundWorkflowInput } from './refund-api';

const acts = recordActivities<Pick<OperatorActivities, 'flagForOps'>>();
const operator = operatorActivities<Pick<OperatorActivities, 'cancelAtOperator'>>();
const outcomes = recordActivities<RefundOutcomeActivities>();
type OperatorSteps = Pick<RefundOutcomeActivities, 'readRefundAndSettle' | 'announceAndRequestRefund'>;
const operatorSteps = operatorActivities<OperatorSteps>();
// The same steps, one try each inside the workflow task first (workflows/shared/activity-proxies.ts).
const localSteps = localOperatorActivities<OperatorSteps>();
const localOutcomes = localRecordActivities<Pick<RefundOutcomeActivities, 'recordRefundEnd'>>();

/** A refund the operator leaves pending this long is asked to be cancelled. */
export const REFUND_OPERATOR_DEADLINE_MS = 48 * 3_600_000;

/**
 * One refund, started by its payin's refund desk once the merchant was debited (and the refund
 * stored `processing`). Asks the operator to credit the customer (the request emits
 * `refund.processing` first): `completed` when it did; `failed`, then the merchant credited back and
 * `reversed`, only when it refused or confirmed our cancellation. An operator that answers neither
 * is asked until it does (docs/refunds.md). Each end is one activity (docs/scaling.md).
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<RefundOutcome> {
  const woken = { value: false };
  // The API signals the operator's callbacks for this refund here: only a wake-up call.
  setHandler(operatorCallbackSignal, () => {
    woken.value = true;
  });
  const stop = watchStopRequest();
  // Patch `refund-local-activities`: the request, the reads and the end as local activities first.
  const local = isPatched('refund-local-activities');
  const steps: OperatorSteps & Pick<RefundOutcomeActivities, 'recordRefundEnd'> = local
    ? {
        announceAndRequestRefund: (...args) =>
          localFirst(
            () => localSteps.announceAndRequestRefund(...args),
            () => operatorSteps.announceAndRequestRefund(...args),
          ),
        readRefundAndSettle: (...args) =>
          localFirst(
            () => localSteps.readRefundAndSettle(...args),
            () => operatorSteps.readRefundAndSettle(...args),
          ),
        recordRefundEnd: (...args) =>
          localFirst(
            () => localOutcomes.recordRefundEnd(...args),
            () => outcomes.recordRefundEnd(...args),
          ),
      }
    : {
        announceAndRequestRefund: (...args) => operatorSteps.announceAndRequestRefund(...args),
        readRefundAndSettle: (...args) => operatorSteps.readRefundAndSettle(...args),
        recordRefundEnd: (...args) => outcomes.recordRefundEnd(...args),
      };
  // Ops filter refunds by status in the Temporal UI, as they do payins and payouts.
  const showStatus = (status: 'completed' | 'failed' | 'reversed') =>
    upsertSearchAttributes([{ key: saStatus, value: status }]);
  let endRecorded = false;
  const read = async () => {
    // Applied by the activity only if the operator answers `completed`; dated with workflow time.
    const processedAt = new Date().toISOString();
    const status = await steps.readRefundAndSettle(
      input.refundId,
      input.operator,
      input.country,
      processedAt,
    );
    if (status.settled) endRecorded = true;
    return status;
  };

  return CancellationScope.nonCancellable(async () => {
    const deadline = input.resume?.deadline ?? Date.now() + REFUND_OPERATOR_DEADLINE_MS;
    const request = refundRequestOf(input);
    const answer = await askOperator({
      // A resumed run's re-sends announce too (a no-op once the event exists).
      request: () => steps.announceAndRequestRefund(request),
      read,
      cancel: () => operator.cancelAtOperator('refund', input.refundId, input.operator, input.country),
      deadline,
      // The operator has 48 hours: an hourly read at most is enough, with callbacks in between.
      maxPollMs: 3_600_000,
      woken,
      stopRequested: () => stop.requested,
      onUnresolved: () =>
        acts.flagForOps({ kind: 'refund', id: input.refundId, reason: 'OPERATOR_UNRESOLVED' }),
      ...(input.resume ? { resume: input.resume.ask } : {}),
      ...(input.readsPerRun ? { readsPerRun: input.readsPerRun } : {}),
    });
    if (answer.outcome === 'continue') {
      await condition(allHandlersFinished);
      return continueAsNew<typeof refundWorkflow>({ ...input, resume: { ask: answer.state, deadline } });
    }
    const processedAt = new Date().toISOString(); // workflow time: deterministic
    // Each status is shown in the Temporal UI with the command that records it, not after it; a
    // completion the status read recorded, in the task right after.
    if (answer.outcome === 'completed') {
      showStatus('completed');
      if (!endRecorded) await steps.recordRefundEnd(input.refundId, { outcome: 'completed', processedAt });
      return 'completed';
    }
    const failure = answer.cancelled
      ? {
          code: 'REFUND_EXPIRED',
          message: 'The operator did not settle the refund in time; it was cancelled',
        }
      : (answer.status.failure ?? { code: 'OPERATOR_ERROR', message: 'The operator refused the refund' });
    showStatus('reversed');
    await steps.recordRefundEnd(input.refundId, { outcome: 'failed', failure, processedAt });
    return 'reversed';
  });
}
