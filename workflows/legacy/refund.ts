import { condition, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { OperatorStatus } from '../../src/operators/gateway';
import type { EventType } from '../../src/events/catalogue';
import { refundRequestOf, type RefundOutcome, type RefundWorkflowInput } from '../refund-api';
import { operatorCallbackSignal } from '../signals';
import { acts, operator, pollDelayMs } from '../activity-proxies';
import { hasChange } from '../code-revision';
import { saStatus } from '../../src/temporal/search-attributes';

/** A refund the operator leaves pending this long is failed ("deadline exceeded") and reversed. */
const REFUND_OPERATOR_DEADLINE_MS = 48 * 3_600_000;

// The refund workflow as it ran before "ambiguity never moves money" (workflows/refund.ts): kept
// unchanged so that histories started before it replay exactly as they ran. Do not edit.

/**
 * One refund, started by its payin's workflow once the merchant was debited (and the refund stored
 * `processing`). Asks the operator to credit the customer; on success the refund is `completed`; on
 * refusal it is `failed`, then the merchant is credited back and it is `reversed`. Each step is an
 * idempotent activity, so the merchant is debited once and credited back at most once.
 */
export async function legacyRefundWorkflow(input: RefundWorkflowInput): Promise<RefundOutcome> {
  let signalled = false;
  // The payin workflow forwards the operator's callbacks for this refund: only a wake-up call.
  setHandler(operatorCallbackSignal, () => {
    signalled = true;
  });
  const emit = async (type: EventType) => acts.recordEvent(await acts.refundEventInput(input.refundId, type));
  // Ops filter refunds by status in the Temporal UI, as they do payins and payouts.
  const showStatus = (status: 'completed' | 'failed' | 'reversed') =>
    upsertSearchAttributes([{ key: saStatus, value: status }]);

  await emit('refund.processing');
  let answer: OperatorStatus | null;
  try {
    answer = await operator.requestRefund(refundRequestOf(input));
  } catch (err) {
    log.warn('refund request failed', { error: String(err) });
    answer = null;
  }
  const deadline = Date.now() + REFUND_OPERATOR_DEADLINE_MS; // workflow time: deterministic
  for (let attempt = 0; answer?.outcome === 'pending';) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      answer = {
        outcome: 'failed',
        operatorReference: answer.operatorReference,
        failure: { code: 'REFUND_EXPIRED', message: 'The operator did not settle the refund in time' },
      };
      break;
    }
    // A callback that came while the operator was being asked wakes the first wait too: cleared
    // after each wait, not before it (before, it was lost and the refund slept a poll interval).
    // A change: histories recorded before it replay as they ran.
    const keepEarlyCallback = hasChange(input, 'refund-keeps-early-operator-callback');
    if (!keepEarlyCallback) signalled = false;
    await condition(() => signalled, Math.min(pollDelayMs(attempt++), remaining));
    if (keepEarlyCallback) signalled = false;
    try {
      answer = await operator.readRefundStatus(input.refundId, input.operator, input.country);
    } catch (err) {
      log.warn('refund status unavailable; polling again', { error: String(err) });
    }
  }
  const processedAt = new Date().toISOString();
  if (answer?.outcome === 'completed') {
    await acts.completeRefund(input.refundId, processedAt);
    showStatus('completed');
    await emit('refund.completed');
    return 'completed';
  }
  const failure = answer?.failure ?? {
    code: 'OPERATOR_UNAVAILABLE',
    message: 'The operator could not be reached',
  };
  await acts.failRefund(input.refundId, failure, processedAt);
  showStatus('failed');
  await emit('refund.failed');
  await acts.reverseRefund(input.refundId);
  showStatus('reversed');
  return 'reversed';
}
