import { condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayinStateUpdate } from '../../activities/payin/payin-activities';
import type { TransactionStatus } from '../../src/domain/transaction';
import { saStatus } from '../../src/temporal/search-attributes';
import { isFinal } from '../../src/domain/final-status';
import {
  confirmSessionUpdate,
  declineSessionUpdate,
  operatorAnswerUpdate,
  payinStateQuery,
  type PayinState,
  type PayinWorkflowInput,
  type SessionConfirmation,
} from './payin-api';
import { operatorCallbackSignal } from '../../src/operators/callback-signal';
import type { PayinOutcome } from '../../activities/payin/payin-outcome-activities';
import {
  localFirst,
  localRecordActivities,
  recordActivities,
  type OperatorActivities,
  type PayinActivities,
  type PayinOutcomeActivities,
} from '../shared/activity-proxies';
import { watchStopRequest } from '../shared/stop-request';
import { isPatched } from '../shared/patches';

// What one run of a payin workflow shares between its steps (workflows/payin/payin-steps.ts): its state,
// the numbered queue of its record writes, and the messages it answers (query, Updates, signals).

export const acts = recordActivities<
  Pick<PayinActivities, 'recordPayinState'> & Pick<OperatorActivities, 'flagForOps'>
>();

const outcomes = recordActivities<Pick<PayinOutcomeActivities, 'recordPayinOutcome'>>();
// The same writes, one try each inside the workflow task (workflows/shared/activity-proxies.ts).
const localWrites = localRecordActivities<
  Pick<PayinActivities, 'recordPayinState'> & Pick<PayinOutcomeActivities, 'recordPayinOutcome'>
>();

export interface PayinRun {
  readonly input: PayinWorkflowInput;
  readonly state: PayinState;
  /**
   * Short steps run first as a local activity (one marker each instead of six events), then as a
   * regular one: patch `payin-local-activities`, unless started with PAYIN_LOCAL_ACTIVITIES off.
   */
  readonly local: boolean;
  /** An operator's callback arrived (a wake-up only: the status is read). */
  readonly woken: { value: boolean };
  /** A Temporal cancellation, read as "the deadline is now" (workflows/shared/stop-request.ts). */
  readonly stop: { requested: boolean };
  /** Session flow: what the customer did on the page. */
  readonly customer: { confirmation: SessionConfirmation | null; declined: boolean };
  /** The collection was sent (answered or not): the API's wait for WAVE's address ends. */
  requestSent: boolean;
  /** The status read that found the success recorded it (workflows/payin/payin-steps.ts). */
  successRecorded: boolean;
  /** The last state-write sequence number (carried across continue-as-new). */
  seq(): number;
  /** Runs `fn` with the next sequence number once every earlier write is stored. */
  write<T>(fn: (seq: number) => Promise<T>): Promise<T>;
  /** Applies `changes` to the state and stores them (next in the write queue). */
  record(changes: PayinStateUpdate): Promise<void>;
  /** The final answer: state, credit and event in one step (activities/payin/payin-outcome-activities.ts). */
  settle(outcome: Omit<PayinOutcome, 'seq'>): Promise<void>;
  /**
   * A write that may not happen: `fn` gets the next sequence number and says whether it used it
   * (the status read that records a success only if the operator answers `completed`).
   */
  maybeWrite<T extends { settled: boolean }>(fn: (seq: number) => Promise<T>): Promise<T>;
  /** Shows a final status in the Temporal UI (ops filter on it). */
  showStatus(status: TransactionStatus): void;
}

/** Sets up a run: its state (a resumed run's, or a new one) and every handler, before any await. */
export function startPayinRun(input: PayinWorkflowInput): PayinRun {
  const state: PayinState = input.resume?.state ?? {
    status: 'processing',
    confirmationStatus: 'none',
    failure: null,
    awaitingCustomer: input.flow === 'session',
    paymentUrl: null,
    ussdCode: null,
  };
  const stop = watchStopRequest();
  const local = input.timing.localActivities !== false && isPatched('payin-local-activities');
  let seq = input.resume?.seq ?? 0;

  // Every write of the payin's record is numbered, and write n+1 starts only once n is stored
  // (src/persistence/state-versions.ts); the refund desk goes on numbering from the last one.
  let lastWrite: Promise<unknown> = Promise.resolve();
  const write = <T>(fn: (seq: number) => Promise<T>): Promise<T> => {
    const next = lastWrite.then(() => fn(++seq));
    lastWrite = next.catch(() => undefined);
    return next;
  };
  const showStatus = (status: TransactionStatus | undefined) => {
    if (status) upsertSearchAttributes([{ key: saStatus, value: status }]);
  };
  const applyOutcome = (changes: PayinStateUpdate) => {
    const { refundableUntil: _window, customerPhone: _phone, ...shown } = changes;
    Object.assign(state, shown);
    showStatus(changes.status);
  };
  const run: PayinRun = {
    input,
    state,
    local,
    woken: { value: false },
    stop,
    customer: { confirmation: null, declined: false },
    requestSent: input.resume !== undefined,
    successRecorded: false,
    seq: () => seq,
    write,
    async record(changes) {
      Object.assign(state, changes);
      showStatus(changes.status);
      await write((n) =>
        local
          ? localFirst(
              () => localWrites.recordPayinState(input.transactionId, changes, n),
              () => acts.recordPayinState(input.transactionId, changes, n),
            )
          : acts.recordPayinState(input.transactionId, changes, n),
      );
    },
    async settle(outcome) {
      applyOutcome(outcome.changes);
      await write((n) =>
        local
          ? localFirst(
              () => localWrites.recordPayinOutcome(input.transactionId, { ...outcome, seq: n }),
              () => outcomes.recordPayinOutcome(input.transactionId, { ...outcome, seq: n }),
            )
          : outcomes.recordPayinOutcome(input.transactionId, { ...outcome, seq: n }),
      );
    },
    maybeWrite(fn) {
      const next = lastWrite.then(async () => {
        const result = await fn(seq + 1);
        if (result.settled) seq++;
        return result;
      });
      lastWrite = next.catch(() => undefined);
      return next;
    },
    showStatus,
  };

  setHandler(payinStateQuery, () => state);
  setHandler(operatorCallbackSignal, (payload) => {
    // A refund's callback is the refund's own workflow's business (the API signals it there).
    if (payload.kind !== 'refund') run.woken.value = true;
  });
  setHandler(operatorAnswerUpdate, async () => {
    await condition(() => run.requestSent || isFinal('payin', state.status));
    return state;
  });
  // Rejected Updates never reach history: a late click on the page changes nothing.
  const assertSessionOpen = () => {
    if (!state.awaitingCustomer) throw new Error('This payment session is no longer open.');
  };
  setHandler(
    confirmSessionUpdate,
    (choice) => {
      run.customer.confirmation = choice;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: (_choice) => assertSessionOpen() },
  );
  setHandler(
    declineSessionUpdate,
    () => {
      run.customer.declined = true;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: assertSessionOpen },
  );
  return run;
}
