import type { EventType } from '../../src/events/catalogue';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { OperatorStatus, RefundRequest } from '../../src/operators/gateway';
import { settleOnCompleted, type SettledStatus } from '../shared/settle-on-completed';
import { readingOnce } from '../../src/persistence/read-once';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';
import { createRefundActivities, type RefundActivityDeps } from './refund-activities';

/** A refund's end as its workflow decides it, recorded in one step. */
export type RefundEnd =
  | { outcome: 'completed'; processedAt: string }
  | { outcome: 'failed'; failure: { code: string; message: string }; processedAt: string };

/** The single steps the merged ones are made of (stubbed one by one in workflow tests). */
export type RefundStepActivities = Pick<
  ReturnType<typeof createRefundActivities>,
  | 'completeRefund'
  | 'failRefund'
  | 'reverseRefund'
  | 'refundEventInput'
  | 'readRefundStatus'
  | 'requestRefund'
> &
  Pick<ReturnType<typeof createEventActivities>, 'recordEvent'>;

/**
 * A refund's writes merged into the steps its workflow takes (change `refund-records-in-fewer-steps`,
 * workflows/refund/refund.ts). Every write inside applies once (the ledger's fixed sourceRefs, the refund's
 * status advance, the audit step per refund, the event's emission key), so a retry of a whole step
 * redoes nothing twice; the order is the one the workflow used to take step by step.
 */
export function createRefundOutcomeActivities(deps: RefundActivityDeps & EventActivityDeps) {
  // Each activity reads the refund once: its events after the state write carry the record as written.
  return readingOnce(mergeRefundSteps({ ...createRefundActivities(deps), ...createEventActivities(deps) }));
}

export function mergeRefundSteps(refund: RefundStepActivities) {
  const { recordEvent } = refund;
  const emitRefundEvent = async (refundId: string, type: EventType): Promise<{ eventId: string }> =>
    recordEvent(await refund.refundEventInput(refundId, type));
  /**
   * Completed: the fee settled, the refund `completed`, then its event. Failed (a refusal, or a
   * cancellation the operator confirmed): `failed` and its event, then the merchant credited back
   * and the refund `reversed`. The workflow calls it only on the operator's explicit answer.
   */
  const recordRefundEnd = async (refundId: string, end: RefundEnd): Promise<void> => {
    if (end.outcome === 'completed') {
      await refund.completeRefund(refundId, end.processedAt);
      await emitRefundEvent(refundId, 'refund.completed');
      return;
    }
    await refund.failRefund(refundId, end.failure, end.processedAt);
    await emitRefundEvent(refundId, 'refund.failed');
    await refund.reverseRefund(refundId);
  };
  return {
    /** The event of a refund's state change, its data the refund as the API shows it. */
    emitRefundEvent,
    recordRefundEnd,

    /**
     * `refund.processing`, then the operator asked: the
     * event goes out before the operator can answer, and every send announces, so a send whose
     * event could not be written (the request not sent either) is followed by one that writes it.
     * The event's emission key makes the repeats no-ops.
     */
    async announceAndRequestRefund(req: RefundRequest): Promise<OperatorStatus> {
      await emitRefundEvent(req.refundId, 'refund.processing');
      return refund.requestRefund(req);
    },

    /** The status read that records the refund's completion, dated `processedAt` (settle-on-completed.ts). */
    async readRefundAndSettle(
      refundId: string,
      operator: OperatorCode,
      country: Country,
      processedAt: string,
    ): Promise<SettledStatus> {
      return settleOnCompleted(
        () => refund.readRefundStatus(refundId, operator, country),
        () => recordRefundEnd(refundId, { outcome: 'completed', processedAt }),
      );
    },
  };
}
