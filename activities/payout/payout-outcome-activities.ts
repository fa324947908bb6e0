import type { Country, OperatorCode } from '../../src/domain/operators';
import { settleOnCompleted, type SettledStatus } from '../shared/settle-on-completed';
import { readingOnce } from '../../src/persistence/read-once';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';
import {
  createPayoutActivities,
  type PayoutActivityDeps,
  type PayoutProviderState,
  type PayoutStateUpdate,
} from './payout-activities';

/** One write of a payout's record: the changes and the workflow's write number for them. */
export interface PayoutStep {
  update: PayoutStateUpdate;
  /** The workflow's state-write number (src/persistence/state-versions.ts). */
  seq: number;
}

/** A payout's end as its workflow decides it, recorded in one step. */
export type PayoutEnd =
  | { outcome: 'completed'; completed: PayoutStep }
  /** `failed` (a refusal, a confirmed cancellation) first when there is one; the money back; `reversed`. */
  | { outcome: 'reversed'; failed: PayoutStep | null; reversed: PayoutStep };

/** The single steps the merged ones are made of (stubbed one by one in workflow tests). */
export type PayoutStepActivities = Pick<
  ReturnType<typeof createPayoutActivities>,
  | 'ensurePayoutDebited'
  | 'payoutProviderState'
  | 'recordPayoutState'
  | 'settlePayoutFee'
  | 'reversePayout'
  | 'readDisbursementStatus'
> &
  Pick<ReturnType<typeof createEventActivities>, 'emitTransactionEvent'>;

/**
 * A payout's writes merged into the steps its workflow takes (change `payout-records-in-fewer-steps`,
 * workflows/payout/payout.ts). Every write inside applies once (the ledger's fixed sourceRefs, the numbered
 * state write, the event's emission key), so a retry of a whole step redoes nothing twice; the order
 * is the one the workflow used to take step by step.
 */
export function createPayoutOutcomeActivities(deps: PayoutActivityDeps & EventActivityDeps) {
  // Each activity reads the payout once: its events after the state write carry the record as written.
  return readingOnce(mergePayoutSteps({ ...createPayoutActivities(deps), ...createEventActivities(deps) }));
}

export function mergePayoutSteps(payout: PayoutStepActivities) {
  const { emitTransactionEvent } = payout;
  /** A status change and its `payout.updated` event, which carries the record as written. */
  const recordPayoutStep = async (transactionId: string, step: PayoutStep): Promise<void> => {
    await payout.recordPayoutState(transactionId, step.update, step.seq);
    if (step.update.status) await emitTransactionEvent(transactionId, 'payout.updated');
  };
  /**
   * Completed: the fee settled, the record `completed` with its `payout.updated`, then
   * `payout.completed`. Reversed: `failed` and its event if the operator refused, the gross amount
   * credited back, then `reversed` and its event. Called only on the operator's explicit answer, or
   * on a cancellation before the payout was sent.
   */
  const recordPayoutEnd = async (transactionId: string, end: PayoutEnd): Promise<void> => {
    if (end.outcome === 'completed') {
      await payout.settlePayoutFee(transactionId);
      await recordPayoutStep(transactionId, end.completed);
      await emitTransactionEvent(transactionId, 'payout.completed');
      return;
    }
    if (end.failed) await recordPayoutStep(transactionId, end.failed);
    await payout.reversePayout(transactionId);
    await recordPayoutStep(transactionId, end.reversed);
  };
  return {
    recordPayoutStep,
    recordPayoutEnd,

    /**
     * The status read that records the completion the workflow prepared, its operator reference
     * taken from this answer (settle-on-completed.ts).
     */
    async readDisbursementAndSettle(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
      onCompleted: PayoutStep,
    ): Promise<SettledStatus> {
      return settleOnCompleted(
        () => payout.readDisbursementStatus(transactionId, operator, country),
        (status) => {
          const update = { ...onCompleted.update, operatorReference: status.operatorReference };
          return recordPayoutEnd(transactionId, {
            outcome: 'completed',
            completed: { ...onCompleted, update },
          });
        },
      );
    },

    /**
     * The debit the API applied, made sure of (normally a replay that writes nothing; a balance that
     * does not cover it fails non-retryable), then the provider's health. A health store that cannot
     * answer is read as operational: sending is always safe, holding on a guess is not.
     */
    async beginPayout(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<PayoutProviderState> {
      await payout.ensurePayoutDebited(transactionId);
      try {
        return await payout.payoutProviderState(transactionId, operator, country);
      } catch {
        return { state: 'operational', retryAfterSeconds: null };
      }
    },
  };
}
