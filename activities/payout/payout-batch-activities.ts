import { Context } from '@temporalio/activity';
import type { Ledger } from '../../src/ledger';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { PayoutBatchStore } from '../../src/persistence/payout-batches';
import type { RecoveryDeps } from '../operations/recovery-activities';
import type { FeeSchedule } from '../../src/domain/fees';
import { PayoutBatchService } from '../../src/services/payout-batch-service';
import { PayoutService } from '../../src/services/payout-service';
import { toPayoutBatchRecord } from '../../src/contract/records/payout-batch-record';
import { renderProblem } from '../../src/contract/render-problem';
import { missingRecord } from '../../src/temporal/permanent-errors';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';

export interface PayoutBatchActivityDeps extends EventActivityDeps {
  payoutBatches: PayoutBatchStore;
  transactions: TransactionStore;
  ledger: Ledger;
  recovery: RecoveryDeps;
  refundFees: FeeSchedule;
}

/** A bulk payout's watch: its progress, its finishing after a crash, its completion event. */
export function createPayoutBatchActivities(deps: PayoutBatchActivityDeps) {
  const { recordEvent } = createEventActivities(deps);
  // Built per call: payouts are started with the worker's own client.
  const service = () =>
    new PayoutBatchService({
      batches: deps.payoutBatches,
      transactions: deps.transactions,
      ledger: deps.ledger,
      payouts: new PayoutService({
        transactions: deps.transactions,
        starts: deps.recovery.starts,
        ledger: deps.ledger,
        temporal: Context.current().client,
        taskQueue: deps.recovery.taskQueue,
        payoutExpiryMs: deps.recovery.payoutExpiryMs,
        feeSchedule: deps.refundFees,
      }),
    });
  const stored = async (id: string) => {
    const batch = await deps.payoutBatches.findById(id);
    if (!batch) throw missingRecord(`no payout batch ${id}`);
    return batch;
  };
  return {
    async batchProgress(
      batchId: string,
    ): Promise<{ state: 'open' | 'done'; allFinal: boolean; ageMs: number }> {
      const batch = await stored(batchId);
      return {
        state: batch.state,
        allFinal: await service().allFinal(batch),
        ageMs: Date.now() - new Date(batch.createdAt).getTime(),
      };
    },

    /** Gives every item its result, as the request would have (re-entrant, keyed steps). */
    async finishBatch(batchId: string): Promise<void> {
      await service().process(batchId);
    },

    /** Marks the batch completed and records `payout.batch.completed` with its record (in English). */
    async completeBatch(batchId: string): Promise<{ eventId: string }> {
      let batch = await stored(batchId);
      await service().releaseRefusedHolds(batch);
      if (!batch.completedAt) {
        await deps.payoutBatches.update(batchId, { completedAt: new Date() });
        batch = await stored(batchId);
      }
      const payouts = await service().payoutsOf(batch);
      return recordEvent({
        merchantId: batch.merchantId,
        type: 'payout.batch.completed',
        subjectId: batch.id,
        reference: batch.id,
        data: toPayoutBatchRecord(batch, payouts, 'en', renderProblem),
        emissionKey: `${batch.id}:payout.batch.completed`,
      });
    },
  };
}
