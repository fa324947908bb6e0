import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PayoutProviderState, PayoutStateUpdate } from '../../activities/payout/payout-activities';
import type { OperatorStatus } from '../../src/operators/gateway';
import type { Failure } from '../../src/domain/transaction';
import { providerName } from '../../src/domain/operators';
import { saStatus } from '../../src/temporal/search-attributes';
import { operatorCallbackSignal } from '../../src/operators/callback-signal';
import {
  operatorActivities,
  recordActivities,
  type OperatorActivities,
  type PayoutActivities,
  type PayoutOutcomeActivities,
} from '../shared/activity-proxies';
import { askOperator, type AskAnswer } from '../shared/ask-operator';
import { watchStopRequest } from '../shared/stop-request';
import { isInsufficientFunds } from '../shared/activity-failures';
import {
  cancelPayoutUpdate,
  type PayoutCancelAnswer,
  type PayoutResult,
  type PayoutWorkflowInput,
} from './payout-api';

export type { PayoutResult, PayoutWorkflowInput } from './payout-api';

/** Checks of the provider's health in one run while holding, before continuing as new. */
const HOLD_CHECKS_PER_RUN = 200;
/** Between two checks while holding: the provider's Retry-After, within these bounds. */
const HOLD_MIN_MS = 30_000;
const HOLD_MAX_MS = 10 * 60_000;
const HOLD_DEFAULT_MS = 60_000;
const holdDelayMs = (retryAfterSeconds: number | null) =>
  retryAfterSeconds === null
    ? HOLD_DEFAULT_MS
    : Math.min(Math.max(retryAfterSeconds * 1000, HOLD_MIN_MS), HOLD_MAX_MS);

const acts = recordActivities<Pick<OperatorActivities, 'flagForOps'>>();
const operator = operatorActivities<
  Pick<PayoutActivities, 'requestDisbursement'> & Pick<OperatorActivities, 'cancelAtOperator'>
>();
const outcomes = recordActivities<PayoutOutcomeActivities>();
const settling = operatorActivities<Pick<PayoutOutcomeActivities, 'readDisbursementAndSettle'>>();
/**
 * The health read gives up soon: a health store that cannot answer must not hold payouts, and
 * sending is always safe (the ask step never moves money on silence).
 */
const health = proxyActivities<Pick<PayoutActivities, 'payoutProviderState'>>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

