import { randomUUID } from 'node:crypto';
import { stopDispatcher } from '../../src/webhooks/dispatch';
import { webhookDispatcherWorkflowId } from '../../src/temporal/workflow-ids';
import fc from 'fast-check';
import type { Model } from 'mongoose';
import { ApiClient, eventually } from '../helpers/http';
import { interleaving } from '../helpers/interleave';
import { createTestMerchant } from '../helpers/merchants';
import { registerEndpoint, useWebhookStack } from '../helpers/webhooks';
import { EventStore } from '../../src/events/event-store';
import type { StoredEvent } from '../../src/events/catalogue';
import { DeliveryLog } from '../../src/webhooks/delivery-log';
import { EndpointStore } from '../../src/webhooks/endpoint-store';
import { replayModel, type ReplayDoc } from '../../src/webhooks/replay-store';
import { WebhookOperations } from '../../src/services/webhook-operations';
import { webhookReplayWorkflowId } from '../../src/temporal/workflow-ids';
import { startOnce } from '../../src/temporal/start-once';
import { webhookReplayWorkflow } from '../../workflows/webhooks/webhook-replay';

// Issue 28 §8: replays of an endpoint's failed events asked at once, interleaved by fast-check's
// scheduler over the real FerretDB, Temporal test server, worker and a webhook receiver. Each store
// call of a replay request (the replay's read and insert, the selection's event and delivery reads,
// the workflow's start) waits for the scheduler, and so does an original delivery that succeeds
// meanwhile. Twins (the same idempotency key: two processes after the key's record lapsed, or a
// retry racing its first try) must be one replay: one document, one workflow, the same answer to
// both callers, each of its events sent once; distinct replays each send an event at most once, and
// an event's arrival is recorded once per endpoint.

/**
 * Schedules per CI run (each a merchant, an endpoint, a few events and one or two replays; about 1.4 s).
 * 15 runs meet each of the 3 key patterns about 5 times and 10 of the 18 shapes (event count x keys x
 * delivered meanwhile) on average, 25 met 14; every CI run draws a new seed (25 took 63 s in CI).
 */
const RUNS = Number(process.env.RACE_RUNS ?? 15);

