import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { useWebhookStack } from '../helpers/webhooks';
import { EventStore, eventStreamOf } from '../../src/events/event-store';
import type { StoredEvent } from '../../src/events/catalogue';
import { chainKey } from '../../src/persistence/read-chains';
import { DeliveryLog } from '../../src/webhooks/delivery-log';
import { stopDispatcher } from '../../src/webhooks/dispatch';
import { EndpointStore } from '../../src/webhooks/endpoint-store';
import type { DrainResult, OutboxCursor } from '../../src/webhooks/messages';
import {
  OutboxWaker,
  outboxCursors,
  startDrain,
  webhookOutboxHoles,
  type DrainLease,
} from '../../src/webhooks/outbox';
import { webhookDispatcherWorkflowId } from '../../src/temporal/workflow-ids';

// Issue 41: a position of the merchant's event chain lost below its head (an insert acknowledged
// then lost) was skipped by the webhook drain without a word, and never noted for the recovery
// sweep, so its event was never delivered. The drain now waits a grace period (an append in flight
// may still land), then reports the hole (a log line with ids only, a metric), notes it for the
// sweep and goes on; the sweep lists the event again at the head, where the drain delivers it.
// Over the real FerretDB, with a webhook receiver.

describe('a hole in the webhook outbox chain', () => {
  const { stack, api, merchant, register, at } = useWebhookStack();

  it('is waited for, then reported, noted for the sweep and skipped; the sweep has its event delivered', async () => {
    const events = EventStore.on(stack.mongo);
    const endpoints = EndpointStore.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS);
    const path = `/holes/${randomUUID()}`;
    const hook = await register(api, path, ['payin.completed']);
    // This test drains the endpoint itself.
    await stopDispatcher(stack.env.client, hook.id);
    await stack.env.client.workflow.getHandle(webhookDispatcherWorkflowId(hook.id)).result();
    const merchantId = merchant.merchantId;

    const start = await events.outboxHead(merchantId);
    const recorded: StoredEvent[] = [];
    for (let i = 0; i < 3; i++)
      recorded.push(
        await events.record({
          merchantId,
          type: 'payin.completed',
          subjectId: `tx_${randomUUID()}`,
          reference: `hole-${i}`,
          data: { status: 'success', reference: `hole-${i}` },
        }),
      );
    const stream = eventStreamOf(merchantId, {});
    const lost = start + 2;
    // The second event's chain entry is lost (its event record stays).
    await stack.mongo.collection('event_chains').deleteOne({ _id: chainKey(stream, lost) as never });

    const warnings: { message: string; meta?: Record<string, unknown> }[] = [];
    const holesBefore = (await webhookOutboxHoles.get()).values[0]?.value ?? 0;
    const results: DrainResult[] = [];
    const failures: unknown[] = [];
    const lease: DrainLease = {
      heartbeat: async (_: OutboxCursor) => undefined,
      complete: async (r) => void results.push(r),
      fail: async (err) => {
        failures.push(err);
      },
    };
    const deps = {
      events,
      endpoints,
      deliveries: DeliveryLog.on(stack.mongo),
      cursors: outboxCursors(stack.mongo),
      waker: new OutboxWaker(),
      webhooks: { timeoutMs: 5_000, allowPrivateNetworks: stack.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
      holeGraceMs: 2_000,
      runMs: 6_000,
      logger: {
        warn: (message: string, meta?: Record<string, unknown>) => void warnings.push({ message, meta }),
      },
    };
    const began = Date.now();
    startDrain(deps, lease, { merchantId, endpointId: hook.id, from: { cursor: start, attempts: 0 } });

    const ids = async () => (await at(path)()).map((r) => (JSON.parse(r.body) as { id: string }).id);
    await eventually(ids, (got) => got.includes(recorded[0]!.id));
    // The missing position holds the queue for the grace period, not for ever, and not silently.
    await eventually(ids, (got) => got.includes(recorded[2]!.id) || failures.length > 0);
    expect(failures).toEqual([]);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2_000);
    expect(await ids()).toEqual([recorded[0]!.id, recorded[2]!.id]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.meta).toMatchObject({ merchantId, endpointId: hook.id, position: lost });
    expect(Object.keys(warnings[0]!.meta!).sort()).toEqual([
      'endpointId',
      'merchantId',
      'position',
      'waitedMs',
    ]);
    expect((await webhookOutboxHoles.get()).values[0]?.value).toBe(holesBefore + 1);
    // Noted for the recovery sweep.
    expect(
      await stack.mongo.collection('event_chains_holes').findOne({ _id: chainKey(stream, lost) as never }),
    ).not.toBeNull();
    await eventually(
      () => Promise.resolve(results),
      (r) => r.length === 1,
    );
    expect(results[0]).toMatchObject({ state: 'rested', cursor: start + 3 });

    // The sweep lists the lost event again at the head; the next drain delivers it.
    expect(await events.repairChainHoles()).toMatchObject({ reappended: 1 });
    startDrain(deps, lease, { merchantId, endpointId: hook.id, from: { cursor: start + 3, attempts: 0 } });
    await eventually(ids, (got) => got.includes(recorded[1]!.id));
    expect(await ids()).toEqual([recorded[0]!.id, recorded[2]!.id, recorded[1]!.id]);
    expect(warnings).toHaveLength(1);
    await eventually(
      () => Promise.resolve(results),
      (r) => r.length === 2,
    );
  }, 60_000);
});
