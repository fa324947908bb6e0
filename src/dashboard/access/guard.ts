import type { RequestHandler } from 'express';
import { ApiProblem } from '../../contract/problems';
import { can, type Permission, type Role } from './roles';

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

/** Refuses with 403 unless the signed-in member's role grants `permission`. */
export function requirePermission(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    if (!req.member) return next(new ApiProblem('SESSION_REQUIRED'));
    if (!can(req.member.role, permission)) return next(new ApiProblem('ROLE_FORBIDDEN'));
    next();
  };
}
