import type { Router } from 'express';
import type { HomeFigures } from '../data/home';
import { newRouter, route } from '../../api/routing';

/** GET /dashboard/api/home: balances, today's and the month's figures, rates, 30 days (src/dashboard/data/home.ts). */
export function homeRoutes(figures: HomeFigures): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/home', async (req, res) => {
    res.json(await figures.home(req.merchantId!));
  });
  return router;
}
