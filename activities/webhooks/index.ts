import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';
import { createWebhookDispatchActivities } from './webhook-dispatch-activities';
import { createWebhookReplayActivities, type WebhookReplayActivityDeps } from './webhook-replay-activities';
import { registered } from '../shared/registration';

/** What the webhook workflows (workflows/webhooks/: delivery, dispatcher, replay) schedule. */
export const webhookActivityNames = [
  'attemptWebhookDelivery',
  'drainWebhookOutbox',
  'parkWebhookEndpoint',
  'enableWebhookEndpoint',
  'replaySize',
  'replaySlice',
] as const;

export type WebhookFlowDeps = EventActivityDeps & WebhookReplayActivityDeps;

/** The webhooks' activities, as the worker registers them. */
export function createWebhookFlowActivities(deps: WebhookFlowDeps) {
  return registered(
    {
      ...createEventActivities(deps),
      ...createWebhookDispatchActivities(deps),
      ...createWebhookReplayActivities(deps),
    },
    webhookActivityNames,
  );
}
