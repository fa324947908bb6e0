// The messages of the webhook delivery workflow (workflows/webhook-delivery.ts): its input, its
// result and what one attempt answers. Here rather than in the workflow so that the activity that
// makes attempts and the code that starts deliveries (./dispatch.ts) never import a workflow.

export interface WebhookDeliveryInput {
  eventId: string;
  endpointId: string;
  merchantId: string;
  trigger: 'event' | 'redelivery';
  /** The attempts already made under this delivery id (before: the first, inline); absent: none. */
  after?: { attempts: number; retryAfterMs: number | null };
}

export type AttemptOutcome =
  'delivered' | 'retry' | 'endpoint_gone' | 'endpoint_unavailable' | 'event_missing';

export interface WebhookDeliveryResult {
  outcome: Exclude<AttemptOutcome, 'retry'> | 'exhausted';
  attempts: number;
}

/** The delivery workflow's signature, to start it by its registered name with typed arguments. */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;

/** Its workflow type, as histories record it (never renamed). */
export const webhookDeliveryWorkflowType = 'webhookDeliveryWorkflow';
