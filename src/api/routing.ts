import { Router, type Express, type Request, type RequestHandler } from 'express';
import type { RouteParameters } from 'express-serve-static-core';
import { match } from 'path-to-regexp';
import { ApiProblem } from '../contract/problems';
import { negotiateLanguage } from '../contract/i18n';
import { can, liveNeedsTotp, type Permission } from '../contract/access/roles';
import {
  DASHBOARD_API,
  routeKeys,
  routeTable,
  splitRouteKey,
  type RouteKey,
  type RouteRule,
} from '../contract/access/routes';
import { isLiveScope } from '../domain/modes';
import { nameRequestSpan } from '../infra/tracing';
import { asksSandboxScenario } from './auth';
import { renderProblem, sendProblem } from './problem';

// Authorization by construction (docs/decisions/dashboard/authorization-by-construction.md): every
// route is registered with `route(router, 'METHOD /path', ...)`, whose key is a row of the route
// table (src/contract/access/routes.ts); the row's guard runs first in the route's own chain and
// reads the route that matched, never the raw path. createApp refuses to start with a route
// layer that has no guard (`assertEveryRouteGuarded`), and `unknownRoutes` answers 404 before any
// middleware for a path that matches no row (case-sensitive, strict: as the routers match).

declare module 'express-serve-static-core' {
  interface Request {
    /** 'dashboard' under /dashboard/api (a member's session); absent: the API key door or none. */
    door?: 'dashboard';
    /** The table's row this request's method and path match (set by `unknownRoutes`). */
    routeKey?: RouteKey;
  }
}

const GUARD = Symbol('route guard');
type Guarded = RequestHandler & { [GUARD]?: RouteKey };
const prefixes = new WeakMap<object, string>();

/**
 * A strict, case-sensitive router: '/V1/x' and '/v1/x/' are not '/v1/x'. `prefix` is where it is
 * mounted from the server's root ('/dashboard/api'): route keys are written from the root.
 */
export function newRouter(prefix = ''): Router {
  const router = Router({ caseSensitive: true, strict: true });
  prefixes.set(router, prefix);
  return router;
}

type Handler = RequestHandler;
/** The path of a key, so handlers see its parameters typed as Express types them ('/x/:id' → { id: string }). */
type PathOf<K extends string> = K extends `${string} ${infer P}` ? P : never;
type RouteHandler<K extends RouteKey> = RequestHandler<RouteParameters<PathOf<K>>>;

function localPath(router: Router, key: RouteKey): string {
  const prefix = prefixes.get(router);
  if (prefix === undefined) throw new Error(`${key}: register routes on a newRouter()`);
  const path = splitRouteKey(key)[1];
  if (!path.startsWith(prefix)) throw new Error(`${key}: not under its router's prefix ${prefix}`);
  return path.slice(prefix.length) || '/';
}

/** Registers the row's route: the guard first, then `handlers`. */
export function route<K extends RouteKey>(router: Router, key: K, ...handlers: RouteHandler<K>[]): void {
  const rule = routeTable[key] as RouteRule | undefined;
  // The compiler refuses a key that is not a row; this says so at the start too (tests skip types).
  if (!rule) throw new Error(`${key}: no row in the route table (src/contract/access/routes.ts)`);
  if ('mount' in rule) throw new Error(`${key}: a mount row is served by mount()`);
  const method = splitRouteKey(key)[0].toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const guard: Guarded = (req, _res, next) => {
    nameRequestSpan(key);
    next(authorize(req, key) ?? undefined);
  };
  guard[GUARD] = key;
  router[method](localPath(router, key), guard, ...(handlers as unknown as Handler[]));
}

/** Static files (and the page's fallback) under a mount row's path: GET and HEAD only. */
export function mount(router: Router, key: RouteKey, ...handlers: Handler[]): void {
  const rule = routeTable[key] as RouteRule | undefined;
  if (!rule || !('mount' in rule)) throw new Error(`${key}: not a mount row of the route table`);
  const getOnly: RequestHandler = (req, _res, next) =>
    req.method === 'GET' || req.method === 'HEAD' ? next() : next('router');
  router.use(localPath(router, key), getOnly, ...handlers);
}

/** The refusal of `key` for this request, or null: allowed. */
export function authorize(req: Request, key: RouteKey): ApiProblem | null {
  const rule = routeTable[key] as RouteRule;
  switch (rule.access) {
    case 'public':
    case 'internal':
    case 'anyone':
      return null;
    case 'merchant':
      if (req.door !== 'dashboard') return req.merchantId ? null : new ApiProblem('UNAUTHORIZED');
      if (rule.dashboard === 'forbidden' || rule.dashboard === 'absent') {
        return req.member ? new ApiProblem('ROLE_FORBIDDEN') : new ApiProblem('SESSION_REQUIRED');
      }
      return (
        memberRefusal(req, rule.dashboard, rule.liveMoney === true) ??
        // As the API key door does (src/api/auth.ts): live money cannot be told how to end.
        (isLiveScope(req.merchantId!) && asksSandboxScenario(req.body as unknown)
          ? new ApiProblem('SANDBOX_ONLY_IN_TEST_MODE')
          : null)
      );
    default:
      return memberRefusal(req, rule.access === 'member' ? null : rule.access, rule.liveMoney === true);
  }
}

