// The dashboard's roles and what each may do (docs/dashboard.md, Roles). One table, read by the
// server's guards and sent to the page (which hides what the server would refuse anyway).

export const roles = ['owner', 'admin', 'developer', 'support', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const permissions = [
  /** Read transactions, balances, payouts, refunds, statements, events. */
  'read',
  /** Refund a payin, full or partial. */
  'refund',
  /** Send payouts (one, or a bulk upload) and cancel a held payout; check a recipient. */
  'payout',
  /** Request a statement. */
  'statement',
  /** API keys, webhook endpoints (test-send, replay, redeliver), the request log, sandbox helpers. */
  'developer',
  /** Members and invitations (an admin may not touch owners nor make one). */
  'team',
  /** Read and export the audit log. */
  'audit',
] as const;
export type Permission = (typeof permissions)[number];

const grants: Record<Role, readonly Permission[]> = {
  owner: permissions,
  admin: ['read', 'refund', 'payout', 'statement', 'developer', 'team'],
  developer: ['read', 'developer'],
  support: ['read', 'refund', 'statement'],
  viewer: ['read'],
};

export function can(role: Role, permission: Permission): boolean {
  return grants[role].includes(permission);
}

export function permissionsOf(role: Role): Permission[] {
  return [...grants[role]];
}

/** Roles whose members need a second factor before they may act in live mode. */
export const liveNeedsTotp: readonly Role[] = ['owner', 'admin'];

/**
 * The public API's routes the dashboard calls on the member's behalf (mounted under
 * /dashboard/api/v1 with the same routers, validation, idempotency and tenant rules), and the
 * permission each needs. A route not listed here is refused with 403 through the dashboard.
 */
export const apiRoutePermissions: readonly { method: string; path: RegExp; permission: Permission }[] = [
  { method: 'POST', path: /^\/v1\/payin\/[^/]+\/refund$/, permission: 'refund' },
  { method: 'POST', path: /^\/v1\/(direct\/payout|payout|payouts\/bulk)$/, permission: 'payout' },
  { method: 'POST', path: /^\/v1\/(direct\/payout|payout)\/[^/]+\/cancel$/, permission: 'payout' },
  { method: 'GET', path: /^\/v1\/providers\/recipient$/, permission: 'payout' },
  { method: 'POST', path: /^\/v1\/statements$/, permission: 'statement' },
  { method: 'GET', path: /^\/v1\/webhooks(\/.*)?$/, permission: 'developer' },
  { method: 'POST', path: /^\/v1\/webhooks(\/.*)?$/, permission: 'developer' },
  { method: 'DELETE', path: /^\/v1\/webhooks\/[^/]+$/, permission: 'developer' },
  { method: 'POST', path: /^\/v1\/events\/[^/]+\/redeliver$/, permission: 'developer' },
  { method: 'POST', path: /^\/v1\/sandbox\/.+$/, permission: 'developer' },
  { method: 'POST', path: /^\/v1\/ws\/tokens$/, permission: 'read' },
  { method: 'GET', path: /^\/v1\/.+$/, permission: 'read' },
];

/** The permission a public API call through the dashboard needs, or null: not allowed there. */
export function permissionForApiRoute(method: string, path: string): Permission | null {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return apiRoutePermissions.find((r) => r.method === m && r.path.test(path))?.permission ?? null;
}