/**
 * One payout: pending (the API debited the account) -> processing -> processed -> completed, or
 * failed / expired -> reversed. Before sending, the provider's health is asked: a delayed or closed
 * provider holds the payout `pending`, unsent and cancellable, until it recovers. The money goes
 * back only on the operator's explicit answer: a refusal, or a cancellation it confirmed after our
 * deadline (`expired`). An operator that answers neither is asked until it does, and the payout is
 * flagged for ops meanwhile (docs/payouts.md). A status write and its event are one activity, the
 * debit check and the provider's health one, the end one; only the final status is shown in the
 * Temporal UI (set at start: `pending`). docs/scaling.md.
 */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutResult> {
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
  let seq = input.resume?.seq ?? input.held?.seq ?? 0;
  /** The provider's health, read with the debit check. */
  let healthAtStart: PayoutProviderState | null = null;
  /** The status read that found the completion recorded it. */
  let endRecorded = false;
  const completedUpdate = (operatorReference: string, processedAt: string): PayoutStateUpdate => ({
    status: 'completed',
    operatorStatus: 'completed',
    operatorReference,
    processedAt,
    failure: null,
    attention: null,
  });
  // Until the request to the operator is about to go, a cancellation wins (money back, once); from
  // then on only the operator can end the payout. Workflow code runs one handler or step at a time,
  // so the two cannot interleave.
  let sending = !!input.resume;
  let cancelAsked = false;
  let cancelAnswer: PayoutCancelAnswer | null = null;
  setHandler(cancelPayoutUpdate, async (): Promise<PayoutCancelAnswer> => {
    if (sending) return { outcome: 'with-operator' };
    cancelAsked = true;
    await condition(() => cancelAnswer !== null);
    return cancelAnswer!;
  });
  const endHold = (answer: PayoutCancelAnswer) => {
    cancelAnswer ??= answer;
  };
  const showStatus = (status: PayoutStateUpdate['status']) => {
    if (status) upsertSearchAttributes([{ key: saStatus, value: status }]);
  };
  const record = async (update: PayoutStateUpdate) => {
    if (update.status !== 'processing' && update.status !== 'processed') showStatus(update.status);
    await outcomes.recordPayoutStep(id, { update, seq: ++seq });
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
      if (!input.held && !(await debited())) {
        const failure = failureOf('INSUFFICIENT_BALANCE', 'The account balance does not cover the payout');
        await record({ status: 'failed', failure });
        endHold({ outcome: 'ended' });
        return { status: 'failed', failure };
      }
      const held = await hold();
      if (held === 'cancel') return cancelled();
      if (held === 'continue') {
        // A cancellation taken meanwhile is answered here, not carried into the next run.
        await condition(() => allHandlersFinished() || cancelAsked);
        if (cancelAsked) return cancelled();
        return continueAsNew<typeof payoutWorkflow>({ ...input, held: { seq } });
      }
      sending = true;
      endHold({ outcome: 'with-operator' });
      await record({ status: 'processing' });
    }
    // PAYOUT_EXPIRY runs from here: the time held for the provider does not count.
    const deadline = input.resume?.deadline ?? Date.now() + input.timing.expiryMs;
    const answer = await askOperator({
      request: () => operator.requestDisbursement(req),
      read: readAndSettle,
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

  /**
   * Waits, the payout `pending` and unsent, while the provider is delayed or closed: `send` once it
   * is operational (or its health cannot be read), `cancel` on the merchant's cancellation or ops'
   * stop request, `continue` when this run's history is long enough.
   */
  async function hold(): Promise<'send' | 'cancel' | 'continue'> {
    let checks = 0;
    let holding = false;
    for (;;) {
      if (cancelAsked || stop.requested) return 'cancel';
      const provider = healthAtStart ?? (await providerState());
      healthAtStart = null;
      if (cancelAsked || stop.requested) return 'cancel';
      if (provider.state === 'operational') {
        if (holding) log.info('provider recovered; sending the held payout');
        return 'send';
      }
      if (!holding) {
        holding = true;
        log.info('provider not operational; payout held', { state: provider.state });
      }
      const perRun = input.timing.readsPerRun ?? HOLD_CHECKS_PER_RUN;
      if (++checks >= perRun || workflowInfo().continueAsNewSuggested) return 'continue';
      await condition(() => cancelAsked || stop.requested, holdDelayMs(provider.retryAfterSeconds));
    }
  }

  async function providerState(): Promise<PayoutProviderState> {
    try {
      return await health.payoutProviderState(id, req.operator, req.country);
    } catch {
      log.warn('provider health unreadable; sending');
      return { state: 'operational', retryAfterSeconds: null };
    }
  }

  /** Cancelled before it was sent: the debit credited back (fixed sourceRef: once), then `reversed`. */
  async function cancelled(): Promise<PayoutResult> {
    const failure = failureOf('CANCELLED', 'The payout was cancelled before it was sent to the operator');
    showStatus('reversed');
    const reversed = { update: { status: 'reversed' as const, failure, attention: null }, seq: ++seq };
    await outcomes.recordPayoutEnd(id, { outcome: 'reversed', failed: null, reversed });
    endHold({ outcome: 'cancelled' });
    await condition(allHandlersFinished);
    return { status: 'reversed', failure };
  }

  /** The API applied this very debit (same sourceRef): normally a replay that writes nothing. */
  async function debited(): Promise<boolean> {
    try {
      healthAtStart = await outcomes.beginPayout(id, req.operator, req.country);
      return true;
    } catch (err) {
      if (isInsufficientFunds(err)) return false;
      throw err;
    }
  }

  /**
   * A status read that records the completion it finds: the next write number is used only if the
   * operator answered `completed`.
   */
  async function readAndSettle(): Promise<OperatorStatus> {
    const completed = { update: completedUpdate('', new Date().toISOString()), seq: seq + 1 };
    const status = await settling.readDisbursementAndSettle(id, req.operator, req.country, completed);
    if (status.settled) {
      seq++;
      endRecorded = true;
    }
    return status;
  }

  async function settle(answer: Exclude<AskAnswer, { outcome: 'continue' }>): Promise<PayoutResult> {
    const processedAt = new Date().toISOString();
    if (answer.outcome === 'completed' && endRecorded) {
      showStatus('completed');
      return { status: 'completed', failure: null };
    }
    if (answer.outcome === 'completed') {
      const completed = completedUpdate(answer.status.operatorReference, processedAt);
      showStatus('completed');
      await outcomes.recordPayoutEnd(id, {
        outcome: 'completed',
        completed: { update: completed, seq: ++seq },
      });
      return { status: 'completed', failure: null };
    }
    const failure = answer.cancelled
      ? failureOf('EXPIRED', 'The operator did not settle the transfer before the deadline; it was cancelled')
      : failureOf(
          answer.status.failure?.code ?? 'OPERATOR_ERROR',
          answer.status.failure?.message ?? 'The operator refused the transfer',
        );
    const failed: PayoutStateUpdate = {
      status: answer.cancelled ? 'expired' : 'failed',
      operatorStatus: 'failed',
      processedAt,
      failure,
      attention: null,
    };
    showStatus('reversed');
    await outcomes.recordPayoutEnd(id, {
      outcome: 'reversed',
      failed: { update: failed, seq: ++seq },
      reversed: { update: { status: 'reversed' }, seq: ++seq },
    });
    return { status: 'reversed', failure };
  }
}
