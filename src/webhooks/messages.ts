// The messages of the webhook delivery workflow (workflows/webhooks/webhook-delivery.ts): its input, its
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

// The endpoint's dispatcher (workflows/webhooks/webhook-dispatcher.ts): one workflow per endpoint, whose
// drain activity delivers the merchant's events in their chain's order after a cursor.

/** A position in the merchant's event chain `m|`: every event at or below it is done with. */
export interface OutboxCursor {
  cursor: number;
  /** Attempts already made on the event after the cursor (they number its log lines). */
  attempts: number;
}

export interface WebhookDispatcherInput {
  merchantId: string;
  endpointId: string;
  /** Where to start (absent: the endpoint's saved cursor, else the chain's head). */
  from?: OutboxCursor;
  /** The event after the cursor is failing: its failures so far and the last Retry-After. */
  failing?: { eventId: string; failures: number; retryAfterMs: number | null };
}

export interface DrainInput {
  merchantId: string;
  endpointId: string;
  from: OutboxCursor | null;
}

export type DrainResult =
  /** Ran its time with nothing failing: the workflow drains again (or continues as new). */
  | ({ state: 'rested' } & OutboxCursor)
  /** Disabled (a 410 included) or deleted: the queue stays where it is until the endpoint is enabled. */
  | ({ state: 'parked'; reason: 'disabled' | 'deleted' } & OutboxCursor)
  /** The event after the cursor could not be delivered: the workflow waits its backoff. */
  | ({ state: 'failed'; eventId: string; retryAfterMs: number | null } & OutboxCursor);

export type WebhookDispatcherResult = {
  state: 'parked';
  reason: 'disabled' | 'deleted' | 'exhausted';
} & OutboxCursor;

/** The dispatcher's signature, to start it by its registered name with typed arguments. */
export type WebhookDispatcherWorkflow = (input: WebhookDispatcherInput) => Promise<WebhookDispatcherResult>;

/** Its workflow type, as histories record it (never renamed). */
export const webhookDispatcherWorkflowType = 'webhookDispatcherWorkflow';
