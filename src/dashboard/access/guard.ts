import type { Request } from 'express';
import { ApiProblem } from '../../contract/problems';
import { can, STEP_UP_MS, type Role } from '../../contract/access/roles';

// Who a dashboard request acts for. What each route needs is the route table's
// (src/contract/access/routes.ts), checked by the guard route() puts first (src/api/routing.ts).

/** The signed-in team member a dashboard request acts for (set by the session middleware). */
export interface DashboardMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** The merchant (not the scope): the session's mode picks the scope, `req.merchantId`. */
  merchantId: string;
  totpEnabled: boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set on /dashboard/api requests with a valid session. */
    member?: DashboardMember;
    /** The dashboard session's id (hashed at rest), for the audit log and sign-out. */
    dashboardSessionId?: string;
  }
}

/**
 * Creating or revoking a live API key (docs/decisions/dashboard/live-money-second-factor.md): a
 * role holding every power a live key grants (`live_keys`: owner, admin), TOTP set up, a live
 * session, and a step-up (a TOTP code checked in the last five minutes). Throws the refusal.
 */
export function requireLiveKeyPower(req: Request, now = Date.now()): void {
  const m = req.member;
  if (!m) throw new ApiProblem('SESSION_REQUIRED');
  if (!can(m.role, 'live_keys')) throw new ApiProblem('ROLE_FORBIDDEN');
  if (!m.totpEnabled) throw new ApiProblem('TOTP_REQUIRED_FOR_LIVE');
  if (req.dashboardMode !== 'live') throw new ApiProblem('LIVE_MODE_REQUIRED');
  const at = req.dashboardSession?.steppedUpAt?.getTime() ?? 0;
  if (now - at > STEP_UP_MS || at > now) throw new ApiProblem('STEP_UP_REQUIRED');
}
