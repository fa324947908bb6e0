import type { Client } from '@temporalio/client';
import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Authenticator } from '../api/auth';
import type { WebhookApiDeps } from '../api/routes/webhooks';
import { RealtimeHub } from '../api/ws';
import { WsTokenStore } from '../persistence/ws-tokens';
import { EventFeed } from './event-feed';
import { DeliveryLog } from '../webhooks/delivery-log';
import { EndpointStore } from '../webhooks/endpoint-store';
import { EventStore } from './event-store';
import type { KeyRing } from '../security/key-ring';

/**
 * The stores of events and webhooks, with their indexes (and the capped feed) created; `keys`
 * (DATA_ENCRYPTION_KEYS) seal the webhook signing secrets at rest.
 */
export async function buildEventDeps(mongo: Connection, keys: KeyRing) {
  const events = EventStore.on(mongo);
  const endpoints = EndpointStore.on(mongo, keys);
  const deliveries = DeliveryLog.on(mongo);
  await Promise.all([events.init(), endpoints.init(), deliveries.init()]);
  return { events, endpoints, deliveries };
}

/** What the API serves of events: webhook and event routes, WebSocket tokens, and the stream hub. */
export async function buildEventApi(opts: {
  config: Config;
  mongo: Connection;
  temporal: Client;
  logger: Logger;
  authenticate: Authenticator;
}): Promise<{ webhooks: WebhookApiDeps; wsTokens: WsTokenStore; hub: RealtimeHub }> {
  const stores = await buildEventDeps(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS);
  const wsTokens = WsTokenStore.on(opts.mongo);
  await wsTokens.init();
  const hub = new RealtimeHub({
    authenticate: opts.authenticate,
    tokens: wsTokens,
    events: stores.events,
    feed: new EventFeed(opts.mongo, { logger: opts.logger }),
    heartbeatMs: opts.config.WS_HEARTBEAT,
    logger: opts.logger,
  });
  return {
    webhooks: {
      ...stores,
      temporal: opts.temporal,
      taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
      allowPrivateNetworks: opts.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      secretOverlapMs: opts.config.WEBHOOK_SECRET_OVERLAP,
      maxEndpoints: opts.config.WEBHOOK_MAX_ENDPOINTS,
    },
    wsTokens,
    hub,
  };
}
