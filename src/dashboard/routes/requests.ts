import type { Router } from 'express';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../api/cursor';
import { parseOr400 } from '../../api/validate';
import type { RequestLogStore } from '../../request-log/store';
import { newRouter, route } from '../../api/routing';

// GET /dashboard/api/requests: the scope's API requests of the last 30 days, newest first
// (src/request-log), what a merchant's developer reads to see why a call was refused.

const query = z.strictObject({
  statusClass: z.enum(['2xx', '3xx', '4xx', '5xx']).optional(),
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']))
    .optional(),
  pathPrefix: z.string().min(1).max(200).optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
});
const cursorSchema = z.object({ d: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), s: z.number().int().positive() });

export function requestRoutes(log: RequestLogStore): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/requests', async (req, res) => {
    const q = parseOr400(query, req.query, req);
    const cursor = q.cursor ? decodeCursor(cursorSchema, q.cursor) : undefined;
    const page = await log.list(
      req.merchantId!,
      {
        limit: q.limit,
        ...(q.statusClass ? { statusClass: q.statusClass } : {}),
        ...(q.method ? { method: q.method } : {}),
        ...(q.pathPrefix ? { pathPrefix: q.pathPrefix } : {}),
        ...(q.idempotencyKey ? { idempotencyKey: q.idempotencyKey } : {}),
      },
      cursor,
    );
    res.json({
      data: page.entries.map(({ scope: _scope, at, ...e }) => ({ ...e, at: new Date(at).toISOString() })),
      nextCursor: page.next ? encodeCursor(page.next) : null,
    });
  });
  return router;
}
