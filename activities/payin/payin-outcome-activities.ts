import type { EventType } from '../../src/events/catalogue';
import type { Country, OperatorCode } from '../../src/domain/operators';
import { settleOnCompleted, type SettledStatus } from '../shared/settle-on-completed';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';
import { readingOnce } from '../../src/persistence/read-once';
import { createPayinActivities, type PayinActivityDeps, type PayinStateUpdate } from './payin-activities';

/** A payin's final answer as its workflow records it in one step. */
export interface PayinOutcome {
  /** The record's new state (status, failure, confirmation, refund window). */
  changes: PayinStateUpdate;
  /** The workflow's state-write number for `changes` (src/persistence/state-versions.ts). */
  seq: number;
  /** Collected: the merchant is credited before the status says success. */
  credit: boolean;
  event: EventType;
}

/**
 * The end of a payin as one activity: credit, state, event. Three writes that each apply once (the
 * credit's fixed sourceRefs, the numbered state write, the event's id), so a retry of the whole
 * redoes nothing twice; in that order, so a reader that sees `success` finds the merchant credited,
 * and the event carries the final record. And the status read that most often precedes it, merged.
 */
export function createPayinOutcomeActivities(deps: PayinActivityDeps & EventActivityDeps) {
  const payin = createPayinActivities(deps);
  const events = createEventActivities(deps);
  const recordPayinOutcome = async (transactionId: string, outcome: PayinOutcome): Promise<void> => {
    if (outcome.credit) await payin.creditMerchantForPayin(transactionId);
    await payin.recordPayinState(transactionId, outcome.changes, outcome.seq);
    await events.emitTransactionEvent(transactionId, outcome.event);
  };
  // Each activity reads the payin once: the event after the state write carries the record as written.
  return readingOnce({
    recordPayinOutcome,

    /** The status read that records the success the workflow prepared (settle-on-completed.ts). */
    async readCollectionAndSettle(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
      onCompleted: PayinOutcome,
    ): Promise<SettledStatus> {
      return settleOnCompleted(
        () => payin.readCollectionStatus(transactionId, operator, country),
        () => recordPayinOutcome(transactionId, onCompleted),
      );
    },
  });
}
