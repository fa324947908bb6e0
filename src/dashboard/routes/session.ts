import type { Router } from 'express';
import { z } from 'zod';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { modes, scopeOf } from '../../domain/modes';
import { liveNeedsTotp } from '../access/roles';
import { sessionView, type DashboardDeps } from '../context';
import { newRouter, route } from '../../api/routing';

// The signed-in member's session: who, which merchant, what they may do, the mode and the CSRF
// token the page sends back with every change.

export function sessionRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { members, sessions } = deps.identity;

  const current = async (req: import('express').Request) => {
    const member = req.member ? await members.get(req.member.id) : null;
    if (!member || !req.dashboardSession) throw new ApiProblem('SESSION_REQUIRED');
    return { member, session: req.dashboardSession };
  };

  route(router, 'GET /dashboard/api/session', async (req, res) => {
    const { member, session } = await current(req);
    res.json(await sessionView(deps, member, session));
  });

  route(router, 'PUT /dashboard/api/session/mode', async (req, res) => {
    const { member, session } = await current(req);
    const { mode } = parseOr400(z.strictObject({ mode: z.enum(modes) }), req.body, req);
    // Owners and admins act on live money only with a second factor.
    if (mode === 'live' && liveNeedsTotp.includes(member.role) && member.totpSecret === null)
      throw new ApiProblem('TOTP_REQUIRED_FOR_LIVE');
    await sessions.setMode(session._id, mode);
    req.dashboardMode = mode;
    req.merchantId = scopeOf(member.merchantId, mode);
    res.json(await sessionView(deps, member, { ...session, mode }));
  });

  return router;
}
