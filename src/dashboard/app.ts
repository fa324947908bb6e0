import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import compression from 'compression';
import express, { type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import { ApiProblem } from '../contract/problems';
import { negotiateLanguage } from '../contract/i18n';
import { scopeOf } from '../domain/modes';
import { jsonBody } from '../api/json-body';
import { notFoundHandler } from '../api/problem';
import { authorize, mount, newRouter } from '../api/routing';
import { routeTable, type RouteKey, type RouteRule } from '../contract/access/routes';
import { sessionTokenOf, type SessionRecord } from './access/sessions';
import { auditChanges } from './access/audit-log';
import { sameSecret } from './identity/tokens';
import { memberView } from './identity';
import { authRoutes } from './routes/auth';
import { sessionRoutes } from './routes/session';
import { accountRoutes, teamSettingsRoutes } from './routes/account';
import { brandingRoutes } from './routes/branding';
import { alertRoutes } from './routes/alerts';
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
/** The route table's access of the row this request matched (src/api/routing.ts, unknownRoutes). */
const accessOf = (req: import('express').Request): RouteRule['access'] | undefined =>
  req.routeKey ? (routeTable[req.routeKey] as RouteRule).access : undefined;
/** Sign-in, resets, invitations: no session needed, only the same origin (no CSRF token yet). */
const isPublic = (req: import('express').Request) => accessOf(req) === 'public';

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
    if (isPublic(req) || !req.dashboardSession) return next();
    const sent = req.headers['x-csrf-token'];
    if (typeof sent !== 'string' || !sameSecret(sent, req.dashboardSession.csrfToken))
      return next(new ApiProblem('CSRF_REFUSED'));
    next();
  };
}

/** Early, for every route but the public ones and sign-out: a session (each route's guard checks the rest). */
const requireSession: RequestHandler = (req, _res, next) => {
  const access = accessOf(req);
  if (access === 'public' || access === 'anyone') return next();
  if (!req.member) return next(new ApiProblem('SESSION_REQUIRED'));
  next();
};

/**
 * A merchant whose owner requires TOTP of every member (docs/decisions/dashboard/
 * require-totp-for-all-members.md): a member without it may read their session and account, set
 * TOTP up and sign out; everything else answers 403 TOTP_SETUP_REQUIRED. An allow-list of the route
 * table's rows (the row the request matched, never its raw path).
 */
const totpSetupAllowed: ReadonlySet<RouteKey> = new Set<RouteKey>([
  'GET /dashboard/api/session',
  'GET /dashboard/api/account',
  'POST /dashboard/api/auth/totp/setup',
  'POST /dashboard/api/auth/totp/enable',
  'POST /dashboard/api/auth/sign-out',
]);
function totpSetupGate(deps: DashboardDeps): RequestHandler {
  return async (req, _res, next) => {
    const m = req.member;
    if (!m || m.totpEnabled || isPublic(req)) return next();
    if (req.routeKey && totpSetupAllowed.has(req.routeKey)) return next();
    if ((await deps.identity.settings.of(m.merchantId)).requireTotp)
      return next(new ApiProblem('TOTP_SETUP_REQUIRED'));
    next();
  };
}

/**
 * The public API through the dashboard: the route table's row (matched by unknownRoutes with the
 * routers' own patterns), checked before the request log, rate limit and idempotency claim; the
 * route's own guard checks it again with the route that matched.
 */
const apiGuard: RequestHandler = (req, _res, next) => {
  if (!req.routeKey) return next(new ApiProblem('NOT_FOUND'));
  next(authorize(req, req.routeKey) ?? undefined);
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
  const router = newRouter('/dashboard');
  router.use(helmet({ contentSecurityPolicy: dashboardCsp, crossOriginEmbedderPolicy: false }));

  const api = newRouter('/dashboard/api');
  api.use((req, res, next) => {
    req.door = 'dashboard';
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
    brandingRoutes(deps),
    alertRoutes(deps),
    teamRoutes(deps),
    auditRoutes(deps),
  );
  api.use(dashboardDataRoutes(deps.data));
  // Routers declare '/v1/...' paths: inside this router (mounted at /dashboard/api) req.url is that.
  api.use('/v1', apiGuard);
  mountPublicApi(api);
  api.use(notFoundHandler);
  router.use('/api', api);

  const dir = resolve(deps.staticDir ?? join(process.cwd(), 'dist', 'dashboard'));
  // The built files, then for the page's own routes (/dashboard/transactions/…) its index.html.
  // Compressed (gzip or brotli, as the browser accepts): on a phone's 1.6 Mbps the scripts are a
  // fifth of their size (issue 44 §3). Vite names assets by their content, so those never change.
  mount(
    router,
    'GET /dashboard',
    compression(),
    express.static(dir, {
      index: false,
      maxAge: '1h',
      setHeaders: (res, path) => {
        if (path.startsWith(join(dir, 'assets')))
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      },
    }),
    (req, res) => {
      const index = join(dir, 'index.html');
      if (existsSync(index)) return res.setHeader('Cache-Control', 'no-cache').sendFile(index);
      const lang = negotiateLanguage(req);
      res
        .status(503)
        .type('html')
        .send(
          `<!doctype html><html lang="${lang}"><meta charset="utf-8"><title>Dashboard</title><p>${notBuilt[lang]}</p></html>`,
        );
    },
  );
  return router;
}
