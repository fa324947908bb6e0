import { condition, log, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayinCollection } from '../../activities/payin/payin-activities';
import type { Failure } from '../../src/domain/transaction';
import { providerName } from '../../src/domain/operators';
import { isAmbiguousFailure } from '../../src/domain/failures';
import { saProvider } from '../../src/temporal/search-attributes';
import type { SessionConfirmation } from './payin-api';
import {
  localFirst,
  localOperatorActivities,
  operatorActivities,
  type OperatorActivities,
  type PayinActivities,
  type PayinOutcomeActivities,
} from '../shared/activity-proxies';
import { askOperator, type AskAnswer } from '../shared/ask-operator';
import { otpKeeper, type OtpKeeper } from './otp-keeper';
import { acts, type PayinRun } from './payin-run';

// The steps of a payin (workflows/payin/payin.ts tells them in order): session wait, collect, finish.
// Each takes the run (workflows/payin/payin-run.ts) and issues its commands in the order
// the golden histories (test/golden) recorded: reorder nothing without `patched()`.

const operator = operatorActivities<PayinActivities & Pick<OperatorActivities, 'cancelAtOperator'>>();
const settling = operatorActivities<Pick<PayinOutcomeActivities, 'readCollectionAndSettle'>>();
// The same two calls, one try each inside the workflow task (workflows/shared/activity-proxies.ts).
type CollectCalls = Pick<PayinActivities, 'requestCollection'> &
  Pick<PayinOutcomeActivities, 'readCollectionAndSettle'>;
const localCalls = localOperatorActivities<CollectCalls>();
const regularCalls: CollectCalls = {
  requestCollection: (...args) => operator.requestCollection(...args),
  readCollectionAndSettle: (...args) => settling.readCollectionAndSettle(...args),
};

/** Partner checks after an ambiguous failure: 5 min, 10 min ... capped at 2 hours (by default). */
const partnerCheckDelayMs = (attempt: number, intervalMs = 300_000) =>
  Math.min(intervalMs * 2 ** attempt, intervalMs * 24);

export type Answer = Exclude<AskAnswer, { outcome: 'continue' }>;

/** Session flow: the customer's choice on the page; null when it declined or let it expire (ended). */
export async function sessionWait(run: PayinRun): Promise<PayinCollection | null> {
  const { input, customer, stop } = run;
  const acted = await condition(
    () => customer.confirmation !== null || customer.declined || stop.requested,
    input.timing.sessionExpiryMs,
  );
  run.state.awaitingCustomer = false;
  if (!acted || stop.requested || (!customer.declined && !customer.confirmation)) {
    await end(run, 'expired', failureOf('EXPIRED', 'Nobody answered in time', null));
    return null;
  }
  if (customer.declined || !customer.confirmation) {
    await run.record({ confirmationStatus: 'declined' });
    await end(run, 'failed', failureOf('DECLINED_BY_CUSTOMER', 'The customer declined the payment', null));
    return null;
  }
  const choice: SessionConfirmation = customer.confirmation;
  const provider = providerName(choice.provider, input.country);
  upsertSearchAttributes([{ key: saProvider, value: provider }]);
  // The provider and phone are written with the request's `pending` write (collect, below).
  return {
    transactionId: input.transactionId,
    operator: choice.provider,
    country: input.country,
    msisdn: choice.msisdn,
    amount: input.amount,
    currency: input.currency,
    // The OTP's stored id, never the OTP itself (src/persistence/otp-store.ts).
    ...(choice.otpId ? { otpId: choice.otpId } : {}),
    sandboxScenario: input.sandboxScenario,
    scope: input.merchantId,
  };
}

/**
 * The deleting of the collection's stored OTP, if it has one. A resumed run without `otpForgetAt`:
 * the previous run already deleted it.
 */
export function keepOtp(run: PayinRun, c: PayinCollection): OtpKeeper | null {
  const { input } = run;
  if (c.otpId === undefined) return null;
  if (input.resume && input.resume.otpForgetAt === undefined) return null;
  const forgetAt = input.resume?.otpForgetAt ?? Date.now() + (input.timing.otpLifetimeMs ?? 300_000);
  return otpKeeper(c.otpId, forgetAt);
}

