import { Context } from '@temporalio/activity';
import type { Model } from 'mongoose';
import type { DeliveryLog } from '../../src/webhooks/delivery-log';
import type { EndpointStore } from '../../src/webhooks/endpoint-store';
import type { ReplayDoc, WebhookReplay } from '../../src/webhooks/replay-store';
import { startDelivery } from '../../src/webhooks/dispatch';
import { missingRecord } from '../../src/temporal/permanent-errors';

export interface WebhookReplayActivityDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  webhookReplays: Model<ReplayDoc>;
}

/** A replay's slices: each starts the deliveries of its events (keyed by the replay: once each). */
export function createWebhookReplayActivities(deps: WebhookReplayActivityDeps) {
  const stored = async (id: string) => {
    const replay = await deps.webhookReplays.findOne({ _id: id }, { _id: 0 }).lean<WebhookReplay>().exec();
    if (!replay) throw missingRecord(`no webhook replay ${id}`);
    return replay;
  };
  return {
    async replaySize(replayId: string): Promise<number> {
      return (await stored(replayId)).eventIds.length;
    },

    /** Starts the deliveries of events [offset, offset + size); with `onlyFailed`, not those delivered since. */
    async replaySlice(
      replayId: string,
      offset: number,
      size: number,
    ): Promise<{ started: number; stopped: boolean }> {
      const replay = await stored(replayId);
      const endpoint = await deps.endpoints.get(replay.merchantId, replay.endpointId);
      if (!endpoint || endpoint.status !== 'enabled') return { started: 0, stopped: true };
      const ctx = Context.current();
      let started = 0;
      for (const eventId of replay.eventIds.slice(offset, offset + size)) {
        if (replay.onlyFailed && (await deps.deliveries.delivered(eventId, endpoint.id))) continue;
        await startDelivery(ctx.client, ctx.info.taskQueue, {
          eventId,
          endpointId: endpoint.id,
          merchantId: replay.merchantId,
          redeliveryKey: replay.id,
        });
        started++;
      }
      return { started, stopped: false };
    },
  };
}
