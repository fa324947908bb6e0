import { payoutBatchWorkflow, webhookReplayWorkflow } from '../../../workflows';
import { BATCH_TAKEOVER_MS } from '../../../workflows/payout/payout-batch';
import { REPLAY_SLICE } from '../../../workflows/webhooks/webhook-replay';
import { newId, stubActivities, useWorkflowTestEnv } from '../helpers/stub-activities';

// Merchant operations' workflows with stub activities: a bulk payout's watcher (it finishes a batch
// its request left open only once the request is surely gone, then says `payout.batch.completed`
// once every item is final) and a webhook replay (slices, paced, stopped by a removed endpoint).

const t = useWorkflowTestEnv();

test('payout batch: left open by its request -> finished after the takeover delay, then completed once', async () => {
  let looks = 0;
  const stubs = stubActivities({
    batchProgress: async () => {
      looks++;
      if (looks < 3)
        return { state: 'open' as const, allFinal: false, ageMs: looks === 1 ? 1_000 : BATCH_TAKEOVER_MS };
      if (looks < 5) return { state: 'done' as const, allFinal: false, ageMs: BATCH_TAKEOVER_MS };
      return { state: 'done' as const, allFinal: true, ageMs: BATCH_TAKEOVER_MS };
    },
  });
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(payoutBatchWorkflow, {
      args: [{ batchId: 'pb_1' }],
      taskQueue,
      workflowId: newId('payout-batch'),
    }),
  );
  expect(result).toBe('completed');
  // Not at the first look (the request may still be at work): at the second, once.
  expect(stubs.of('finishBatch')).toHaveLength(1);
  expect(stubs.of('completeBatch').map((c) => c.args)).toEqual([['pb_1']]);
});

test('payout batch: done at once -> no takeover, completed when its items are final', async () => {
  const stubs = stubActivities({});
  await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(payoutBatchWorkflow, {
      args: [{ batchId: 'pb_2' }],
      taskQueue,
      workflowId: newId('payout-batch'),
    }),
  );
  expect(stubs.of('finishBatch')).toHaveLength(0);
  expect(stubs.of('completeBatch')).toHaveLength(1);
});

test('payout batch: looked at every 15 s at most while its payouts settle, so it completes soon after the last', async () => {
  let looks = 0;
  const stubs = stubActivities({
    batchProgress: async () => {
      looks++;
      return { state: 'done' as const, allFinal: looks >= 12, ageMs: 0 };
    },
  });
  await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(payoutBatchWorkflow, {
      args: [{ batchId: 'pb_3' }],
      taskQueue,
      workflowId: newId('payout-batch'),
    }),
  );
  const at = stubs.of('batchProgress').map((c) => c.at);
  expect(at).toHaveLength(12);
  // 2, 4, 8 s, then 15 s apart (doubling waits made it 16, 32, 64, 128… s: up to the payouts' time again).
  const gaps = at.slice(1).map((x, i) => Math.round((x - at[i]!) / 1000));
  expect(gaps.slice(0, 2)).toEqual([4, 8]);
  for (const gap of gaps.slice(2)) expect(gap).toBeLessThanOrEqual(16);
  expect(stubs.of('completeBatch')).toHaveLength(1);
});

test('webhook replay: slices of REPLAY_SLICE, a pause between them; a removed endpoint stops it', async () => {
  const stubs = stubActivities({
    replaySize: async () => 2 * REPLAY_SLICE + 5,
    replaySlice: async (_id, offset, size) => ({
      started: Math.min(size, 2 * REPLAY_SLICE + 5 - offset),
      stopped: false,
    }),
  });
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(webhookReplayWorkflow, {
      args: [{ replayId: 'rp_1' }],
      taskQueue,
      workflowId: newId('webhook-replay'),
    }),
  );
  expect(result).toEqual({ started: 2 * REPLAY_SLICE + 5, stopped: false });
  const slices = stubs.of('replaySlice');
  expect(slices.map((c) => c.args[1])).toEqual([0, REPLAY_SLICE, 2 * REPLAY_SLICE]);
  // Paced: each slice at least two seconds after the one before.
  for (let i = 1; i < slices.length; i++)
    expect(slices[i]!.at - slices[i - 1]!.at).toBeGreaterThanOrEqual(2_000);

  const stopped = stubActivities({
    replaySize: async () => 100,
    replaySlice: async () => ({ started: 0, stopped: true }),
  });
  const ended = await t.withStubs(stopped, (taskQueue) =>
    t.env.client.workflow.execute(webhookReplayWorkflow, {
      args: [{ replayId: 'rp_2' }],
      taskQueue,
      workflowId: newId('webhook-replay'),
    }),
  );
  expect(ended).toEqual({ started: 0, stopped: true });
  expect(stopped.of('replaySlice')).toHaveLength(1);
});
