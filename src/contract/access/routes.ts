import type { Permission } from './roles';

// EVERY route of the HTTP server, and who may call it. The one place a newcomer reads to learn
// who may do what (docs/dashboard.md, Roles; docs/decisions/dashboard/authorization-by-construction.md).
//
// To add a route: add its row here ('METHOD /full/path' in Express path syntax, as the request
// names it from the server's root: dashboard routes under /dashboard/api), then register it with
// `route(router, 'METHOD /full/path', ...handlers)` (src/api/routing.ts) on a `newRouter(prefix)`.
// The key must be a row (the compiler says so); the guard is put first in the route's own chain;
// createApp refuses to start with a route registered without it; a path matching no row answers
// 404 before any middleware; test/integration/authorization-matrix.test.ts checks each row for
// every role, mode and second factor.

export type RouteRule =
  /** No credentials: health, docs, the checkout page, signed links, callbacks (signed by the provider). */
  | { access: 'public'; mount?: true }
  /** Loopback or the metrics token (the handler answers 404 to others). */
  | { access: 'internal' }
  /** Anyone; a session, if sent, must carry its CSRF token (sign-out). */
  | { access: 'anyone' }
  /**
   * The public API: an API key at /v1. Through the dashboard door (/dashboard/api/v1/...), a
   * member whose role grants `dashboard`; 'forbidden': 403 there; 'absent': not mounted there (404).
   */
  | { access: 'merchant'; dashboard: Permission | 'forbidden' | 'absent'; liveMoney?: true }
  /**
   * A dashboard route: 'member' is any signed-in member; else the permission the role must grant.
   * `audited`: a read written to the audit log as changes are (it takes customers' data away).
   */
  | { access: 'member' | Permission; liveMoney?: true; audited?: true };

// liveMoney: moves live money or the means to (refunds, payouts, API keys, webhook endpoints). In
// live mode a member needs TOTP set up, whatever the role. Live API keys need more (step-up):
// src/dashboard/access/guard.ts, `requireLiveKeyPower`.

const pub = { access: 'public' } as const;
const api = <P extends Permission | 'forbidden' | 'absent'>(dashboard: P) =>
  ({ access: 'merchant', dashboard }) as const;
const money = <P extends Permission>(dashboard: P) =>
  ({ access: 'merchant', dashboard, liveMoney: true }) as const;

