import { condition, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayoutStateUpdate } from '../../activities/payout-activities';
import type { OperatorStatus } from '../../src/operators/gateway';
import type { Failure } from '../../src/domain/transaction';
import { providerName } from '../../src/domain/operators';
import { saStatus } from '../../src/temporal/search-attributes';
import { operatorCallbackSignal } from '../signals';
import { acts, operator, pollDelayMs } from '../activity-proxies';
import { hasChange } from '../code-revision';
import type { PayoutResult, PayoutWorkflowInput } from '../payout-api';

/** Past the deadline, an operator that has never answered is asked again, at most an hour apart. */
const recheckDelayMs = (attempt: number) => Math.min(60_000 * 2 ** attempt, 3_600_000);

// The payout workflow as it ran before "ambiguity never moves money" (workflows/payout.ts): kept
// unchanged so that histories started before it replay exactly as they ran. Do not edit.

/**
 * One payout: pending (the API debited the account) -> processing -> processed -> completed, or
 * failed / expired -> reversed. Money goes back only on the operator's own answer (failed, or still
 * pending at the deadline): an operator that did not answer may have paid, so it is asked until it
 * answers, and a payout is never both paid and refunded to the merchant.
 */
export async function legacyPayoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutResult> {
  const req = input.disbursement;
  const provider = providerName(req.operator, req.country);
  const failureOf = (code: string, message: string): Failure => ({ code, message, provider });
  let signalled = false;
  setHandler(operatorCallbackSignal, () => {
    signalled = true;
  });

  const record = async (update: PayoutStateUpdate) => {
    await acts.recordPayoutState(input.transactionId, update);
    if (update.status) {
      upsertSearchAttributes([{ key: saStatus, value: update.status }]);
      await acts.emitTransactionEvent(input.transactionId, 'payout.updated');
    }
  };
  /** The operator took the transfer: `processed`, with its reference in the record. */
  const processed = (first: OperatorStatus) =>
    record({
      status: 'processed',
      operatorReference: first.operatorReference,
      processedAt: new Date().toISOString(), // workflow time: deterministic
      operatorStatus: 'pending',
    });

  try {
    // The API applied this very debit (same sourceRef): normally a replay that writes nothing.
    await acts.ensurePayoutDebited(input.transactionId);
  } catch {
    // Only a non-retryable InsufficientFundsError gets here: nothing was debited, nothing to reverse.
    const failure = failureOf('INSUFFICIENT_BALANCE', 'The account balance does not cover the payout');
    await record({ status: 'failed', failure });
    return { status: 'failed', failure };
  }
  await record({ status: 'processing' });

  let answer: OperatorStatus | null = null;
  try {
    answer = await operator.requestDisbursement(req);
    await processed(answer);
  } catch (err) {
    // Timeouts, an unreachable operator: the transfer may have been made. Ask, never assume.
    log.warn('disbursement request unanswered; checking its status', { error: String(err) });
  }

  const deadline = Date.now() + input.timing.expiryMs;
  for (let attempt = 0; answer?.outcome !== 'completed' && answer?.outcome !== 'failed'; attempt++) {
    const remaining = deadline - Date.now();
    // The operator itself still says pending at the deadline: it did not pay, the payout expires.
    if (remaining <= 0 && answer?.outcome === 'pending') break;
    // A callback that came while the operator was being asked wakes the first wait too: cleared
    // after each wait, not before it (before, it was lost and the payout slept a poll interval).
    // A change: histories recorded before it replay as they ran.
    const keepEarlyCallback = hasChange(input, 'payout-keeps-early-operator-callback');
    if (!keepEarlyCallback) signalled = false;
    await condition(
      () => signalled,
      remaining > 0 ? Math.min(pollDelayMs(attempt), remaining) : recheckDelayMs(attempt),
    );
    if (keepEarlyCallback) signalled = false;
    try {
      const read = await operator.readDisbursementStatus(req.transactionId, req.operator, req.country);
      // First answer after an unanswered request: a transfer the operator never saw is not processed.
      if (!answer && read.outcome !== 'failed') await processed(read);
      answer = read;
    } catch (err) {
      log.warn('disbursement status unavailable; asking again later', { error: String(err) });
    }
  }

  if (answer?.outcome === 'completed') {
    await acts.settlePayoutFee(input.transactionId);
    await record({
      status: 'completed',
      operatorStatus: 'completed',
      operatorReference: answer.operatorReference,
      processedAt: new Date().toISOString(),
      failure: null,
    });
    await acts.emitTransactionEvent(input.transactionId, 'payout.completed');
    return { status: 'completed', failure: null };
  }
  const failed = answer?.outcome === 'failed';
  const failure = failed
    ? failureOf(
        answer?.failure?.code ?? 'OPERATOR_ERROR',
        answer?.failure?.message ?? 'The operator refused the transfer',
      )
    : failureOf('EXPIRED', 'The operator did not settle the transfer before the deadline');
  await record({
    status: failed ? 'failed' : 'expired',
    operatorStatus: 'failed',
    processedAt: new Date().toISOString(),
    failure,
  });
  await acts.reversePayout(input.transactionId);
  await record({ status: 'reversed' });
  return { status: 'reversed', failure };
}
