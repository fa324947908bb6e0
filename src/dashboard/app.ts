import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import { ApiProblem } from '../contract/problems';
import { negotiateLanguage } from '../contract/i18n';
import { isLiveScope, scopeOf } from '../domain/modes';
import { jsonBody } from '../api/json-body';
import { notFoundHandler } from '../api/problem';
import { asksSandboxScenario } from '../api/auth';
import { sessionTokenOf, type SessionRecord } from './access/sessions';
import { auditChanges } from './access/audit-log';
import { liveNeedsTotp, permissionForApiRoute, can } from './access/roles';
import { sameSecret } from './identity/tokens';
import { memberView } from './identity';
import { authRoutes, publicRoutes } from './routes/auth';
import { sessionRoutes } from './routes/session';
import { accountRoutes, teamSettingsRoutes } from './routes/account';
import { teamRoutes } from './routes/team';
import { auditRoutes } from './routes/audit';
import { dashboardDataRoutes } from './routes/data';
import type { DashboardDeps } from './context';

export type { DashboardDeps } from './context';

declare module 'express-serve-static-core' {
  interface Request {
    /** The dashboard session of a /dashboard/api request. */
    dashboardSession?: SessionRecord;
  }
}

const hostOf = (origin: string): string | null => {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
};
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const isPublic = (method: string, path: string) =>
  publicRoutes.some((r) => r.method === method && r.path.test(path));

/** Resolves the session cookie to req.member and req.merchantId (the member's merchant, session's mode). */
function sessionMiddleware(deps: DashboardDeps): RequestHandler {
  const { sessions, members } = deps.identity;
  return async (req, _res, next) => {
    const token = sessionTokenOf(req.headers.cookie);
    if (!token) return next();
    const session = await sessions.resume(token);
    if (!session) return next();
    const member = await members.get(session.memberId);
    // Removed, or its role or password changed since: the session is over.
    if (!member || member.sessionEpoch !== session.epoch || member.merchantId !== session.merchantId) {
      await sessions.end(session._id);
      return next();
    }
    // A suspended merchant's dashboard is closed, as its API keys are refused.
    if (deps.merchantActive && !(await deps.merchantActive(member.merchantId)))
      return next(new ApiProblem('MERCHANT_SUSPENDED'));
    req.member = memberView(member);
    req.dashboardSession = session;
    req.dashboardSessionId = session._id;
    req.dashboardMode = session.mode;
    req.merchantId = scopeOf(member.merchantId, session.mode);
    next();
  };
}

/**
 * CSRF (docs/decisions/dashboard/csrf-synchronizer-token-and-origin.md): a change must come from
 * this origin (Origin, Sec-Fetch-Site) and, with a session, carry its token in X-CSRF-Token.
 */
function csrf(deps: DashboardDeps): RequestHandler {
  const allowed = deps.publicBaseUrl ? new URL(deps.publicBaseUrl).host : null;
  return (req, _res, next) => {
    if (safeMethods.has(req.method)) return next();
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return next(new ApiProblem('CSRF_REFUSED'));
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const host = hostOf(origin);
      if (host === null || (host !== req.get('host') && host !== allowed))
        return next(new ApiProblem('CSRF_REFUSED'));
    }
    if (isPublic(req.method, req.path) || !req.dashboardSession) return next();
    const sent = req.headers['x-csrf-token'];
    if (typeof sent !== 'string' || !sameSecret(sent, req.dashboardSession.csrfToken))
      return next(new ApiProblem('CSRF_REFUSED'));
    next();
  };
}

const requireSession: RequestHandler = (req, _res, next) => {
  if (isPublic(req.method, req.path) || req.path === '/auth/sign-out') return next();
  if (!req.member) return next(new ApiProblem('SESSION_REQUIRED'));
  next();
};

/**
 * A merchant whose owner requires TOTP of every member (docs/decisions/dashboard/
 * require-totp-for-all-members.md): a member without it may read their session and account, set
 * TOTP up and sign out; everything else answers 403 TOTP_SETUP_REQUIRED. An allow-list, so a path
 * spelled any other way is refused too.
 */
const totpSetupAllowed: readonly { method: string; path: string }[] = [
  { method: 'GET', path: '/session' },
  { method: 'GET', path: '/account' },
  { method: 'POST', path: '/auth/totp/setup' },
  { method: 'POST', path: '/auth/totp/enable' },
  { method: 'POST', path: '/auth/sign-out' },
];
function totpSetupGate(deps: DashboardDeps): RequestHandler {
  return async (req, _res, next) => {
    const m = req.member;
    if (!m || m.totpEnabled || isPublic(req.method, req.path)) return next();
    if (totpSetupAllowed.some((r) => r.method === req.method && r.path === req.path)) return next();
    if ((await deps.identity.settings.of(m.merchantId)).requireTotp)
      return next(new ApiProblem('TOTP_SETUP_REQUIRED'));
    next();
  };
}

