import { CompleteAsyncError, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { EventActivityDeps } from '../shared/event-activities';
import type { EndpointStore } from '../../src/webhooks/endpoint-store';
import type { EventStore } from '../../src/events/event-store';
import { ensureDispatcher } from '../../src/webhooks/dispatch';
import type { DrainInput, DrainResult, OutboxCursor } from '../../src/webhooks/messages';
import {
  OutboxWaker,
  leaseOf,
  outboxCursors,
  saveCursor,
  saveCursorOnce,
  startDrain,
} from '../../src/webhooks/outbox';

export type WebhookDispatchActivityDeps = EventActivityDeps;

// One waker per process: the events this process records and the feed it tails wake its drains.
let waker: OutboxWaker | null = null;

/** The activities of an endpoint's dispatcher (workflows/webhooks/webhook-dispatcher.ts). */
export function createWebhookDispatchActivities(deps: WebhookDispatchActivityDeps) {
  const cursors = outboxCursors(deps.events.connection);
  waker ??= new OutboxWaker();
  return {
    /**
     * Drains the endpoint's outbox in order, completed asynchronously by src/webhooks/outbox.ts (the
     * worker slot is freed at once). A retry resumes from the cursor of its last heartbeat.
     */
    async drainWebhookOutbox(input: DrainInput): Promise<DrainResult> {
      const ctx = Context.current();
      const beat = ctx.info.heartbeatDetails as OutboxCursor | undefined;
      waker!.tail(deps.events.connection);
      const log = ctx.log;
      const logger = {
        warn: (message: string, meta?: Record<string, unknown>) => {
          log.warn(message, meta);
        },
      };
      startDrain({ ...deps, cursors, waker: waker!, logger }, leaseOf(ctx.client, ctx.info.taskToken), {
        ...input,
        from: beat ?? input.from,
      });
      throw new CompleteAsyncError();
    },

    /**
     * The schedule is spent on the event after the cursor (about three days): the endpoint is
     * disabled, as Stripe does, and its queue parked there; enabling it resumes from that event.
     */
    async parkWebhookEndpoint(input: { merchantId: string; endpointId: string } & OutboxCursor) {
      await saveCursor(cursors, input.endpointId, input);
      await deps.endpoints.setStatus(
        input.merchantId,
        input.endpointId,
        'disabled',
        'deliveries failed for three days',
      );
    },

    /**
     * The merchant enabled the endpoint (the dispatcher got its signal after any park of its own):
     * `enabled` is stored again, over a park or a 410 that may have been written after the API's
     * write. An endpoint deleted meanwhile stays deleted.
     */
    async enableWebhookEndpoint(input: { merchantId: string; endpointId: string }) {
      await deps.endpoints.setStatus(input.merchantId, input.endpointId, 'enabled', null);
    },
  };
}

/**
 * Starts a dispatcher for every enabled endpoint without one (a worker's first recovery sweep):
 * endpoints from before dispatchers, or whose dispatcher was stopped by hand. One scan.
 */
export async function ensureAllDispatchers(
  deps: { endpoints: Pick<EndpointStore, 'all'>; events: Pick<EventStore, 'connection' | 'outboxHead'> },
  client: Client,
  taskQueue: string,
): Promise<number> {
  const cursors = outboxCursors(deps.events.connection);
  let started = 0;
  for (const endpoint of await deps.endpoints.all()) {
    if (endpoint.status !== 'enabled') continue;
    // Its queue starts now, as a created endpoint's does: an event recorded before its drain runs
    // is still delivered.
    await saveCursorOnce(cursors, endpoint.id, async () => ({
      cursor: await deps.events.outboxHead(endpoint.merchantId),
      attempts: 0,
    }));
    try {
      if ((await ensureDispatcher(client, taskQueue, endpoint)) === 'started') started++;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  return started;
}
