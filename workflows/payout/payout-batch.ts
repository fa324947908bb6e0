import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createPayoutBatchActivities } from '../../activities/payout/payout-batch-activities';

// One bulk payout, after its request: if the request died before every item had its result, the
// batch is finished here (the same re-entrant processing, once the request is surely gone); then
// the items' payouts are watched until each is final, and `payout.batch.completed` is said once.
// Each item is a payout with its own workflow: this one moves no money itself.

export interface PayoutBatchWorkflowInput {
  batchId: string;
}

type PayoutBatchActivities = ReturnType<typeof createPayoutBatchActivities>;

const { batchProgress, completeBatch } = proxyActivities<PayoutBatchActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});
const { finishBatch } = proxyActivities<PayoutBatchActivities>({
  startToCloseTimeout: '10m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

/** How long the creating request has to finish its batch before this workflow takes over. */
export const BATCH_TAKEOVER_MS = 10 * 60_000;
const FIRST_LOOK_MS = 2_000;
/**
 * While payouts usually settle (the first ten minutes), a look every 15 s at most: the batch reads
 * `completed` (and the dashboard says "Done") within 15 s of its last payout, not up to as long
 * again as they took, as doubling waits did. Then the waits double up to 5 minutes.
 */
const SETTLING_MS = 10 * 60_000;
const SETTLING_WAIT_MS = 15_000;
const LONGEST_WAIT_MS = 5 * 60_000;

export async function payoutBatchWorkflow(input: PayoutBatchWorkflowInput): Promise<'completed'> {
  let waited = 0;
  for (
    let wait = FIRST_LOOK_MS;
    ;
    wait = Math.min(wait * 2, waited < SETTLING_MS ? SETTLING_WAIT_MS : LONGEST_WAIT_MS)
  ) {
    await sleep(wait);
    waited += wait;
    const progress = await batchProgress(input.batchId);
    if (progress.state === 'done' && progress.allFinal) {
      await completeBatch(input.batchId);
      return 'completed';
    }
    if (progress.state === 'open' && progress.ageMs >= BATCH_TAKEOVER_MS) await finishBatch(input.batchId);
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof payoutBatchWorkflow>(input);
  }
}
