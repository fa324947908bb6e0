import { condition, log, workflowInfo } from '@temporalio/workflow';
import type { OperatorStatus } from '../../src/operators/gateway';
import { operatorFailureCodes } from '../../src/operators/gateway';
import { pollDelayMs } from './activity-proxies';
import { activityFailureType } from './activity-failures';
import { isPatched } from './patches';

// The one rule of every operator call (payins, payouts, refunds), written once:
//
//   An unanswered request, a timeout, a 5xx, `pending` at our deadline, a 404 or an unreadable
//   status is never a final answer. The step ends only on an explicit answer of the operator
//   (completed, or failed), which includes a cancellation the operator confirmed.
//
// Before our deadline it waits for the operator's callback (a wake-up only) and reads the status on
// a backoff. A request that was never acknowledged and that the operator does not know is sent
// again (same id: the operator deduplicates). At the deadline it asks the operator to cancel; an
// operator that neither cancels nor settles is asked again, further and further apart, the
// transaction is flagged for ops, and the history stays bounded by continue-as-new.
// docs/decisions/operators/ambiguity-never-moves-money.md.

/** Where the step stands; carried across continue-as-new. */
export interface AskState {
  /** The operator acknowledged our request (it answered it once). */
  acknowledged: boolean;
  /** Status reads made so far (drives the backoff). */
  reads: number;
  /** The deadline passed and the operator was asked to cancel. */
  cancelAsked: boolean;
  /** The transaction was flagged for ops (once). */
  flagged: boolean;
  /** Re-checks made past the deadline (drives their backoff). */
  rechecks: number;
}

export type AskAnswer =
  | { outcome: 'completed'; status: OperatorStatus }
  /** `cancelled`: the operator confirmed our cancellation; otherwise it refused or failed it. */
  | { outcome: 'failed'; status: OperatorStatus; cancelled: boolean }
  /** History is long: the workflow continues as new with this state and asks again. */
  | { outcome: 'continue'; state: AskState };

export interface AskOperator {
  /** Sends the request; our id is the operator's idempotency key, so sending again is safe. */
  request(): Promise<OperatorStatus>;
  read(): Promise<OperatorStatus>;
  cancel(): Promise<OperatorStatus>;
  /** Workflow time (ms) after which we stop waiting and ask the operator to cancel. */
  deadline: number;
  /** True once the operator called back since the last read; the step clears it. */
  woken: { value: boolean };
  /** True when the workflow was asked to stop (Temporal cancellation): the deadline is now. */
  stopRequested?: () => boolean;
  /** The operator's first answer to our request (a redirect address, an operator reference). */
  onAcknowledged?(status: OperatorStatus): Promise<void>;
  /** Past the deadline with no explicit answer: flag for ops (called once). */
  onUnresolved?(): Promise<void>;
  /** Continuing a previous run's step (continue-as-new): the request is not sent again. */
  resume?: AskState;
  /** Status reads in one run before continuing as new (Temporal may suggest it earlier). */
  readsPerRun?: number;
  /** Longest wait between two reads before the deadline (default 5 minutes). */
  maxPollMs?: number;
}

/** After the deadline: 1 min, 2 min ... capped at an hour. */
const recheckDelayMs = (round: number) => Math.min(60_000 * 2 ** round, 3_600_000);

const DEFAULT_READS_PER_RUN = 500;

