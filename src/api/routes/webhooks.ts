import { type Router, type Request } from 'express';
import { ensureDispatcher, stopDispatcher } from '../../webhooks/dispatch';
import { outboxCursors, saveCursor } from '../../webhooks/outbox';
import { isLiveScope } from '../../domain/modes';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import {
  createWebhookRequest,
  deliveryAttemptRecord,
  listDeliveriesQuery,
  replayRequest,
  rotateSecretRequest,
  testWebhookRequest,
  updateWebhookRequest,
  webhookEndpointRecord,
  type WebhookEndpointRecord,
} from '../../contract/schemas/webhooks';
import { decodeCursor, encodeCursor } from '../cursor';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../../contract/problems';
import type { EventStore } from '../../events/event-store';
import { publicAttemptError, type DeliveryAttempt, type DeliveryLog } from '../../webhooks/delivery-log';
import {
  activeSecrets,
  TooManyEndpointsError,
  type EndpointStore,
  type WebhookEndpoint,
} from '../../webhooks/endpoint-store';
import { checkWebhookUrl, type PrivateNetworkAccess } from '../../webhooks/ssrf';
import { eventTypes, type EventType } from '../../events/catalogue';
import { postWebhook } from '../../webhooks/sender';
import { signedHeaders } from '../../webhooks/signing';
import { defaultTestEventType, testEvent } from '../../webhooks/test-events';
import type { WebhookOperations } from '../../services/webhook-operations';
import { newRouter, route } from '../routing';

export interface WebhookApiDeps {
  /** Health, deliveries by outcome, replays (docs/events.md). */
  operations: WebhookOperations;
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  temporal: Client;
  taskQueue: string;
  allowPrivateNetworks: PrivateNetworkAccess;
  /** How long an endpoint has to answer (WEBHOOK_TIMEOUT), a test event as a real one. */
  deliveryTimeoutMs: number;
  /** Default time the previous secret keeps signing after a rotation. */
  secretOverlapMs: number;
  /** Endpoints one merchant may have (WEBHOOK_MAX_ENDPOINTS). */
  maxEndpoints: number;
}

export function toEndpointRecord(e: WebhookEndpoint): WebhookEndpointRecord {
  return webhookEndpointRecord.parse({
    id: e.id,
    url: e.url,
    eventTypes: e.eventTypes,
    description: e.description,
    status: e.status,
    disabledReason: e.disabledReason,
    createdAt: new Date(e.createdAt).toISOString(),
    updatedAt: new Date(e.updatedAt).toISOString(),
    livemode: isLiveScope(e.merchantId),
  });
}

function toAttemptRecord(a: DeliveryAttempt): z.infer<typeof deliveryAttemptRecord> {
  return {
    deliveryId: a.deliveryId,
    attempt: a.attempt,
    eventId: a.eventId,
    eventType: a.eventType,
    trigger: a.trigger,
    url: a.url,
    attemptedAt: new Date(a.attemptedAt).toISOString(),
    succeeded: a.succeeded,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    error: publicAttemptError(a.error),
  };
}

const refusalText = {
  scheme: {
    en: 'Only http and https URLs are allowed.',
    fr: 'Seules les URL http et https sont autorisées.',
  },
  credentials: {
    en: 'A webhook URL may not carry credentials.',
    fr: 'Une URL de webhook ne peut pas contenir d’identifiants.',
  },
  // Names the setting: whoever runs the server on a laptop learns how to reach a local receiver.
  address: {
    en: 'The URL points to a private, loopback, link-local or reserved address, which this server does not call. Outside production, WEBHOOK_ALLOW_PRIVATE_NETWORKS=loopback (the default with NODE_ENV=development) lets webhooks reach 127.0.0.1 and localhost, and WEBHOOK_ALLOW_PRIVATE_NETWORKS=true private networks too; link-local and reserved addresses never.',
    fr: 'L’URL pointe vers une adresse privée, de bouclage, lien-local ou réservée, que ce serveur n’appelle pas. Hors production, WEBHOOK_ALLOW_PRIVATE_NETWORKS=loopback (la valeur par défaut avec NODE_ENV=development) permet aux webhooks d’atteindre 127.0.0.1 et localhost, et WEBHOOK_ALLOW_PRIVATE_NETWORKS=true les réseaux privés aussi ; les adresses lien-local et réservées jamais.',
  },
  invalid: { en: 'The URL is not valid.', fr: 'L’URL n’est pas valide.' },
};

