import type { Router } from 'express';
import { z } from 'zod';
import { gatherMetadataParams, transactionSearchQuery } from '../../contract/schemas/transaction-search';
import type { TransactionSearch } from '../../services/transaction-search';
import { decodeCursor, encodeCursor } from '../cursor';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';

const searchCursor = z.object({ s: z.number().int().positive(), q: z.string() });

/** GET /v1/transactions: the merchant's payins, payouts and refunds, newest first (docs/search.md). */
export function transactionRoutes(search: TransactionSearch): Router {
  const router = newRouter();

  route(router, 'GET /v1/transactions', async (req, res) => {
    const q = parseOr400(
      transactionSearchQuery,
      gatherMetadataParams(req.query as Record<string, unknown>),
      req,
    );
    const cursor = q.cursor ? decodeCursor(searchCursor, q.cursor) : undefined;
    const page = await search.search(req.merchantId!, q, cursor);
    // A cursor from another query (other filters) would walk another list: refused on `cursor`.
    if (cursor && cursor.q !== page.queryKey) decodeCursor(z.never(), q.cursor!);
    res.json({
      data: await Promise.all(page.items.map((f) => search.recordOf(f))),
      nextCursor: page.next ? encodeCursor({ s: page.next, q: page.queryKey }) : null,
    });
  });

  return router;
}
