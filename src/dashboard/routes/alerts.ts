import type { Router } from 'express';
import { z } from 'zod';
import { parseOr400 } from '../../api/validate';
import { newRouter, route } from '../../api/routing';
import { permissionsOf } from '../access/roles';
import type { DashboardDeps } from '../context';

// Alerts (docs/dashboard.md, Alerts): what needs the team's attention in the session's mode, for
// every member who reads; the thresholds and the mail, set by those who manage the team.

/** A threshold in the currency's units (XOF and XAF have no minor unit); null: none. */
const threshold = z.number().int().min(0).max(1_000_000_000_000).nullable();
export const alertSettingsBody = z.strictObject({
  balanceBelow: z.strictObject({ XOF: threshold, XAF: threshold }),
  email: z.boolean(),
});

export function alertRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  // Read when a request comes: the route listing of a test builds this router without the stores.
  const alerts = () => deps.alerts;

  route(router, 'GET /dashboard/api/alerts', async (req, res) => {
    // Webhook endpoints' alerts go to those who may see the endpoints (the developer permission).
    const webhooks = permissionsOf(req.member!.role).includes('developer');
    res.json({ data: await alerts().reader.of(req.merchantId!, new Date(), undefined, { webhooks }) });
  });

  route(router, 'GET /dashboard/api/team/alerts', async (req, res) => {
    res.json(await alerts().settings.of(req.merchantId!));
  });

  route(router, 'PUT /dashboard/api/team/alerts', async (req, res) => {
    const body = parseOr400(alertSettingsBody, req.body, req);
    await alerts().settings.set(req.merchantId!, body, req.member!.id);
    res.json(body);
  });

  return router;
}