/** POST /v1/webhooks/{id}/test with a type outside the catalogue: the answer lists the catalogue. */
function unknownEventType(body: unknown): ApiProblem | null {
  const type = (body as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || (eventTypes as readonly string[]).includes(type)) return null;
  const allowed = eventTypes.join(', ');
  const shown = JSON.stringify(type.slice(0, 60));
  return new ApiProblem('VALIDATION_ERROR', {
    errors: [
      {
        path: 'type',
        message: {
          en: `Unknown event type ${shown}; one of: ${allowed}.`,
          fr: `Type d’événement inconnu ${shown} ; valeurs possibles : ${allowed}.`,
        },
      },
    ],
  });
}

/** The `disabledReason` of an endpoint the merchant disabled (POST /v1/webhooks/{id}/disable). */
export const disabledByMerchant = 'disabled by the merchant';

/** A position in the endpoint's delivery chain: the page goes on below it. */
const deliveryCursor = z.object({ s: z.number().int().min(1) });

export function webhookRoutes(deps: WebhookApiDeps): Router {
  const router = newRouter();
  const endpointOr404 = async (req: Request) => {
    const endpoint = await deps.endpoints.get(req.merchantId!, String(req.params.id));
    if (!endpoint) throw new ApiProblem('WEBHOOK_NOT_FOUND');
    return endpoint;
  };

  route(router, 'POST /v1/webhooks', async (req, res) => {
    const body = parseOr400(createWebhookRequest, req.body ?? {}, req);
    const refusal = checkWebhookUrl(body.url, deps.allowPrivateNetworks);
    if (refusal) throw new ApiProblem('WEBHOOK_URL_NOT_ALLOWED', { detail: refusalText[refusal] });
    // Where its queue starts: events recorded from now on (read before the endpoint exists, so an
    // event recorded meanwhile is delivered rather than missed).
    const head = await deps.events.outboxHead(req.merchantId!);
    const endpoint = await deps.endpoints
      .create(
        req.merchantId!,
        { url: body.url, eventTypes: body.eventTypes ?? [], description: body.description ?? null },
        deps.maxEndpoints,
      )
      .catch((err: unknown) => {
        if (err instanceof TooManyEndpointsError) throw new ApiProblem('WEBHOOK_ENDPOINT_LIMIT');
        throw err;
      });
    // The queue's start is saved first: a dispatcher started later (Temporal unreachable now, then the
    // worker's sweep) still begins there.
    const from = { cursor: head, attempts: 0 };
    await saveCursor(outboxCursors(deps.events.connection), endpoint.id, from);
    await ensureDispatcher(deps.temporal, deps.taskQueue, endpoint, { from });
    res.status(201).json({ ...toEndpointRecord(endpoint), secret: endpoint.secrets[0]!.secret });
  });

  route(router, 'GET /v1/webhooks', async (req, res) => {
    const endpoints = await deps.endpoints.list(req.merchantId!);
    res.json({ data: endpoints.map(toEndpointRecord) });
  });

  route(router, 'GET /v1/webhooks/:id', async (req, res) => {
    const endpoint = await endpointOr404(req);
    res.json({
      ...toEndpointRecord(endpoint),
      health: await deps.operations.health(req.merchantId!, endpoint),
    });
  });

  // Re-sends the events of a period to this endpoint, paced, by a workflow; a dry run only counts.
  route(router, 'POST /v1/webhooks/:id/replay', async (req, res) => {
    const body = parseOr400(replayRequest, req.body ?? {}, req);
    const endpoint = await endpointOr404(req);
    const { id, count } = await deps.operations.replay(req.merchantId!, endpoint, body, req.idempotencyKey!);
    res.status(body.dryRun ? 200 : 202).json({
      id,
      endpointId: endpoint.id,
      from: new Date(body.from).toISOString(),
      to: new Date(body.to).toISOString(),
      onlyFailed: body.onlyFailed,
      dryRun: body.dryRun,
      count,
    });
  });

  // Sends one signed example event to this endpoint now and answers what it replied. The event is
  // not stored and the attempt is not logged (docs/decisions/webhooks/test-events-not-stored.md).
  route(router, 'POST /v1/webhooks/:id/test', async (req, res) => {
    const refusal = unknownEventType(req.body);
    if (refusal) throw refusal;
    const body = parseOr400(testWebhookRequest, req.body ?? {}, req);
    const endpoint = await endpointOr404(req);
    if (endpoint.status !== 'enabled') throw new ApiProblem('WEBHOOK_DISABLED');
    const type: EventType = body.type ?? endpoint.eventTypes[0] ?? defaultTestEventType;
    const event = testEvent(type, isLiveScope(endpoint.merchantId));
    const payload = JSON.stringify(event);
    const headers = signedHeaders(
      event.id,
      payload,
      activeSecrets(endpoint).map((s) => s.secret),
    );
    const sent = await postWebhook(endpoint.url, headers, payload, {
      timeoutMs: deps.deliveryTimeoutMs,
      allowPrivateNetworks: deps.allowPrivateNetworks,
    });
    res.json({
      endpointId: endpoint.id,
      url: endpoint.url,
      succeeded: sent.error === null,
      statusCode: sent.statusCode,
      durationMs: sent.latencyMs,
      error: publicAttemptError(sent.error),
      event,
    });
  });

  // Changes the URL, the event types or the description; deliveries from now on go to the new URL
  // (each attempt reads the endpoint), its secret and queue stay.
  route(router, 'PATCH /v1/webhooks/:id', async (req, res) => {
    const body = parseOr400(updateWebhookRequest, req.body ?? {}, req);
    if (body.url !== undefined) {
      const refusal = checkWebhookUrl(body.url, deps.allowPrivateNetworks);
      if (refusal) throw new ApiProblem('WEBHOOK_URL_NOT_ALLOWED', { detail: refusalText[refusal] });
    }
    const updated = await deps.endpoints.update(req.merchantId!, String(req.params.id), {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.eventTypes !== undefined ? { eventTypes: body.eventTypes } : {}),
      ...(body.description !== undefined ? { description: body.description || null } : {}),
    });
    if (!updated) throw new ApiProblem('WEBHOOK_NOT_FOUND');
    res.json(toEndpointRecord(updated));
  });

  // The merchant's pause: nothing is sent to it until enabled again. Its dispatcher finds it
  // disabled at its next drain and parks the queue there, as after a 410; enabling resumes it.
  route(router, 'POST /v1/webhooks/:id/disable', async (req, res) => {
    await endpointOr404(req);
    const endpoint = await deps.endpoints.setStatus(
      req.merchantId!,
      String(req.params.id),
      'disabled',
      disabledByMerchant,
    );
    res.json(toEndpointRecord(endpoint!));
  });

  route(router, 'DELETE /v1/webhooks/:id', async (req, res) => {
    if (!(await deps.endpoints.remove(req.merchantId!, String(req.params.id))))
      throw new ApiProblem('WEBHOOK_NOT_FOUND');
    await stopDispatcher(deps.temporal, String(req.params.id));
    res.status(204).end();
  });

  route(router, 'POST /v1/webhooks/:id/rotate-secret', async (req, res) => {
    const body = parseOr400(rotateSecretRequest, req.body ?? {}, req);
    const overlapMs = body.overlapSeconds !== undefined ? body.overlapSeconds * 1000 : deps.secretOverlapMs;
    const rotated = await deps.endpoints.rotateSecret(req.merchantId!, String(req.params.id), overlapMs);
    if (!rotated) throw new ApiProblem('WEBHOOK_NOT_FOUND');
    const previous = activeSecrets(rotated).slice(1);
    res.json({
      ...toEndpointRecord(rotated),
      secret: rotated.secrets[0]!.secret,
      previousSecretsExpireAt: previous.length ? new Date(previous[0]!.expiresAt!).toISOString() : null,
    });
  });

  route(router, 'POST /v1/webhooks/:id/enable', async (req, res) => {
    await endpointOr404(req);
    const endpoint = await deps.endpoints.setStatus(req.merchantId!, String(req.params.id), 'enabled', null);
    // Its dispatcher resumes where the queue parked (or, still running, does not park).
    await ensureDispatcher(deps.temporal, deps.taskQueue, endpoint!, { signal: true });
    res.json(toEndpointRecord(endpoint!));
  });

  route(router, 'GET /v1/webhooks/:id/deliveries', async (req, res) => {
    const q = parseOr400(listDeliveriesQuery, req.query, req);
    const endpoint = await endpointOr404(req);
    const after = q.cursor ? decodeCursor(deliveryCursor, q.cursor) : undefined;
    const { attempts, next } = await deps.deliveries.list(req.merchantId!, endpoint.id, {
      ...(q.eventId ? { eventId: q.eventId } : {}),
      ...(after ? { before: after.s } : {}),
      limit: q.limit,
    });
    res.json({
      data: attempts.map(toAttemptRecord),
      nextCursor: next !== null ? encodeCursor({ s: next }) : null,
    });
  });

  return router;
}
