import { z } from 'zod';
import { eventType, publicEvent } from '../../events/catalogue';

// Webhook endpoints, their delivery log, events and WebSocket tokens, as the API reads and writes them.

export const createWebhookRequest = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** Omitted or empty: every event type. */
  eventTypes: z.array(eventType).max(eventType.options.length).optional(),
  description: z.string().trim().max(200).optional(),
});

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

/** Only answers of a creation or a rotation carry a secret: it is shown once. */
export const webhookEndpointWithSecret = webhookEndpointRecord.extend({
  secret: z.string().startsWith('whsec_'),
});

const limit = z.coerce.number().int().min(1).max(100).default(20);
const cursor = z.string().max(500).optional();

export const listDeliveriesQuery = z.strictObject({ limit, cursor, eventId: z.string().max(100).optional() });

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
  limit,
  cursor,
  type: eventType.optional(),
  reference: z.string().max(100).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
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
