import { webhookEndpointWithSecret } from '../../src/contract/schemas/webhooks';
import type { ApiClient } from './http';
import type { ReceivedWebhook, WebhookReceiver } from './webhook-receiver';

/** Registers the receiver's `path` as an endpoint of the client's merchant; answers it with its secret. */
export async function registerEndpoint(
  client: ApiClient,
  receiver: WebhookReceiver,
  path: string,
  eventTypes?: string[],
) {
  const res = await client.post('/v1/webhooks', {
    url: `${receiver.url}${path}`,
    ...(eventTypes ? { eventTypes } : {}),
  });
  expect(res.status).toBe(201);
  return webhookEndpointWithSecret.parse(res.body);
}

/** What the receiver got on `path` so far, as a reader for `eventually`. */
export const receivedOn = (receiver: WebhookReceiver, path: string) => (): Promise<ReceivedWebhook[]> =>
  Promise.resolve(receiver.received.filter((r) => r.path === path));