function memberRefusal(req: Request, permission: Permission | null, liveMoney: boolean): ApiProblem | null {
  const m = req.member;
  if (!m || !req.merchantId) return new ApiProblem('SESSION_REQUIRED');
  if (permission === null) return null;
  if (!can(m.role, permission)) return new ApiProblem('ROLE_FORBIDDEN');
  if (isLiveScope(req.merchantId) && !m.totpEnabled) {
    // Owners and admins act in live mode only with TOTP; anyone moving live money needs it too.
    if (liveMoney || liveNeedsTotp.includes(m.role)) return new ApiProblem('TOTP_REQUIRED_FOR_LIVE');
  }
  return null;
}

interface Compiled {
  key: RouteKey;
  method: string;
  test: (path: string) => boolean;
}

const compiled: Compiled[] = routeKeys.map((key) => {
  const [method, path] = splitRouteKey(key);
  const rule = routeTable[key] as RouteRule;
  if ('mount' in rule) {
    return { key, method, test: (p: string) => p === path || p.startsWith(`${path}/`) };
  }
  const m = match(path, { decode: false, sensitive: true, trailing: false, end: true });
  return { key, method, test: (p: string) => m(p) !== false };
});

const underDashboardApi = (p: string) => p === DASHBOARD_API || p.startsWith(`${DASHBOARD_API}/`);

/** The rows whose path `path` (from the server's root, undecoded) matches, as the routers would. */
export function rowsMatching(path: string): RouteKey[] {
  if (underDashboardApi(path)) {
    const inner = path.slice(DASHBOARD_API.length);
    return compiled
      .filter((c) => {
        if (c.key.includes(` ${DASHBOARD_API}/`)) return c.test(path);
        const rule = routeTable[c.key] as RouteRule;
        return rule.access === 'merchant' && rule.dashboard !== 'absent' && c.test(inner);
      })
      .map((c) => c.key);
  }
  return compiled.filter((c) => c.test(path)).map((c) => c.key);
}

/** The row a request matches (HEAD is answered by GET routes), or null. */
export function rowFor(method: string, path: string): RouteKey | null {
  const m = method === 'HEAD' ? 'GET' : method;
  // Literal segments first (/v1/payin/sessions before /v1/payin/:reference), as routers are ordered.
  const rows = rowsMatching(path).filter((k) => splitRouteKey(k)[0] === m);
  if (rows.length === 0) return null;
  return rows.sort((a, b) => literals(b) - literals(a))[0]!;
}
const literals = (key: RouteKey) =>
  splitRouteKey(key)[1]
    .split('/')
    .filter((s) => s && !s.startsWith(':')).length;

/**
 * First middleware after the access log: a path no row matches is a 404, a method the path has no
 * row for a 405 (on a path of the OpenAPI document, `documented`, methodNotAllowed answers, with
 * the document's Allow), before any session, idempotency claim, request-log row or rate-limit count.
 */
export function unknownRoutes(documented: (path: string) => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    const key = rowFor(req.method, req.path);
    if (key) {
      req.routeKey = key;
      return next();
    }
    const rows = rowsMatching(req.path);
    const lang = negotiateLanguage(req);
    if (rows.length === 0) {
      return sendProblem(res, renderProblem('NOT_FOUND', lang, {}, req.originalUrl));
    }
    if (req.method === 'OPTIONS' || documented(req.path)) return next();
    const allowed = new Set(rows.map((k) => splitRouteKey(k)[0]));
    if (allowed.has('GET')) allowed.add('HEAD');
    allowed.add('OPTIONS');
    res.set('Allow', [...allowed].join(', '));
    sendProblem(res, renderProblem('METHOD_NOT_ALLOWED', lang, {}, req.originalUrl));
  };
}

interface Layer {
  route?: { path: unknown; methods: Record<string, boolean>; stack: { handle: Guarded }[] };
  handle?: { stack?: Layer[] };
}

/** Every route layer of the app, with the row its guard declares (null: none). */
export function registeredRoutes(app: Express): { where: string; key: RouteKey | null }[] {
  const out: { where: string; key: RouteKey | null }[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).map((m) => m.toUpperCase());
        const first = layer.route.stack[0]?.handle;
        const key = first?.[GUARD] ?? null;
        out.push({ where: `${methods.join(',')} ${String(layer.route.path)}`, key });
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}

/** createApp's last step: a route registered without its row's guard stops the server. */
export function assertEveryRouteGuarded(app: Express): void {
  for (const r of registeredRoutes(app)) {
    if (!r.key)
      throw new Error(`route ${r.where} has no guard: register it with route() (src/api/routing.ts)`);
    const [method, path] = splitRouteKey(r.key);
    if (!r.where.startsWith(`${method} `) || !path.endsWith(r.where.slice(method.length + 1)))
      throw new Error(`route ${r.where} carries the guard of ${r.key}`);
  }
}
