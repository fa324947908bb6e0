import express, { type Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import { LOGO_MAX_BYTES, LOGO_TYPES, sniffLogo } from '../../merchants/logos';
import { newRouter, route } from '../../api/routing';
import { sendLogo } from '../../api/send-logo';
import type { DashboardDeps } from '../context';

// The merchant's logo (docs/dashboard.md, Team; docs/decisions/payment-links/merchant-logo.md):
// uploaded by a member who manages the team, shown on the payment links' pages. The file's own
// bytes decide its type, never the name or the header it came with.

export function brandingRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');

  route(router, 'GET /dashboard/api/team/logo', async (req, res) => {
    res.json({ logo: await deps.logos.ref(req.member!.merchantId) });
  });

  route(router, 'GET /dashboard/api/team/logo/image', async (req, res) => {
    const logo = await deps.logos.image(req.member!.merchantId);
    if (!logo) throw new ApiProblem('NOT_FOUND');
    sendLogo(req, res, logo, 'private, no-cache');
  });

  route(
    router,
    'PUT /dashboard/api/team/logo',
    // Read a little past the limit, so a file too large is told so in words (LOGO_INVALID), not 413.
    express.raw({ type: () => true, limit: LOGO_MAX_BYTES + 1024 }),
    async (req, res) => {
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const claimed = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const type = sniffLogo(bytes);
      if (!type || bytes.length > LOGO_MAX_BYTES || !(LOGO_TYPES as readonly string[]).includes(claimed))
        throw new ApiProblem('LOGO_INVALID');
      const member = req.member!;
      const ref = await deps.logos.set(member.merchantId, bytes, type, member.id);
      res.json({ logo: ref });
    },
  );

  route(router, 'DELETE /dashboard/api/team/logo', async (req, res) => {
    await deps.logos.remove(req.member!.merchantId);
    res.json({ logo: null });
  });

  return router;
}