describe('webhook replays at once (fast-check scheduler)', () => {
  const { stack, receiver } = useWebhookStack();
  let events: EventStore;
  let endpoints: EndpointStore;
  let deliveries: DeliveryLog;
  let replays: Model<ReplayDoc>;

  beforeAll(() => {
    events = EventStore.on(stack.mongo);
    endpoints = EndpointStore.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS);
    deliveries = DeliveryLog.on(stack.mongo);
    replays = replayModel(stack.mongo);
  });

  it('twins are one replay with one answer; every event sent at most once per replay, recorded once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 4 }),
        // Which idempotency key each request carries: twins (key 0), maybe a third request, of
        // either key (1: another replay of the same period).
        fc.constantFrom([0, 0], [0, 0, 0], [0, 0, 1]),
        fc.boolean(),
        async (s, eventCount, keysOf, deliveredMeanwhile) => {
          const il = interleaving(s);
          const gate = il.gate.bind(il);

          const merchant = await createTestMerchant(stack);
          const api = new ApiClient(stack.baseUrl, merchant.credentials);
          const path = `/replay/${randomUUID()}`;
          const hook = await registerEndpoint(api, receiver, path, ['payin.completed']);
          // No dispatcher: the events below stay unsent, as if each had failed (replays send them).
          await stopDispatcher(stack.env.client, hook.id);
          await stack.env.client.workflow.getHandle(webhookDispatcherWorkflowId(hook.id)).result();
          await new Promise((r) => setTimeout(r, 5)); // events strictly after the endpoint
          const from = new Date(Date.now() - 60_000);
          const recorded: StoredEvent[] = [];
          for (let i = 0; i < eventCount; i++)
            recorded.push(
              await events.record({
                merchantId: merchant.merchantId,
                type: 'payin.completed',
                subjectId: `tx_${randomUUID()}`,
                reference: `ref-${i}`,
                data: { status: 'success', reference: `ref-${i}` },
              }),
            );
          // Never sent (as if every first attempt had failed): all owed, none delivered.
          const endpoint = (await endpoints.get(merchant.merchantId, hook.id))!;
          const body = {
            from: from.toISOString(),
            to: new Date(Date.now() + 60_000).toISOString(),
            onlyFailed: true,
            dryRun: false,
          };
          const keys = [randomUUID(), randomUUID()];

          const ops = new WebhookOperations({
            events: { list: gate('events.list', events.list.bind(events)) } as unknown as EventStore,
            endpoints,
            deliveries: {
              delivered: gate('delivered?', deliveries.delivered.bind(deliveries)),
            } as unknown as DeliveryLog,
            replays: {
              findOne: (...a: Parameters<Model<ReplayDoc>['findOne']>) => ({
                lean: () => ({
                  exec: gate('replay read', () =>
                    replays
                      .findOne(...a)
                      .lean()
                      .exec(),
                  ),
                }),
              }),
              create: gate('replay insert', (doc: ReplayDoc) => replays.create(doc)),
            } as unknown as Model<ReplayDoc>,
            startReplay: gate('start workflow', (merchantId: string, replayId: string) =>
              startOnce(stack.env.client, webhookReplayWorkflow, {
                taskQueue: stack.taskQueue,
                workflowId: webhookReplayWorkflowId(merchantId, replayId),
                args: [{ replayId }],
              }),
            ),
          });

          const requests = keysOf.map((k) => ops.replay(merchant.merchantId, endpoint, body, keys[k]!));
          // An original delivery of the oldest event that succeeds meanwhile (logged, no request here).
          const meanwhile = deliveredMeanwhile
            ? gate('first event delivered', () =>
                deliveries.record({
                  deliveryId: `dl_${randomUUID()}`,
                  attempt: 1,
                  merchantId: merchant.merchantId,
                  endpointId: endpoint.id,
                  eventId: recorded[0]!.id,
                  eventType: 'payin.completed',
                  trigger: 'event',
                  url: endpoint.url,
                  attemptedAt: new Date(),
                  succeeded: true,
                  statusCode: 200,
                  latencyMs: 1,
                  error: null,
                  retryAfterMs: null,
                }),
              )()
            : Promise.resolve();
          const [answers] = await il.run(Promise.all([Promise.all(requests), meanwhile]));

          // One replay per key: one document, every caller the same answer, its count the stored one.
          const usedKeys = [...new Set(keysOf)];
          for (const k of usedKeys) {
            const mine = answers.filter((_, i) => keysOf[i] === k);
            expect(new Set(mine.map((a) => JSON.stringify(a))).size).toBe(1);
            const stored = await replays.findOne({ _id: mine[0]!.id! }).lean().exec();
            expect(stored).not.toBeNull();
            expect(mine[0]!.count).toBe(stored!.eventIds.length);
            expect(new Set(stored!.eventIds).size).toBe(stored!.eventIds.length);
            // One workflow, run to its end (time skipped over its pauses).
            const replayId = mine[0]!.id!;
            await stack.env.client.workflow
              .getHandle(webhookReplayWorkflowId(merchant.merchantId, replayId))
              .result();
          }

          // Every event no one else delivered reaches the endpoint; none more than once per replay.
          const owed = recorded.slice(deliveredMeanwhile ? 1 : 0).map((e) => e.id);
          const got = await eventually(
            async () => receiver.received.filter((r) => r.path === path),
            (r) => owed.every((id) => r.some((x) => x.headers['webhook-id'] === id)),
            30_000,
          );
          await new Promise((r) => setTimeout(r, 300)); // a late duplicate would show by now
          const perEvent = new Map<string, number>();
          for (const r of receiver.received.filter((x) => x.path === path)) {
            const id = String(r.headers['webhook-id']);
            perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
          }
          expect(got.length).toBeGreaterThan(0);
          for (const [, n] of perEvent) expect(n).toBeLessThanOrEqual(usedKeys.length);
          if (usedKeys.length === 1) for (const id of owed) expect(perEvent.get(id)).toBe(1);
          // Recorded once per (event, endpoint), whoever delivered it (logged after the answer).
          const outcomes = () =>
            Promise.all(
              recorded.map((e) =>
                stack.mongo
                  .db!.collection('webhook_delivered')
                  .countDocuments({ _id: `${e.id}:${endpoint.id}` as never }),
              ),
            );
          expect(await eventually(outcomes, (n) => n.every((x) => x === 1), 10_000)).toEqual(
            recorded.map(() => 1),
          );
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);
});