/** Asks the operator to collect until it answers for good (workflows/shared/ask-operator.ts). */
export async function collect(
  run: PayinRun,
  req: PayinCollection,
  deadline: number,
  otp: OtpKeeper | null,
): Promise<AskAnswer> {
  const { input, state } = run;
  // The request and each status read: a local activity first (run.local).
  const calls: CollectCalls = run.local
    ? {
        requestCollection: (r, opts) =>
          localFirst(
            () => localCalls.requestCollection(r, opts),
            // The local try may have reached the operator: with an OTP, the activity must know
            // (a gone OTP then asks again without it, never OTP_EXPIRED).
            () =>
              regularCalls.requestCollection(
                r,
                opts && 'sentBefore' in opts ? { ...opts, sentBefore: true } : opts,
              ),
          ),
        readCollectionAndSettle: (...args) =>
          localFirst(
            () => localCalls.readCollectionAndSettle(...args),
            () => regularCalls.readCollectionAndSettle(...args),
          ),
      }
    : regularCalls;
  // Whether the operator may already hold this request (an earlier send, or a previous run's).
  let sentBefore = input.resume !== undefined;
  const send = () => {
    // With an OTP, the activity must know: a request the operator may hold goes without it.
    const opts = req.otpId === undefined ? {} : { sentBefore };
    if (sentBefore) return calls.requestCollection(req, opts);
    sentBefore = true;
    // The first send writes `pending` itself (next in the write queue), and for a session the
    // provider and phone the customer chose.
    const customer = input.flow === 'session' ? { recordsCustomer: true } : {};
    return run.write((n) => calls.requestCollection(req, { ...opts, pendingSeq: n, ...customer }));
  };
  return askOperator({
    request: async () => {
      try {
        return await send();
      } finally {
        run.requestSent = true; // the API's wait for WAVE's address ends, answered or not
      }
    },
    read: async () => {
      // A success is recorded by the read that finds it (one activity, not two).
      const onCompleted = completedOutcome(run);
      const status = await run.maybeWrite((seq) =>
        calls.readCollectionAndSettle(req.transactionId, req.operator, req.country, {
          ...onCompleted,
          seq,
        }),
      );
      if (status.settled) run.successRecorded = true;
      return status;
    },
    cancel: () => operator.cancelAtOperator('collection', req.transactionId, req.operator, req.country),
    deadline,
    woken: run.woken,
    stopRequested: () => run.stop.requested,
    onAcknowledged: async (first) => {
      // Used: the operator holds the request, and an acknowledged request is never sent again.
      await otp?.forget();
      state.paymentUrl = first.paymentUrl ?? null;
      state.ussdCode = first.ussdCode ?? null;
      if (first.paymentUrl) await run.record({ paymentUrl: first.paymentUrl });
    },
    onUnresolved: () =>
      run.write((n) =>
        acts.flagForOps({ kind: 'payin', id: input.transactionId, reason: 'OPERATOR_UNRESOLVED', seq: n }),
      ),
    ...(input.resume ? { resume: input.resume.ask } : {}),
    ...(input.timing.readsPerRun ? { readsPerRun: input.timing.readsPerRun } : {}),
  });
}

/** Records the operator's answer: success, failure or expiry (after a partner check if ambiguous). */
export async function finish(run: PayinRun, answer: Answer, req: PayinCollection): Promise<void> {
  const provider = providerName(req.operator, req.country);
  if (answer.outcome === 'completed') {
    // Recorded already by the status read that found it; otherwise (the request's own answer) now.
    if (run.successRecorded) run.showStatus('success');
    else await run.settle(completedOutcome(run));
    Object.assign(run.state, { confirmationStatus: 'accepted', status: 'success', attention: null });
    return;
  }
  if (answer.cancelled) {
    // The operator confirmed it will not collect: the customer was not debited.
    await end(run, 'expired', failureOf('EXPIRED', 'Nobody answered in time', provider));
    return;
  }
  const f = answer.status.failure ?? {
    code: 'OPERATOR_ERROR',
    message: 'The operator refused the payment',
  };
  const failure = failureOf(f.code, f.message, provider);
  if (!isAmbiguousFailure(failure.code)) {
    const declinedByPayer = failure.code !== 'OPERATOR_REJECTED';
    await end(run, 'failed', failure, declinedByPayer);
    return;
  }
  // The operator said failed, but the customer may have been debited: ask its partner.
  await end(run, 'failed', failure);
  if (!(await correctedByPartner(run, req))) return;
  await run.settle({
    changes: { status: 'success', confirmationStatus: 'accepted', failure: null, ...refundWindow(run) },
    credit: true,
    event: 'payin.corrected',
  });
}

/** The success a payin records, with its refund window's end. */
function completedOutcome(run: PayinRun) {
  return {
    changes: {
      confirmationStatus: 'accepted' as const,
      status: 'success' as const,
      attention: null,
      ...refundWindow(run),
    },
    credit: true,
    event: 'payin.completed' as const,
  };
}

/** The refund window is a date on the record, which the refund desk reads. */
function refundWindow(run: PayinRun): { refundableUntil: string } {
  return { refundableUntil: new Date(Date.now() + run.input.timing.refundWindowMs).toISOString() };
}

async function end(
  run: PayinRun,
  status: 'failed' | 'expired',
  failure: Failure,
  declinedByPayer = false,
): Promise<void> {
  const changes = {
    status,
    failure,
    attention: null,
    ...(declinedByPayer && run.state.confirmationStatus !== 'declined'
      ? { confirmationStatus: 'declined' as const }
      : {}),
  };
  const event = status === 'failed' ? 'payin.failed' : 'payin.expired';
  await run.settle({ changes, credit: false, event });
}

/** Partner checks until the correction window closes; true once the partner finds the funds. */
async function correctedByPartner(run: PayinRun, req: PayinCollection): Promise<boolean> {
  const { timing } = run.input;
  const deadline = Date.now() + timing.correctionWindowMs;
  for (let attempt = 0; ; attempt++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    await sleep(Math.min(partnerCheckDelayMs(attempt, timing.partnerCheckIntervalMs), remaining));
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

function failureOf(code: string, message: string, provider: string | null): Failure {
  return { code, message, provider: provider as Failure['provider'] };
}
