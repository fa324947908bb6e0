import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayinCollection, PayinStateUpdate } from '../activities/payin-activities';
import type { Failure, TransactionStatus } from '../src/domain/transaction';
import { providerName } from '../src/domain/operators';
import { isAmbiguousFailure } from '../src/domain/failures';
import { saProvider, saStatus } from '../src/temporal/search-attributes';
import {
  confirmSessionUpdate,
  declineSessionUpdate,
  operatorAnswerUpdate,
  payinStateQuery,
  type PayinState,
  type PayinWorkflowInput,
  type SessionConfirmation,
} from './payin-api';
import { operatorCallbackSignal } from './signals';
import {
  operatorActivities,
  recordActivities,
  type EventActivities,
  type OperatorActivities,
  type PayinActivities,
  type RefundActivities,
} from './activity-proxies';
import { askOperator, type AskAnswer } from './ask-operator';
import { payinRefunds } from './payin-refunds';
import { ANSWERS_ONLY_PATCH, hasChange } from './code-revision';
import { otpKeeper, type OtpKeeper } from './otp-keeper';
import { watchStopRequest } from './stop-request';
import { legacyPayinWorkflow } from './legacy/payin';

export type { PayinWorkflowInput } from './payin-api';

const acts = recordActivities<
  PayinActivities &
    Pick<RefundActivities, 'listPayinRefunds'> &
    Pick<OperatorActivities, 'flagForOps'> &
    Pick<EventActivities, 'emitTransactionEvent'>
>();
const operator = operatorActivities<PayinActivities & Pick<OperatorActivities, 'cancelAtOperator'>>();

/** Partner checks after an ambiguous failure: 5 min, 10 min ... capped at 2 hours (by default). */
const partnerCheckDelayMs = (attempt: number, intervalMs = 300_000) =>
  Math.min(intervalMs * 2 ** attempt, intervalMs * 24);

type Answer = Exclude<AskAnswer, { outcome: 'continue' }>;

/**
 * One payin, direct or session: session wait -> collect -> finish -> refund window.
 * Session: nothing happens until the customer confirms on the hosted page (Update). Collect: the
 * operator is asked until it answers (workflows/ask-operator.ts); at the customer's deadline it is
 * asked to cancel, and only a confirmed cancellation makes the payin `expired`. Finish: success
 * credits the merchant; an ambiguous failure is re-checked with the operator's partner for 48
 * hours. Refund window: refunds are decided here (workflows/payin-refunds.ts).
 */
