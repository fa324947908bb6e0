import { z } from 'zod';
import { pageCursor, pageLimit } from './common';
import { periodOfAtMost } from './period';
import { fieldMessages } from '../field-messages';
import { eventType, publicEvent } from '../../events/catalogue';

// Webhook endpoints, their delivery log, events and WebSocket tokens, as the API reads and writes them.

export const createWebhookRequest = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** Omitted or empty: every event type. */
  eventTypes: z.array(eventType).max(eventType.options.length).optional(),
  description: z.string().trim().max(200).optional(),
});

/** PATCH /v1/webhooks/{id}: the fields sent change, the others stay; `description: null` clears it. */
export const updateWebhookRequest = z
  .strictObject({
    url: createWebhookRequest.shape.url.optional(),
    /** Empty: every event type. */
    eventTypes: z.array(eventType).max(eventType.options.length).optional(),
    description: z.string().trim().max(200).nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    params: fieldMessages.nothingToChange('url, eventTypes, description'),
  })
  // The refinement's rule in the OpenAPI document too (a JSON Schema keyword zod does not derive).
  .meta({ minProperties: 1 });

export const rotateSecretRequest = z
  .strictObject({
    /** How long the previous secret keeps signing; the configured default when omitted. */
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional(),
  })
  .default({});

export const webhookEndpointRecord = z.object({
  id: z.string().startsWith('we_'),
  url: z.string(),
  eventTypes: z.array(eventType),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Whether it receives live-mode or test-mode events (the mode of the key that created it). */
  livemode: z.boolean(),
});
export type WebhookEndpointRecord = z.infer<typeof webhookEndpointRecord>;

/** How an endpoint fared over the last 24 hours (GET /v1/webhooks/{id}); docs/events.md. */
export const webhookHealth = z.object({
  /** The period: the last 24 hours, up to now. */
  since: z.string(),
  attempts: z.number().int(),
  /** Attempts answered 2xx over attempts, 0 to 1; null without attempts. */
  successRate: z.number().nullable(),
  latencyP50Ms: z.number().nullable(),
  latencyP99Ms: z.number().nullable(),
  /** The newest failed attempt of the period. */
  lastError: z
    .object({ at: z.string(), statusCode: z.number().int().nullable(), error: z.string().nullable() })
    .nullable(),
  /** Failed attempts since the last success (within the period). */
  consecutiveFailures: z.number().int(),
  /** False when the period held more attempts than one read takes (the newest 5,000 are counted). */
  complete: z.boolean(),
});
export type WebhookHealth = z.infer<typeof webhookHealth>;

export const webhookEndpointWithHealth = webhookEndpointRecord.extend({ health: webhookHealth });

/** POST /v1/webhooks/{id}/replay: the events of a period sent again to this endpoint. */
export const REPLAY_MAX_DAYS = 31;
export const REPLAY_MAX_EVENTS = 10_000;
export const replayRequest = z
  .strictObject({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    /** Only the events that never reached this endpoint (default); false: every event of the period. */
    onlyFailed: z.boolean().default(true),
    /** Only count, send nothing. */
    dryRun: z.boolean().default(false),
  })
  .superRefine(periodOfAtMost(REPLAY_MAX_DAYS));
export type ReplayRequest = z.infer<typeof replayRequest>;

export const replayRecord = z.object({
  /** The replay (`rp_…`); null for a dry run. */
  id: z.string().nullable(),
  endpointId: z.string(),
  from: z.string(),
  to: z.string(),
  onlyFailed: z.boolean(),
  dryRun: z.boolean(),
  /** Events selected: sent, paced, by the replay's workflow (or only counted for a dry run). */
  count: z.number().int(),
});

/** Only answers of a creation or a rotation carry a secret: it is shown once. */
export const webhookEndpointWithSecret = webhookEndpointRecord.extend({
  secret: z.string().startsWith('whsec_'),
});

export const listDeliveriesQuery = z.strictObject({
  limit: pageLimit,
  cursor: pageCursor,
  eventId: z.string().max(100).optional(),
});

export const deliveryAttemptRecord = z.object({
  deliveryId: z.string(),
  attempt: z.number().int(),
  eventId: z.string(),
  eventType,
  trigger: z.enum(['event', 'redelivery']),
  url: z.string(),
  attemptedAt: z.string(),
  succeeded: z.boolean(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
});

export const listEventsQuery = z.strictObject({
  limit: pageLimit,
  cursor: pageCursor,
  type: eventType.optional(),
  reference: z.string().max(100).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  /** `false`: only events that did not reach every enabled endpoint subscribed to them. */
  delivered: z.enum(['true', 'false']).optional(),
});

export const eventPage = z.object({ data: z.array(publicEvent), nextCursor: z.string().nullable() });

export const redeliverRequest = z.strictObject({ endpointId: z.string().max(100).optional() }).default({});

// Answers of the webhook and event routes, as documented in the OpenAPI document.
export const webhookEndpointList = z.object({ data: z.array(webhookEndpointRecord) });

export const rotatedSecretRecord = webhookEndpointWithSecret.extend({
  /** When the previous secrets stop signing; null when no overlap was asked for. */
  previousSecretsExpireAt: z.string().nullable(),
});

export const deliveryPage = z.object({
  data: z.array(deliveryAttemptRecord),
  nextCursor: z.string().nullable(),
});

export const redeliveryRecord = z.object({
  eventId: z.string(),
  deliveries: z.array(z.object({ endpointId: z.string(), deliveryId: z.string() })),
});

/** POST /v1/webhooks/{id}/test: the type of the example event; the endpoint's first type, else payin.completed. */
export const testWebhookRequest = z.strictObject({ type: eventType.optional() }).default({});
export type TestWebhookRequest = z.infer<typeof testWebhookRequest>;

/** The example event as sent: a public event marked `test`, with fake ids; never stored. */
export const testEventRecord = publicEvent.extend({ test: z.literal(true) });

/** What the endpoint answered to the example event (nothing of it is kept in the delivery log). */
export const testWebhookResult = z.object({
  endpointId: z.string(),
  url: z.string(),
  /** 2xx within the delivery timeout. */
  succeeded: z.boolean(),
  /** The receiver's HTTP status; null when it did not answer. */
  statusCode: z.number().int().nullable(),
  /** From sending the request to the end of the answer. */
  durationMs: z.number().int(),
  /** Why it failed, as the delivery log words it (`HTTP 500`, `connection refused`); null on success. */
  error: z.string().nullable(),
  event: testEventRecord,
});
