import {
  log,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import { activityApplicationFailure } from './activity-failures';
import { INSUFFICIENT_FUNDS } from '../../src/ledger/errors';
import type { createEventActivities } from '../../activities/shared/event-activities';
import type { createOperatorActivities } from '../../activities/shared/operator-activities';
import type { createPayinActivities } from '../../activities/payin/payin-activities';
import type { createPayinOutcomeActivities } from '../../activities/payin/payin-outcome-activities';
import type { createPayoutActivities } from '../../activities/payout/payout-activities';
import type { createPayoutOutcomeActivities } from '../../activities/payout/payout-outcome-activities';
import type { createRefundActivities } from '../../activities/refund/refund-activities';
import type { createRefundOutcomeActivities } from '../../activities/refund/refund-outcome-activities';

// The two ways every transaction workflow calls its activities, and how it polls an operator.
// Each workflow proxies the activities of the factories it uses (temporalio/samples-typescript,
// activities-dependency-injection), typed from those factories: it sees only what it may call. The
// activity type is the property name, so which proxy issues a call changes nothing in a history.

export type EventActivities = ReturnType<typeof createEventActivities>;
export type OperatorActivities = ReturnType<typeof createOperatorActivities>;
export type PayinActivities = ReturnType<typeof createPayinActivities>;
export type PayinOutcomeActivities = ReturnType<typeof createPayinOutcomeActivities>;
export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
export type PayoutOutcomeActivities = ReturnType<typeof createPayoutOutcomeActivities>;
export type RefundActivities = ReturnType<typeof createRefundActivities>;
export type RefundOutcomeActivities = ReturnType<typeof createRefundOutcomeActivities>;

/**
 * Ledger and record activities: retried until they apply (each money movement has a fixed
 * sourceRef). A permanent error (a record that does not exist, a sourceRef reused with other
 * terms) and a real insufficient balance are not retried: retrying cannot help.
 */
const untilApplied: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    nonRetryableErrorTypes: ['PermanentError', INSUFFICIENT_FUNDS, 'SourceRefConflictError'],
  },
};

/**
 * Operator calls give up after a few tries: an unreachable operator is something the workflow
 * decides about (re-check, correction, reversal), never a hang.
 */
const operatorCall: ActivityOptions = {
  startToCloseTimeout: '20s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    // A 4xx refusal of the request is the operator's answer: asking again gets the same one.
    nonRetryableErrorTypes: ['OperatorRejectedError'],
  },
};

/**
 * One try of a short step inside the workflow task (a local activity: one marker in history
 * instead of six events). Bounded well under the 10 s workflow task timeout, so it never needs a
 * task heartbeat; anything longer, or any failure, goes to the regular activity and its retries
 * (`localFirst`), so a local activity never runs or retries long.
 */
const oneLocalTry: LocalActivityOptions = {
  startToCloseTimeout: '5s',
  retry: { maximumAttempts: 1 },
};

/** Operator calls of type `A`, one try as a local activity (see `localFirst`). */
export const localOperatorActivities = <A>() => proxyLocalActivities<A>(oneLocalTry);

/** Ledger and record activities of type `A`, one try as a local activity (see `localFirst`). */
export const localRecordActivities = <A>() => proxyLocalActivities<A>(oneLocalTry);

/**
 * Runs `local` (one local try) and, when it fails for a reason a retry may cure (a timeout, a 5xx,
 * a store hiccup), the same call as a regular activity with its retry policy. An answer retrying
 * cannot change (a refusal, a permanent error) is the answer. Both calls carry the same ids, so
 * an abandoned local try that still lands is deduplicated like any activity retry.
 */
export async function localFirst<T>(local: () => Promise<T>, regular: () => Promise<T>): Promise<T> {
  try {
    return await local();
  } catch (err) {
    const failure = activityApplicationFailure(err);
    const type = failure?.type ?? null;
    if (failure?.nonRetryable || (type !== null && finalFailureTypes.has(type))) throw err;
    log.info('local activity try failed; running it as a regular activity', { error: type ?? 'timeout' });
    return regular();
  }
}

const finalFailureTypes = new Set([
  ...(operatorCall.retry?.nonRetryableErrorTypes ?? []),
  ...(untilApplied.retry?.nonRetryableErrorTypes ?? []),
]);

/** Ledger and record activities of type `A`, retried until they apply. */
export const recordActivities = <A>() => proxyActivities<A>(untilApplied);

/** Operator calls of type `A`, given up after a few tries. */
export const operatorActivities = <A>() => proxyActivities<A>(operatorCall);

/** What the code of workflows/legacy/ (kept unchanged for old histories) calls, through these two. */
type LegacyActivities = PayinActivities &
  PayoutActivities &
  RefundActivities &
  OperatorActivities &
  EventActivities;
export const acts = recordActivities<LegacyActivities>();
export const operator = operatorActivities<LegacyActivities>();

/** Polling while the operator has no final answer: 5 s, 10 s, 20 s ... capped (5 minutes by default). */
export const pollDelayMs = (attempt: number, capMs = 300_000) => Math.min(5_000 * 2 ** attempt, capMs);
