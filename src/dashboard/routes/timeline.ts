import type { Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import type { TimelineReader } from '../data/timeline';
import { newRouter, route } from '../../api/routing';

/** GET /dashboard/api/transactions/:id/timeline; another scope's id answers as an unknown one (404). */
export function timelineRoutes(reader: TimelineReader): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/transactions/:id/timeline', async (req, res) => {
    const id = req.params.id;
    const timeline = /^(pi|pr|rf)_[A-Za-z0-9]{1,64}$/.test(id) ? await reader.of(req.merchantId!, id) : null;
    if (!timeline) throw new ApiProblem('TRANSACTION_NOT_FOUND');
    res.json(timeline);
  });
  return router;
}
