import type { EventType } from '../src/events/catalogue';
import type { Country, OperatorCode } from '../src/domain/operators';
import type { OperatorStatus } from '../src/operators/gateway';
import { createEventActivities, type EventActivityDeps } from './event-activities';
import { createRefundActivities, type RefundActivityDeps } from './refund-activities';

/** A refund's end as its workflow decides it, recorded in one step. */
export type RefundEnd =
  | { outcome: 'completed'; processedAt: string }
  | { outcome: 'failed'; failure: { code: string; message: string }; processedAt: string };

/** The single steps the merged ones are made of (stubbed one by one in workflow tests). */
export type RefundStepActivities = Pick<
  ReturnType<typeof createRefundActivities>,
  'completeRefund' | 'failRefund' | 'reverseRefund' | 'refundEventInput' | 'readRefundStatus'
> &
  Pick<ReturnType<typeof createEventActivities>, 'recordEvent'>;

/**
 * A refund's writes merged into the steps its workflow takes (change `refund-records-in-fewer-steps`,
 * workflows/refund.ts). Every write inside applies once (the ledger's fixed sourceRefs, the refund's
 * status advance, the audit step per refund, the event's emission key), so a retry of a whole step
 * redoes nothing twice; the order is the one the workflow used to take step by step.
 */
export function createRefundOutcomeActivities(deps: RefundActivityDeps & EventActivityDeps) {
  return mergeRefundSteps({ ...createRefundActivities(deps), ...createEventActivities(deps) });
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
     * Reads the refund's status and, only when the operator answers `completed`, records the
     * refund's completion (dated `processedAt`, workflow time) in the same activity. Any other
     * answer, or none, changes nothing. A retry after a lost answer finds `completed` again and
     * applies nothing twice.
     */
    async readRefundAndSettle(
      refundId: string,
      operator: OperatorCode,
      country: Country,
      processedAt: string,
    ): Promise<OperatorStatus & { settled: boolean }> {
      const status = await refund.readRefundStatus(refundId, operator, country);
      if (status.outcome !== 'completed') return { ...status, settled: false };
      await recordRefundEnd(refundId, { outcome: 'completed', processedAt });
      return { ...status, settled: true };
    },
  };
}