/** Owners and admins act in live mode only with TOTP (the mode switch refuses it otherwise too). */
const liveNeedsSecondFactor: RequestHandler = (req, _res, next) => {
  const m = req.member;
  if (m && req.merchantId && isLiveScope(req.merchantId) && liveNeedsTotp.includes(m.role) && !m.totpEnabled)
    return next(new ApiProblem('TOTP_REQUIRED_FOR_LIVE'));
  next();
};

/** The public API through the dashboard: the roles.ts permission of the route, else 403. */
const apiGuard: RequestHandler = (req, _res, next) => {
  // Not mounted at '/v1': req.path keeps the full '/v1/...' the roles table is written against.
  if (!req.path.startsWith('/v1/') && req.path !== '/v1') return next();
  const permission = permissionForApiRoute(req.method, req.path);
  if (!req.member) return next(new ApiProblem('SESSION_REQUIRED'));
  if (!permission || !can(req.member.role, permission)) return next(new ApiProblem('ROLE_FORBIDDEN'));
  // As the API key door does (src/api/auth.ts): live money cannot be told how to end.
  if (isLiveScope(req.merchantId!) && asksSandboxScenario(req.body as unknown))
    return next(new ApiProblem('SANDBOX_ONLY_IN_TEST_MODE'));
  next();
};

/** The content security policy of the page: nothing inline, nothing from elsewhere. */
export const dashboardCsp = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    // The event stream (WebSocket) on this same host: 'self' covers ws: only in recent browsers.
    connectSrc: [
      "'self'",
      (req: import('node:http').IncomingMessage) => `ws://${req.headers.host ?? 'localhost'}`,
      (req: import('node:http').IncomingMessage) => `wss://${req.headers.host ?? 'localhost'}`,
    ],
    fontSrc: ["'self'"],
    frameAncestors: ["'none'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  },
};

const notBuilt = {
  en: 'The dashboard is not built yet. Run <code>npm run build</code>, then reload this page.',
  fr: "Le tableau de bord n'est pas encore construit. Lancez <code>npm run build</code>, puis rechargez cette page.",
};

/**
 * Everything under /dashboard: the page's server side (/dashboard/api), the public API on the
 * member's behalf (/dashboard/api/v1, `mountPublicApi` of src/api/app.ts) and the built page.
 */
export function dashboardRouter(deps: DashboardDeps, mountPublicApi: (router: Router) => void): Router {
  const router = Router();
  router.use(helmet({ contentSecurityPolicy: dashboardCsp, crossOriginEmbedderPolicy: false }));

  const api = Router();
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Before any body is read: the session, then the audit of whatever follows (CSRF and the guards'
  // refusals included), then CSRF.
  api.use(sessionMiddleware(deps));
  api.use(auditChanges(deps.identity.audit, (err) => deps.logger.error({ err }, 'dashboard audit log')));
  api.use(csrf(deps));
  api.use(jsonBody());
  api.use(requireSession);
  api.use(totpSetupGate(deps));
  api.use(
    authRoutes(deps),
    sessionRoutes(deps),
    accountRoutes(deps),
    teamSettingsRoutes(deps),
    teamRoutes(deps),
    auditRoutes(deps),
  );
  api.use(liveNeedsSecondFactor);
  api.use(dashboardDataRoutes(deps.data));
  // Routers declare '/v1/...' paths: inside this router (mounted at /dashboard/api) req.url is that.
  api.use(apiGuard);
  mountPublicApi(api);
  api.use(notFoundHandler);
  router.use('/api', api);

  const dir = resolve(deps.staticDir ?? join(process.cwd(), 'dist', 'dashboard'));
  router.use(express.static(dir, { index: false, maxAge: '1h' }));
  // Client routes (/dashboard/transactions/…): the page's index.html, whose router takes over.
  router.get(/.*/, (req, res) => {
    const index = join(dir, 'index.html');
    if (existsSync(index)) return res.setHeader('Cache-Control', 'no-cache').sendFile(index);
    const lang = negotiateLanguage(req);
    res
      .status(503)
      .type('html')
      .send(
        `<!doctype html><html lang="${lang}"><meta charset="utf-8"><title>Dashboard</title><p>${notBuilt[lang]}</p></html>`,
      );
  });
  return router;
}
