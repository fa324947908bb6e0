// The dashboard's roles and what each may do (docs/dashboard.md, Roles). One table, read by the
// route guard (src/api/routing.ts, through the route table of ./routes.ts) and sent to the page
// (which hides what the server would refuse anyway).

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
  /** Test API keys, webhook endpoints (test-send, replay, redeliver), the request log, sandbox helpers. */
  'developer',
  /**
   * Create and revoke live API keys. A live key refunds and pays out: only a role holding every
   * power a live key grants (refund, payout, developer) may hold it (docs/decisions/dashboard/live-money-second-factor.md).
   */
  'live_keys',
  /** Members and invitations (an admin may not touch owners nor make one). */
  'team',
  /** Read and export the audit log. */
  'audit',
  /** Add a note to a transaction (append-only, audited): staff who answer customers. */
  'note',
] as const;
export type Permission = (typeof permissions)[number];

export const grants: Readonly<Record<Role, readonly Permission[]>> = {
  owner: permissions,
  admin: ['read', 'refund', 'payout', 'statement', 'developer', 'live_keys', 'team', 'note'],
  developer: ['read', 'developer'],
  support: ['read', 'refund', 'statement', 'note'],
  viewer: ['read'],
};

export function can(role: Role, permission: Permission): boolean {
  return grants[role].includes(permission);
}

export function permissionsOf(role: Role): Permission[] {
  return [...grants[role]];
}

/**
 * Roles whose members need a second factor before they may switch to live mode at all. Every
 * other member may read live data with a password, but moving live money (the route table's
 * `liveMoney` rows) needs TOTP whatever the role.
 */
export const liveNeedsTotp: readonly Role[] = ['owner', 'admin'];

/** How long a step-up (a TOTP code checked again, POST /dashboard/api/auth/step-up) lasts. */
export const STEP_UP_MS = 5 * 60_000;
