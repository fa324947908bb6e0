import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { PayoutBatch, PayoutBatchStore } from '../../src/persistence/payout-batches';
import type { Transaction } from '../../src/domain/transaction';
import { toPayoutBatchRecord } from '../../src/contract/records/payout-batch-record';
import { renderProblem } from '../../src/contract/render-problem';
import { missingRecord } from '../../src/temporal/permanent-errors';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';

/**
 * What the watch asks of the bulk payout service (src/services/payout-batch-service.ts). The wiring
 * builds it (src/main/wiring.ts): the service starts payouts by workflow reference, and activities
 * sit below the workflows, so they import no service.
 */
export interface PayoutBatchWork {
  allFinal(batch: PayoutBatch): Promise<boolean>;
  process(batchId: string): Promise<unknown>;
  releaseRefusedHolds(batch: PayoutBatch): Promise<void>;
  payoutsOf(batch: PayoutBatch): Promise<Map<string, Transaction>>;
}

export interface PayoutBatchActivityDeps extends EventActivityDeps {
  payoutBatches: PayoutBatchStore;
  /** The bulk payout service, starting payouts with this client. */
  payoutBatchWorkOf: (temporal: Client) => PayoutBatchWork;
}

/** A bulk payout's watch: its progress, its finishing after a crash, its completion event. */
export function createPayoutBatchActivities(deps: PayoutBatchActivityDeps) {
  const { recordEvent } = createEventActivities(deps);
  // Built per call: payouts are started with the worker's own client.
  const service = () => deps.payoutBatchWorkOf(Context.current().client);
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
