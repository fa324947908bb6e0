import type { Router } from 'express';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../api/cursor';
import { parseOr400 } from '../../api/validate';
import type { DashboardSearch } from '../data/search';
import { newRouter, route } from '../../api/routing';

/**
 * GET /dashboard/api/transactions/search?q=…&phone=1234: a part of a reference and/or the last
 * digits of the customer's number; the other filters are GET /v1/transactions's.
 */
const query = z
  .strictObject({
    q: z.string().trim().min(2).max(100).optional(),
    phone: z
      .string()
      .regex(/^\d{2,4}$/)
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
    cursor: z.string().max(100).optional(),
  })
  .refine((v) => v.q !== undefined || v.phone !== undefined, { path: ['q'] });
const cursorSchema = z.object({ s: z.number().int().positive() });

export function searchRoutes(search: DashboardSearch): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/transactions/search', async (req, res) => {
    const q = parseOr400(query, req.query, req);
    const before = q.cursor ? decodeCursor(cursorSchema, q.cursor).s : undefined;
    const page = await search.find(
      req.merchantId!,
      { limit: q.limit, ...(q.q ? { q: q.q } : {}), ...(q.phone ? { phone: q.phone } : {}) },
      before,
    );
    res.json({ data: page.data, nextCursor: page.next ? encodeCursor({ s: page.next }) : null });
  });
  return router;
}