export async function askOperator(ask: AskOperator): Promise<AskAnswer> {
  const state: AskState = ask.resume ?? {
    acknowledged: false,
    reads: 0,
    cancelAsked: false,
    flagged: false,
    rechecks: 0,
  };
  const readsPerRun = ask.readsPerRun ?? DEFAULT_READS_PER_RUN;
  let readsThisRun = 0;
  const pastDeadline = () => Date.now() >= ask.deadline || (ask.stopRequested?.() ?? false);

  /** The operator's answer to a request, or null when there was none (ask again later). */
  const send = async (): Promise<AskAnswer | null> => {
    try {
      const first = await ask.request();
      if (!state.acknowledged) {
        state.acknowledged = true;
        await ask.onAcknowledged?.(first);
      }
      return finalOf(first);
    } catch (err) {
      if (refusedByOperator(err))
        return isPatched('refusal-confirmed-by-status') ? confirmRefusal() : refusal();
      log.warn('operator request unanswered; its status decides', { error: errorName(err) });
      return null;
    }
  };

  /**
   * A refusal answers one send; another send of the same id (a retry, a replayed workflow task's
   * local try) may have been taken. Money goes back only if the operator's books agree: it does not
   * know the id. Holding it, the operator's status is the answer; unreadable, nothing is decided.
   */
  const confirmRefusal = async (): Promise<AskAnswer | null> => {
    const read = await readStatus(ask, state);
    if (read === null) return null;
    if (read.outcome === 'unknown') return refusal();
    log.warn('operator refused a send but holds the request; its status decides');
    if (!state.acknowledged) {
      state.acknowledged = true;
      await ask.onAcknowledged?.(read);
    }
    return finalOf(read);
  };

  if (!ask.resume) {
    const answer = await send();
    if (answer) return answer;
  }

  for (;;) {
    if (readsThisRun >= readsPerRun || workflowInfo().continueAsNewSuggested)
      return { outcome: 'continue', state };
    const late = pastDeadline();
    if (!late) {
      const remaining = ask.deadline - Date.now();
      await condition(
        () => ask.woken.value || (ask.stopRequested?.() ?? false),
        Math.min(pollDelayMs(state.reads, ask.maxPollMs ?? 300_000), remaining),
      );
    } else if (state.cancelAsked) {
      await condition(() => ask.woken.value, recheckDelayMs(state.rechecks++));
    }
    ask.woken.value = false;

    if (!pastDeadline()) {
      const read = await readStatus(ask, state);
      readsThisRun++;
      if (read?.outcome === 'unknown' && !state.acknowledged) {
        // The request may never have reached the operator: send it again, same id.
        const answer = await send();
        if (answer) return answer;
        continue;
      }
      const answer = read && finalOf(read);
      if (answer) return answer;
      continue;
    }

    // Our deadline passed: only the operator can end this, by settling or by cancelling.
    state.cancelAsked = true;
    try {
      const answer = finalOf(await ask.cancel());
      if (answer) return answer;
    } catch (err) {
      log.warn('operator cancellation unanswered; asking again later', { error: errorName(err) });
    }
    const read = await readStatus(ask, state);
    readsThisRun++;
    const answer = read && finalOf(read);
    if (answer) return answer;
    if (!state.flagged) {
      state.flagged = true;
      log.warn('operator has not settled nor cancelled past our deadline; flagged for ops');
      await ask.onUnresolved?.();
    }
  }
}

async function readStatus(ask: AskOperator, state: AskState): Promise<OperatorStatus | null> {
  state.reads++;
  try {
    return await ask.read();
  } catch (err) {
    log.warn('operator status unreadable; asking again later', { error: errorName(err) });
    return null;
  }
}

function finalOf(status: OperatorStatus): AskAnswer | null {
  if (status.outcome === 'completed') return { outcome: 'completed', status };
  if (status.outcome === 'failed')
    return { outcome: 'failed', status, cancelled: status.failure?.code === operatorFailureCodes.cancelled };
  return null;
}

/** A 4xx refusal of the request itself: nothing was done at the operator (non-retryable). */
const refusedByOperator = (err: unknown) => activityFailureType(err) === 'OperatorRejectedError';

function refusal(): AskAnswer {
  return {
    outcome: 'failed',
    cancelled: false,
    status: {
      outcome: 'failed',
      operatorReference: '',
      failure: { code: operatorFailureCodes.rejected, message: 'The operator refused the request' },
    },
  };
}

/** The failure's type only: an operator's message may echo what we sent. */
function errorName(err: unknown): string {
  return activityFailureType(err) ?? (err instanceof Error ? err.name : 'unknown');
}
