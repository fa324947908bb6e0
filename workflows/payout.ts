import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayoutStateUpdate } from '../activities/payout-activities';
import type { OperatorStatus } from '../src/operators/gateway';
import type { Failure } from '../src/domain/transaction';
import { providerName } from '../src/domain/operators';
import { saStatus } from '../src/temporal/search-attributes';
import { operatorCallbackSignal } from './signals';
import {
  operatorActivities,
  recordActivities,
  type EventActivities,
  type OperatorActivities,
  type PayoutActivities,
} from './activity-proxies';
import { askOperator, type AskAnswer } from './ask-operator';
import { ANSWERS_ONLY_PATCH } from './code-revision';
import { watchStopRequest } from './stop-request';
import { isInsufficientFunds } from './activity-failures';
import { legacyPayoutWorkflow } from './legacy/payout';
import type { PayoutResult, PayoutWorkflowInput } from './payout-api';

export type { PayoutResult, PayoutWorkflowInput } from './payout-api';

const acts = recordActivities<
  PayoutActivities & Pick<OperatorActivities, 'flagForOps'> & Pick<EventActivities, 'emitTransactionEvent'>
>();
const operator = operatorActivities<PayoutActivities & Pick<OperatorActivities, 'cancelAtOperator'>>();

/**
 * One payout: pending (the API debited the account) -> processing -> processed -> completed, or
 * failed / expired -> reversed. The money goes back only on the operator's explicit answer: a
 * refusal, or a cancellation it confirmed after our deadline (`expired`). An operator that answers
 * neither is asked until it does, and the payout is flagged for ops meanwhile (docs/payouts.md).
 */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutResult> {
  if (!input.resume && !patched(ANSWERS_ONLY_PATCH)) return legacyPayoutWorkflow(input);
  const req = input.disbursement;
  const id = input.transactionId;
  const failureOf = (code: string, message: string): Failure => ({
    code,
    message,
    provider: providerName(req.operator, req.country),
  });
  const woken = { value: false };
  setHandler(operatorCallbackSignal, () => {
    woken.value = true;
  });
  const stop = watchStopRequest();
  let seq = input.resume?.seq ?? 0;
  const record = async (update: PayoutStateUpdate) => {
    await acts.recordPayoutState(id, update, ++seq);
    if (update.status) {
      upsertSearchAttributes([{ key: saStatus, value: update.status }]);
      await acts.emitTransactionEvent(id, 'payout.updated');
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

  return CancellationScope.nonCancellable(async () => {
    if (!input.resume) {
      if (!(await debited())) {
        const failure = failureOf('INSUFFICIENT_BALANCE', 'The account balance does not cover the payout');
        await record({ status: 'failed', failure });
        return { status: 'failed', failure };
      }
      await record({ status: 'processing' });
    }
    const deadline = input.resume?.deadline ?? Date.now() + input.timing.expiryMs;
    const answer = await askOperator({
      request: () => operator.requestDisbursement(req),
      read: () => operator.readDisbursementStatus(id, req.operator, req.country),
      cancel: () => operator.cancelAtOperator('disbursement', id, req.operator, req.country),
      deadline,
      woken,
      stopRequested: () => stop.requested,
      onAcknowledged: processed,
      onUnresolved: () => acts.flagForOps({ kind: 'payout', id, reason: 'OPERATOR_UNRESOLVED', seq: ++seq }),
      ...(input.resume ? { resume: input.resume.ask } : {}),
      ...(input.timing.readsPerRun ? { readsPerRun: input.timing.readsPerRun } : {}),
    });
    if (answer.outcome === 'continue') {
      await condition(allHandlersFinished);
      return continueAsNew<typeof payoutWorkflow>({ ...input, resume: { ask: answer.state, deadline, seq } });
    }
    return settle(answer);
  });

  /** The API applied this very debit (same sourceRef): normally a replay that writes nothing. */
  async function debited(): Promise<boolean> {
    try {
      await acts.ensurePayoutDebited(id);
      return true;
    } catch (err) {
      if (isInsufficientFunds(err)) return false;
      throw err;
    }
  }

  async function settle(answer: Exclude<AskAnswer, { outcome: 'continue' }>): Promise<PayoutResult> {
    const processedAt = new Date().toISOString();
    if (answer.outcome === 'completed') {
      await acts.settlePayoutFee(id);
      await record({
        status: 'completed',
        operatorStatus: 'completed',
        operatorReference: answer.status.operatorReference,
        processedAt,
        failure: null,
        attention: null,
      });
      await acts.emitTransactionEvent(id, 'payout.completed');
      return { status: 'completed', failure: null };
    }
    const failure = answer.cancelled
      ? failureOf('EXPIRED', 'The operator did not settle the transfer before the deadline; it was cancelled')
      : failureOf(
          answer.status.failure?.code ?? 'OPERATOR_ERROR',
          answer.status.failure?.message ?? 'The operator refused the transfer',
        );
    await record({
      status: answer.cancelled ? 'expired' : 'failed',
      operatorStatus: 'failed',
      processedAt,
      failure,
      attention: null,
    });
    await acts.reversePayout(id);
    await record({ status: 'reversed' });
    return { status: 'reversed', failure };
  }
}
