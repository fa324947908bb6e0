import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createWebhookReplayActivities } from '../../activities/webhooks/webhook-replay-activities';

// One replay of a period to one endpoint (POST /v1/webhooks/{id}/replay): its events, chosen when it
// was asked, are sent a slice at a time with a pause in between, so a replay of thousands of
// events never floods the merchant's endpoint nor the worker. Each event is a delivery workflow of
// its own, named by the replay (it runs once however often a slice is retried).

export interface WebhookReplayWorkflowInput {
  replayId: string;
}

type ReplayActivities = ReturnType<typeof createWebhookReplayActivities>;

const { replaySize, replaySlice } = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

/** Deliveries started per slice, and the pause between slices: at most 10 events a second. */
export const REPLAY_SLICE = 20;
const REPLAY_PAUSE = '2s';

export async function webhookReplayWorkflow(
  input: WebhookReplayWorkflowInput,
): Promise<{ started: number; stopped: boolean }> {
  const size = await replaySize(input.replayId);
  let started = 0;
  for (let offset = 0; offset < size; offset += REPLAY_SLICE) {
    if (offset > 0) await sleep(REPLAY_PAUSE);
    const slice = await replaySlice(input.replayId, offset, REPLAY_SLICE);
    started += slice.started;
    // The endpoint was removed or disabled meanwhile: the rest is not sent.
    if (slice.stopped) return { started, stopped: true };
  }
  return { started, stopped: false };
}