export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinState> {
  if (!input.resume && !patched(ANSWERS_ONLY_PATCH)) return legacyPayinWorkflow(input);
  const state: PayinState = input.resume?.state ?? {
    status: 'processing',
    confirmationStatus: 'none',
    failure: null,
    awaitingCustomer: input.flow === 'session',
    paymentUrl: null,
    ussdCode: null,
  };
  const woken = { value: false };
  const stop = watchStopRequest();
  let seq = input.resume?.seq ?? 0;
  let requestSent = input.resume !== undefined;
  let confirmation: SessionConfirmation | null = null;
  let declined = false;

  // Every write of the payin's record is numbered, and write n+1 starts only once n is stored
  // (src/persistence/state-versions.ts): the main story and the refund list share one queue, as a
  // refund accepted right after success would otherwise race the success write.
  let lastWrite: Promise<unknown> = Promise.resolve();
  const write = <T>(fn: (seq: number) => Promise<T>): Promise<T> => {
    const next = lastWrite.then(() => fn(++seq));
    lastWrite = next.catch(() => undefined);
    return next;
  };
  const record = async (changes: PayinStateUpdate) => {
    Object.assign(state, changes);
    if (changes.status) upsertSearchAttributes([{ key: saStatus, value: changes.status }]);
    await write((n) => acts.recordPayinState(input.transactionId, changes, n));
  };
  const refunds = payinRefunds(input, state, (ids) =>
    write((n) => acts.listPayinRefunds(input.transactionId, ids, n)),
  );

  setHandler(payinStateQuery, () => state);
  setHandler(operatorCallbackSignal, (payload) => {
    // A refund's callback reaches the payin's workflow (the operator names the collection).
    if (payload.kind === 'refund') refunds.relay(payload.id, { kind: 'refund', id: payload.id });
    else woken.value = true;
  });
  setHandler(operatorAnswerUpdate, async () => {
    await condition(() => requestSent || isFinal(state.status));
    return state;
  });
  // Rejected Updates never reach history: a late click on the page changes nothing.
  const assertSessionOpen = () => {
    if (!state.awaitingCustomer) throw new Error('This payment session is no longer open.');
  };
  setHandler(
    confirmSessionUpdate,
    (choice) => {
      confirmation = choice;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: (_choice) => assertSessionOpen() },
  );
  setHandler(
    declineSessionUpdate,
    () => {
      declined = true;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: assertSessionOpen },
  );

  return CancellationScope.nonCancellable(async () => {
    const collection = input.resume?.collection ?? input.collection ?? (await customerChoice());
    if (!collection) return state;
    const otp = keepOtp(collection);
    // Refundable from the moment success is recorded (before the API can read it).
    refunds.open(collection);
    const deadline = input.resume?.deadline ?? Date.now() + input.timing.expiryMs;
    const answer = await collect(collection, deadline, otp);
    if (answer.outcome === 'continue') {
      await condition(allHandlersFinished);
      return continueAsNew<typeof payinWorkflow>({
        ...input,
        resume: {
          ask: answer.state,
          deadline,
          seq,
          collection,
          state,
          ...(otp && !otp.forgotten() ? { otpForgetAt: otp.forgetAt } : {}),
        },
      });
    }
    // The operator answered for good: the OTP will not be sent again.
    await otp?.forget();
    if (!(await finish(answer, collection))) return state;
    await refundWindow();
    return state;
  });

  /**
   * The deleting of the collection's stored OTP, if it has one (change `otp-by-reference`). A resumed
   * run without `otpForgetAt`: the previous run already deleted it.
   */
  function keepOtp(c: PayinCollection): OtpKeeper | null {
    if (c.otpId === undefined) return null;
    if (input.resume && input.resume.otpForgetAt === undefined) return null;
    if (!hasChange(input, 'otp-by-reference')) return null;
    const forgetAt = input.resume?.otpForgetAt ?? Date.now() + (input.timing.otpLifetimeMs ?? 300_000);
    return otpKeeper(c.otpId, forgetAt);
  }

  /** Session flow: the customer's choice on the page; null when it declined or let it expire (ended). */
  async function customerChoice(): Promise<PayinCollection | null> {
    const acted = await condition(
      () => confirmation !== null || declined || stop.requested,
      input.timing.sessionExpiryMs,
    );
    state.awaitingCustomer = false;
    if (!acted || stop.requested || (!declined && !confirmation)) {
      await end('expired', failureOf('EXPIRED', 'Nobody answered in time', null));
      return null;
    }
    if (declined || !confirmation) {
      await record({ confirmationStatus: 'declined' });
      await end('failed', failureOf('DECLINED_BY_CUSTOMER', 'The customer declined the payment', null));
      return null;
    }
    const choice: SessionConfirmation = confirmation;
    const provider = providerName(choice.provider, input.country);
    upsertSearchAttributes([{ key: saProvider, value: provider }]);
    await record({ provider, customerPhone: choice.msisdn });
    return {
      transactionId: input.transactionId,
      operator: choice.provider,
      country: input.country,
      msisdn: choice.msisdn,
      amount: input.amount,
      currency: input.currency,
      // An Update from before `otp-by-reference` carries the OTP itself; newer ones its stored id.
      ...(choice.otp ? { otp: choice.otp } : {}),
      ...(choice.otpId ? { otpId: choice.otpId } : {}),
      sandboxScenario: input.sandboxScenario,
    };
  }

  async function collect(req: PayinCollection, deadline: number, otp: OtpKeeper | null): Promise<AskAnswer> {
    if (!input.resume) await record({ confirmationStatus: 'pending' });
    // Whether the operator may already hold this request (an earlier send, or a previous run's).
    let sentBefore = input.resume !== undefined;
    return askOperator({
      request: async () => {
        try {
          if (req.otpId === undefined) return await operator.requestCollection(req);
          const sent = sentBefore;
          sentBefore = true;
          return await operator.requestCollection(req, { sentBefore: sent });
        } finally {
          requestSent = true; // the API's wait for WAVE's address ends, answered or not
        }
      },
      read: () => operator.readCollectionStatus(req.transactionId, req.operator, req.country),
      cancel: () => operator.cancelAtOperator('collection', req.transactionId, req.operator, req.country),
      deadline,
      woken,
      stopRequested: () => stop.requested,
      onAcknowledged: async (first) => {
        // Used: the operator holds the request, and an acknowledged request is never sent again.
        await otp?.forget();
        state.paymentUrl = first.paymentUrl ?? null;
        state.ussdCode = first.ussdCode ?? null;
        if (first.paymentUrl) await record({ paymentUrl: first.paymentUrl });
      },
      onUnresolved: () =>
        write((n) =>
          acts.flagForOps({ kind: 'payin', id: input.transactionId, reason: 'OPERATOR_UNRESOLVED', seq: n }),
        ),
      ...(input.resume ? { resume: input.resume.ask } : {}),
      ...(input.timing.readsPerRun ? { readsPerRun: input.timing.readsPerRun } : {}),
    });
  }

  /** Records the operator's answer; true when the payin succeeded (now or after a partner check). */
  async function finish(answer: Answer, req: PayinCollection): Promise<boolean> {
    const provider = providerName(req.operator, req.country);
    if (answer.outcome === 'completed') {
      await record({ confirmationStatus: 'accepted' });
      await acts.creditMerchantForPayin(input.transactionId);
      await record({ status: 'success', attention: null });
      await acts.emitTransactionEvent(input.transactionId, 'payin.completed');
      return true;
    }
    if (answer.cancelled) {
      // The operator confirmed it will not collect: the customer was not debited.
      await end('expired', failureOf('EXPIRED', 'Nobody answered in time', provider));
      return false;
    }
    const f = answer.status.failure ?? {
      code: 'OPERATOR_ERROR',
      message: 'The operator refused the payment',
    };
    const failure = failureOf(f.code, f.message, provider);
    if (!isAmbiguousFailure(failure.code)) {
      const declinedByPayer = failure.code !== 'OPERATOR_REJECTED';
      await end('failed', failure, declinedByPayer);
      return false;
    }
    // The operator said failed, but the customer may have been debited: ask its partner.
    await end('failed', failure);
    if (!(await correctedByPartner(req))) return false;
    await acts.creditMerchantForPayin(input.transactionId);
    await record({ status: 'success', confirmationStatus: 'accepted', failure: null });
    await acts.emitTransactionEvent(input.transactionId, 'payin.corrected');
    return true;
  }

  async function end(status: 'failed' | 'expired', failure: Failure, declinedByPayer = false): Promise<void> {
    await record({
      status,
      failure,
      attention: null,
      ...(declinedByPayer && state.confirmationStatus !== 'declined'
        ? { confirmationStatus: 'declined' as const }
        : {}),
    });
    await acts.emitTransactionEvent(
      input.transactionId,
      status === 'failed' ? 'payin.failed' : 'payin.expired',
    );
  }

  async function correctedByPartner(req: PayinCollection): Promise<boolean> {
    const deadline = Date.now() + input.timing.correctionWindowMs;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await sleep(Math.min(partnerCheckDelayMs(attempt, input.timing.partnerCheckIntervalMs), remaining));
      try {
        const check = await operator.partnerCheck(req.transactionId, req.operator, req.country);
        if (check.collected) return true;
      } catch (err) {
        log.warn('partner check unavailable; trying again later', {
          error: err instanceof Error ? err.name : 'unknown',
        });
      }
    }
  }

  /** The refund window is a durable timer; a stop request closes it early. */
  async function refundWindow(): Promise<void> {
    await condition(() => stop.requested, input.timing.refundWindowMs);
    // Refunds accepted in time still finish under this workflow (their callbacks come through it).
    await refunds.close();
    await condition(allHandlersFinished);
  }

  function failureOf(code: string, message: string, provider: string | null): Failure {
    return { code, message, provider: provider as Failure['provider'] };
  }
}

function isFinal(status: TransactionStatus): boolean {
  return status !== 'processing' && status !== 'pending';
}
