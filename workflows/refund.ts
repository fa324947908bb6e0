import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { EventType } from '../src/events/catalogue';
import { refundRequestOf, type RefundOutcome, type RefundWorkflowInput } from './refund-api';
import { operatorCallbackSignal } from './signals';
import {
  operatorActivities,
  recordActivities,
  type EventActivities,
  type OperatorActivities,
  type RefundActivities,
  type RefundOutcomeActivities,
} from './activity-proxies';
import { askOperator } from './ask-operator';
import { ANSWERS_ONLY_PATCH } from './code-revision';
import { watchStopRequest } from './stop-request';
import { legacyRefundWorkflow } from './legacy/refund';
import { saStatus } from '../src/temporal/search-attributes';

export type { RefundWorkflowInput } from './refund-api';

const acts = recordActivities<
  RefundActivities & Pick<OperatorActivities, 'flagForOps'> & Pick<EventActivities, 'recordEvent'>
>();
const operator = operatorActivities<RefundActivities & Pick<OperatorActivities, 'cancelAtOperator'>>();
const outcomes = recordActivities<RefundOutcomeActivities>();
const operatorSteps =
  operatorActivities<Pick<RefundOutcomeActivities, 'readRefundAndSettle' | 'announceAndRequestRefund'>>();

/**
 * Patch (Temporal's `patched()`): an event is one activity (it was two), and the refund's end one
 * more (fee, status and event; or status, event, reversal and `reversed`), its final status shown
 * once; a completion is recorded by the status read that finds it. Histories without it take each step apart. docs/scaling.md.
 */
export const REFUND_FEWER_STEPS_PATCH = 'refund-records-in-fewer-steps';

/**
 * Patch: the request to the operator emits `refund.processing` first (one activity where there
 * were two). Asked in the first workflow task, so its marker costs no billable action.
 */
export const REFUND_ANNOUNCED_BY_REQUEST_PATCH = 'refund-announced-by-request';

/** A refund the operator leaves pending this long is asked to be cancelled. */
export const REFUND_OPERATOR_DEADLINE_MS = 48 * 3_600_000;

/**
 * One refund, started by its payin's workflow once the merchant was debited (and the refund stored
 * `processing`). Asks the operator to credit the customer: `completed` when it did; `failed`, then
 * the merchant credited back and `reversed`, only when it refused or confirmed our cancellation.
 * An operator that answers neither is asked until it does (docs/refunds.md).
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<RefundOutcome> {
  if (!input.resume && !patched(ANSWERS_ONLY_PATCH)) return legacyRefundWorkflow(input);
  const woken = { value: false };
  // The payin workflow forwards the operator's callbacks for this refund: only a wake-up call.
  setHandler(operatorCallbackSignal, () => {
    woken.value = true;
  });
  const stop = watchStopRequest();
  const fewerSteps = patched(REFUND_FEWER_STEPS_PATCH);
  // A resumed run asks too: its re-sends announce (a no-op once the event exists).
  const announcedByRequest = fewerSteps && patched(REFUND_ANNOUNCED_BY_REQUEST_PATCH);
  const emit = async (type: EventType) =>
    fewerSteps
      ? outcomes.emitRefundEvent(input.refundId, type)
      : acts.recordEvent(await acts.refundEventInput(input.refundId, type));
  // Ops filter refunds by status in the Temporal UI, as they do payins and payouts.
  const showStatus = (status: 'completed' | 'failed' | 'reversed') =>
    upsertSearchAttributes([{ key: saStatus, value: status }]);
  let endRecorded = false;
  const read = async () => {
    if (!fewerSteps) return operator.readRefundStatus(input.refundId, input.operator, input.country);
    // Applied by the activity only if the operator answers `completed`; dated with workflow time.
    const processedAt = new Date().toISOString();
    const status = await operatorSteps.readRefundAndSettle(
      input.refundId,
      input.operator,
      input.country,
      processedAt,
    );
    if (status.settled) endRecorded = true;
    return status;
  };

  return CancellationScope.nonCancellable(async () => {
    if (!input.resume && !announcedByRequest) await emit('refund.processing');
    const deadline = input.resume?.deadline ?? Date.now() + REFUND_OPERATOR_DEADLINE_MS;
    const request = refundRequestOf(input);
    const answer = await askOperator({
      request: () =>
        announcedByRequest
          ? operatorSteps.announceAndRequestRefund(request)
          : operator.requestRefund(request),
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
    // completion the status read recorded (change REFUND_FEWER_STEPS_PATCH), in the task right after.
    if (answer.outcome === 'completed') {
      showStatus('completed');
      if (fewerSteps) {
        if (!endRecorded)
          await outcomes.recordRefundEnd(input.refundId, { outcome: 'completed', processedAt });
        return 'completed';
      }
      await acts.completeRefund(input.refundId, processedAt);
      await emit('refund.completed');
      return 'completed';
    }
    const failure = answer.cancelled
      ? {
          code: 'REFUND_EXPIRED',
          message: 'The operator did not settle the refund in time; it was cancelled',
        }
      : (answer.status.failure ?? { code: 'OPERATOR_ERROR', message: 'The operator refused the refund' });
    if (fewerSteps) {
      showStatus('reversed');
      await outcomes.recordRefundEnd(input.refundId, { outcome: 'failed', failure, processedAt });
      return 'reversed';
    }
    showStatus('failed');
    await acts.failRefund(input.refundId, failure, processedAt);
    await emit('refund.failed');
    showStatus('reversed');
    await acts.reverseRefund(input.refundId);
    return 'reversed';
  });
}
