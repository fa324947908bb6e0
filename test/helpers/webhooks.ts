import { webhookEndpointWithSecret } from '../../src/contract/schemas/webhooks';
import type { ApiClient } from './http';
import { useStack } from './use-stack';
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

/**
 * The webhook test files' stack: loopback receivers allowed (WEBHOOK_ALLOW_PRIVATE_NETWORKS), up to
 * five endpoints, one receiver emptied and answering 200 before each test; `register` and `at` bound
 * to that receiver.
 */
export function useWebhookStack() {
  const handle = useStack({
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_ENDPOINTS: '5' },
    receiver: true,
  });
  const { receiver } = handle;
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => ({ status: 200 });
  });
  return {
    ...handle,
    register: (client: ApiClient, path: string, eventTypes?: string[]) =>
      registerEndpoint(client, receiver, path, eventTypes),
    at: (path: string) => receivedOn(receiver, path),
  };
}
