import express from 'express';
import { assertEveryRouteGuarded, newRouter, registeredRoutes, route, rowFor } from '../../src/api/routing';
import { routeKeys, routeTable, type RouteKey } from '../../src/contract/access/routes';
import { openApiDocument } from '../../src/api/openapi/document';

// The route table's machinery without a server (src/api/routing.ts): the start refuses a route
// registered without its guard, and the early matcher matches as the strict, case-sensitive routers do.

describe('routing by the table', () => {
  it('refuses to start with a route registered without its guard, naming it', () => {
    const app = express();
    const router = newRouter();
    route(router, 'GET /health/live', (_req, res) => res.end());
    // The very thing the start must refuse (the eslint rule forbids it in the route folders).
    router.post('/v1/payin/:reference/refund', (_req, res) => res.end());
    app.use(router);
    expect(registeredRoutes(app).map((r) => r.key)).toEqual(['GET /health/live', null]);
    expect(() => assertEveryRouteGuarded(app)).toThrow('route POST /v1/payin/:reference/refund has no guard');
  });

  it('refuses a route whose row was removed from the table', () => {
    expect(() =>
      route(newRouter(), 'POST /v1/refund-everything' as RouteKey, (_req, res) => res.end()),
    ).toThrow('no row in the route table');
  });

  it('registers a key under its router prefix only', () => {
    expect(() => route(newRouter('/dashboard/api'), 'GET /v1/accounts', (_req, res) => res.end())).toThrow(
      'not under',
    );
    const app = express();
    const api = newRouter('/dashboard/api');
    route(api, 'GET /dashboard/api/home', (_req, res) => res.end());
    app.use('/dashboard/api', api);
    expect(() => assertEveryRouteGuarded(app)).not.toThrow();
  });

  it('matches as the routers do: case, slashes and encodings are other paths; HEAD is GET', () => {
    expect(rowFor('POST', '/v1/payin/abc/refund')).toBe('POST /v1/payin/:reference/refund');
    expect(rowFor('POST', '/dashboard/api/v1/payin/abc/refund')).toBe('POST /v1/payin/:reference/refund');
    for (const path of [
      '/V1/payin/abc/refund',
      '/v1/PAYIN/abc/refund',
      '//v1/payin/abc/refund',
      '/v1//payin/abc/refund',
      '/v1/payin/abc/refund/',
      '/v1/p%61yin/abc/refund',
      '/%761/payin/abc/refund',
      '/dashboard/api/V1/payin/abc/refund',
      '/Dashboard/api/v1/payin/abc/refund',
      '/dashboard/api//v1/payin/abc/refund',
    ])
      expect({ path, row: rowFor('POST', path) }).toEqual({ path, row: null });
    expect(rowFor('HEAD', '/v1/payin/abc/refund')).toBeNull();
    expect(rowFor('HEAD', '/v1/payin/abc')).toBe('GET /v1/payin/:reference');
    // A literal path wins over a parameter, as the routers are ordered.
    expect(rowFor('POST', '/v1/payin/sessions')).toBe('POST /v1/payin/sessions');
    // The statement link is not served through the dashboard; dashboard rows only under it.
    expect(rowFor('GET', '/dashboard/api/v1/statements/x/download')).toBeNull();
    expect(rowFor('GET', '/dashboard/api/home')).toBe('GET /dashboard/api/home');
    expect(rowFor('GET', '/home')).toBeNull();
    // The page's own routes fall to the page's mount, never under /dashboard/api.
    expect(rowFor('GET', '/dashboard/transactions/pi_1')).toBe('GET /dashboard');
    expect(rowFor('GET', '/dashboard/api/unknown')).toBeNull();
  });

  it('every operation of the OpenAPI document is a row', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((k) => !(k in routeTable))).toEqual([]);
  });

  it('every row is a method and an Express path; money-moving rows are marked', () => {
    for (const key of routeKeys) expect(key).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/[^\s]*$/);
    const money = routeKeys.filter((k) => 'liveMoney' in routeTable[k]);
    expect(money).toEqual(
      expect.arrayContaining([
        'POST /v1/payin/:reference/refund',
        'POST /v1/payout',
        'POST /v1/direct/payout',
        'POST /v1/payouts/bulk',
        'POST /v1/webhooks',
        'POST /dashboard/api/keys',
        'DELETE /dashboard/api/keys/:apiKey',
      ]),
    );
  });
});
