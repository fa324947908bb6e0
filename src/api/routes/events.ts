import type { Router } from 'express';
import { z } from 'zod';
import { listEventsQuery, redeliverRequest } from '../../contract/schemas/webhooks';
import { decodeCursor, encodeCursor } from '../cursor';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../../contract/problems';
import { toPublicEvent } from '../../events/catalogue';
import { startDelivery } from '../../webhooks/dispatch';
import type { WebhookApiDeps } from './webhooks';
import { newRouter, route } from '../routing';

// A position in the merchant's chain `m|` (`k` names the filters, so a cursor used with other
// filters is refused). Cursors of kind `r`/`t` were issued on the reference and type chains before
// events went to `m|` alone: they go on down those chains. `{ t, id }` cursors predate the chains.
const eventCursor = z.union([
  z.object({ s: z.number().int().positive(), k: z.string() }),
  z.object({ t: z.number(), id: z.string() }),
]);
const filterKind = (q: { type?: string; reference?: string }) =>
  `m${q.reference ? 'r' : ''}${q.type ? 't' : ''}`;
const legacyKind = (q: { type?: string; reference?: string }) => (q.reference ? 'r' : q.type ? 't' : 'm');

export function eventRoutes(deps: WebhookApiDeps): Router {
  const router = newRouter();

  route(router, 'GET /v1/events', async (req, res) => {
    const q = parseOr400(listEventsQuery, req.query, req);
    const cursor = q.cursor ? decodeCursor(eventCursor, q.cursor) : undefined;
    // A cursor of a delivery-filtered listing is not one of the plain listing (and back).
    const delivered = q.delivered ? `d${q.delivered[0]}` : '';
    const kind = `${filterKind(q)}${delivered}`;
    const legacy =
      !!cursor && 's' in cursor && legacyKind(q) !== 'm' && cursor.k === `${legacyKind(q)}${delivered}`;
    if (cursor && 's' in cursor && cursor.k !== kind && !legacy) decodeCursor(z.never(), q.cursor!); // another query's cursor: 400 on `cursor`
    const filter = {
      ...(q.type ? { type: q.type } : {}),
      ...(q.reference ? { reference: q.reference } : {}),
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
      ...(cursor && 's' in cursor ? { before: cursor.s } : {}),
      ...(legacy ? { legacyChain: true } : {}),
    };
    const found = q.delivered
      ? await deps.operations.listByDelivery(req.merchantId!, {
          ...filter,
          delivered: q.delivered === 'true',
          limit: q.limit + 1,
        })
      : await deps.events.list(req.merchantId!, {
          ...filter,
          ...(cursor && 't' in cursor ? { after: { createdAt: new Date(cursor.t), id: cursor.id } } : {}),
          limit: q.limit + 1,
        });
    const page = found.events.slice(0, q.limit);
    // One more than asked was found: the next page starts below the last shown. A page cut short by
    // its read budget (sparse filters) continues where the walk stopped.
    const below = found.events.length > q.limit ? found.positions[q.limit - 1] : found.next;
    res.json({
      data: page.map(toPublicEvent),
      nextCursor: below ? encodeCursor({ s: below, k: legacy ? cursor.k : kind }) : null,
    });
  });

  route(router, 'GET /v1/events/:eventId', async (req, res) => {
    const event = await deps.events.findById(req.merchantId!, String(req.params.eventId));
    if (!event) throw new ApiProblem('EVENT_NOT_FOUND');
    res.json(toPublicEvent(event));
  });

  /**
   * Sends the event again, as a new delivery (its own attempts and retries), to one endpoint or to
   * every enabled endpoint subscribed to its type. The idempotency key names the redelivery, so a
   * retried request does not send twice.
   */
  route(router, 'POST /v1/events/:eventId/redeliver', async (req, res) => {
    const body = parseOr400(redeliverRequest, req.body ?? {}, req);
    const event = await deps.events.findById(req.merchantId!, String(req.params.eventId));
    if (!event) throw new ApiProblem('EVENT_NOT_FOUND');
    let targets;
    if (body.endpointId) {
      const endpoint = await deps.endpoints.get(req.merchantId!, body.endpointId);
      if (!endpoint) throw new ApiProblem('WEBHOOK_NOT_FOUND');
      if (endpoint.status !== 'enabled') throw new ApiProblem('WEBHOOK_DISABLED');
      targets = [endpoint];
    } else {
      targets = await deps.endpoints.subscribedTo(req.merchantId!, event.type);
    }
    const redeliveryKey = req.idempotencyKey ?? String(req.headers['x-idempotency-key'] ?? Date.now());
    const deliveries = [];
    for (const endpoint of targets) {
      const deliveryId = await startDelivery(deps.temporal, deps.taskQueue, {
        eventId: event.id,
        endpointId: endpoint.id,
        merchantId: event.merchantId,
        redeliveryKey,
      });
      deliveries.push({ endpointId: endpoint.id, deliveryId });
    }
    res.status(202).json({ eventId: event.id, deliveries });
  });

  return router;
}
