import { Router } from 'express';
import { requirePermission } from '../access/guard';
import type { HomeFigures } from '../data/home';

/** GET /dashboard/api/home: balances, today's and the month's figures, rates, 30 days (src/dashboard/data/home.ts). */
export function homeRoutes(figures: HomeFigures): Router {
  const router = Router();
  router.get('/home', requirePermission('read'), async (req, res) => {
    res.json(await figures.home(req.merchantId!));
  });
  return router;
}