export const routeTable = {
  // Operations (src/api/observability.ts, routes/health.ts, routes/docs.ts)
  'GET /metrics': { access: 'internal' },
  'GET /health/live': pub,
  'GET /health/ready': pub,
  'GET /openapi.json': pub,
  'GET /docs': pub,
  'GET /docs/': pub,
  'GET /docs/errors.json': pub,
  'GET /docs/errors': pub,
  'GET /docs/errors/': pub,
  'GET /docs/init.js': pub,
  'GET /docs/assets': { access: 'public', mount: true },

  // Callbacks: providers and the simulator sign them (routes/callbacks.ts)
  'POST /provider-callbacks/:name': pub,
  'PUT /provider-callbacks/:name': pub,
  'POST /operator-callbacks/:code': pub,

  // The hosted checkout page: the link is the credential (routes/checkout.ts)
  'GET /checkout/assets': { access: 'public', mount: true },
  'GET /checkout/:id': pub,
  // The page's form posted back without JavaScript (an answer, like confirm and decline)
  'POST /checkout/:id': pub,
  // A payment link's page: the slug is the credential (routes/payment-link-page.ts)
  'GET /l/:slug': pub,
  'POST /l/:slug': pub,
  'GET /l/:slug/thanks': pub,
  'GET /l/:slug/logo': pub,
  'GET /checkout/:id/status': pub,
  'POST /checkout/:id/confirm': pub,
  'POST /checkout/:id/decline': pub,

  // The public API (src/api/routes), both doors
  'POST /v1/direct/payin': api('forbidden'),
  'POST /v1/payin/sessions': api('forbidden'),
  'GET /v1/payin/:reference': api('read'),
  'POST /v1/payin/:reference/refund': money('refund'),
  'GET /v1/refunds/:reference': api('read'),
  'POST /v1/direct/payout': money('payout'),
  'GET /v1/direct/payout/:reference': api('read'),
  'POST /v1/direct/payout/:reference/cancel': money('payout'),
  'POST /v1/payout': money('payout'),
  'GET /v1/payout/:reference': api('read'),
  'POST /v1/payout/:reference/cancel': money('payout'),
  'POST /v1/payouts/bulk': money('payout'),
  'GET /v1/payouts/bulk/:id': api('read'),
  'GET /v1/accounts': api('read'),
  'GET /v1/accounts/:id': api('read'),
  'GET /v1/accounts/:id/entries': api('read'),
  'GET /v1/transactions': api('read'),
  'POST /v1/statements': api('statement'),
  'GET /v1/statements': api('read'),
  'GET /v1/statements/:id': api('read'),
  // A signed, short-lived link is its own credential (accounting tools fetch it without a key).
  'GET /v1/statements/:id/download': { access: 'public' },
  'GET /v1/providers': api('read'),
  'GET /v1/providers/predict': api('read'),
  'GET /v1/providers/recipient': api('payout'),
  'POST /v1/webhooks': money('developer'),
  'GET /v1/webhooks': api('developer'),
  'GET /v1/webhooks/:id': api('developer'),
  'PATCH /v1/webhooks/:id': money('developer'),
  'DELETE /v1/webhooks/:id': money('developer'),
  'POST /v1/webhooks/:id/replay': money('developer'),
  'POST /v1/webhooks/:id/test': money('developer'),
  'POST /v1/webhooks/:id/rotate-secret': money('developer'),
  'POST /v1/webhooks/:id/enable': money('developer'),
  'POST /v1/webhooks/:id/disable': money('developer'),
  'GET /v1/webhooks/:id/deliveries': api('developer'),
  // Payment links (routes/payment-links.ts): a link opens payins, not payouts; no live money leaves.
  'POST /v1/payment-links': api('developer'),
  'GET /v1/payment-links': api('read'),
  'GET /v1/payment-links/:id': api('read'),
  'PATCH /v1/payment-links/:id': api('developer'),
  'POST /v1/payment-links/:id/deactivate': api('developer'),
  'GET /v1/payment-links/:id/qr': api('read'),
  'GET /v1/payment-links/:id/payments': api('read'),
  'GET /v1/events': api('read'),
  'GET /v1/events/:eventId': api('read'),
  'POST /v1/events/:eventId/redeliver': money('developer'),
  'POST /v1/ws/tokens': api('read'),
  'GET /v1/ws': api('read'),
  'POST /v1/sandbox/payins/:reference/settle': api('developer'),
  'POST /v1/sandbox/payins/:reference/collected': api('developer'),
  'POST /v1/sandbox/payouts/:reference/settle': api('developer'),
  'POST /v1/sandbox/refunds/:reference/settle': api('developer'),
  'POST /v1/sandbox/routes': api('developer'),
  'GET /v1/sandbox/routes': api('developer'),

  // The dashboard's own routes (src/dashboard/routes)
  'POST /dashboard/api/auth/sign-in': pub,
  'POST /dashboard/api/auth/sign-out': { access: 'anyone' },
  'POST /dashboard/api/auth/totp/setup': { access: 'member' },
  'POST /dashboard/api/auth/totp/enable': { access: 'member' },
  'POST /dashboard/api/auth/step-up': { access: 'member' },
  'POST /dashboard/api/auth/password-reset': pub,
  'POST /dashboard/api/auth/password-reset/complete': pub,
  'GET /dashboard/api/invitations/:token': pub,
  'POST /dashboard/api/invitations/:token/accept': pub,
  'GET /dashboard/api/session': { access: 'member' },
  'PUT /dashboard/api/session/mode': { access: 'member' },
  // One's own account: password, sessions, recovery codes (routes/account.ts)
  'GET /dashboard/api/account': { access: 'member' },
  'POST /dashboard/api/account/password': { access: 'member' },
  'GET /dashboard/api/account/sessions': { access: 'member' },
  'DELETE /dashboard/api/account/sessions': { access: 'member' },
  'DELETE /dashboard/api/account/sessions/:id': { access: 'member' },
  'GET /dashboard/api/account/recovery-codes': { access: 'member' },
  'POST /dashboard/api/account/recovery-codes': { access: 'member' },
  // The team's settings (TOTP required of every member); a change is the owner's alone (account.ts).
  'GET /dashboard/api/team/settings': { access: 'team' },
  'PUT /dashboard/api/team/settings': { access: 'team' },
  // The merchant's logo, shown on its payment links' pages (routes/branding.ts).
  'GET /dashboard/api/team/logo': { access: 'team' },
  'GET /dashboard/api/team/logo/image': { access: 'team' },
  'PUT /dashboard/api/team/logo': { access: 'team' },
  'DELETE /dashboard/api/team/logo': { access: 'team' },
  // Alerts (routes/alerts.ts): read by every member who reads; thresholds and mail set by the team's managers.
  'GET /dashboard/api/alerts': { access: 'read' },
  'GET /dashboard/api/team/alerts': { access: 'team' },
  'PUT /dashboard/api/team/alerts': { access: 'team' },
  'GET /dashboard/api/team/members': { access: 'team' },
  'PATCH /dashboard/api/team/members/:id': { access: 'team' },
  'DELETE /dashboard/api/team/members/:id': { access: 'team' },
  'GET /dashboard/api/team/invitations': { access: 'team' },
  'POST /dashboard/api/team/invitations': { access: 'team' },
  'DELETE /dashboard/api/team/invitations/:id': { access: 'team' },
  'GET /dashboard/api/audit': { access: 'audit' },
  'GET /dashboard/api/audit/export': { access: 'audit' },
  'GET /dashboard/api/home': { access: 'read' },
  'GET /dashboard/api/transactions/search': { access: 'read' },
  // The lists as CSV or XLSX, for the filters shown: whoever reads the list may take it away (export.ts).
  'GET /dashboard/api/transactions/export': { access: 'read', audited: true },
  'GET /dashboard/api/transactions/:id/timeline': { access: 'read' },
  // A note on a transaction, shown in its timeline: inserted, never changed (timeline.ts).
  'POST /dashboard/api/transactions/:id/notes': { access: 'note' },
  // One's own saved filters of a list (routes/saved-filters.ts): whoever reads the lists.
  'GET /dashboard/api/saved-filters': { access: 'read' },
  'POST /dashboard/api/saved-filters': { access: 'read' },
  'DELETE /dashboard/api/saved-filters/:id': { access: 'read' },
  'GET /dashboard/api/requests': { access: 'developer' },
  'GET /dashboard/api/keys': { access: 'developer' },
  // A live key also needs `live_keys`, a live session and a step-up (keys.ts).
  'POST /dashboard/api/keys': { access: 'developer', liveMoney: true },
  'DELETE /dashboard/api/keys/:apiKey': { access: 'developer', liveMoney: true },
  'POST /dashboard/api/payouts/bulk/preview': { access: 'payout' },
  // A payment link's payments as CSV or XLSX: whoever reads the link may take them away
  // (routes/payment-links.ts; the links themselves go through /dashboard/api/v1/payment-links).
  'GET /dashboard/api/payment-links/:id/export': { access: 'read', audited: true },

  // The page itself (built files, then index.html for the page's own routes)
  'GET /dashboard': { access: 'public', mount: true },
} as const satisfies Record<string, RouteRule>;

export type RouteKey = keyof typeof routeTable;
export const routeKeys = Object.keys(routeTable) as RouteKey[];

/** 'POST /v1/payin/:reference/refund' → ['POST', '/v1/payin/:reference/refund']. */
export function splitRouteKey(key: string): [method: string, path: string] {
  const at = key.indexOf(' ');
  return [key.slice(0, at), key.slice(at + 1)];
}

export const ruleOf = (key: RouteKey): RouteRule => routeTable[key];

/** The dashboard door's prefix: /dashboard/api/v1/... is the public API on a member's behalf. */
export const DASHBOARD_API = '/dashboard/api';
