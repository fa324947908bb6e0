// What a change did, as the audit log shows it ("refund of 5,000 XOF on order-123"): a kind and a
// few parameters, stored structured and rendered by the page in its language (dashboard/src/
// audit-actions.ts). Keyed by the pattern of the route that matched (`METHOD /path/:param`, Express
// `req.baseUrl + req.route.path` under /dashboard/api), so a route table can carry them later. Only
// the parameters named here are kept, each short: amounts, currencies, references, roles, modes, and
// a phone number masked to its country code and last four digits. Never a name, an e-mail, a body.

import { currencyByCountry } from '../../domain/operators';

export type AuditParams = Record<string, string | number>;

export interface AuditAction {
  kind: string;
  params: AuditParams;
}

/** What a describer reads: the route's parameters, the request body and the answer's body (if JSON). */
export interface DescribeInput {
  params: Record<string, string>;
  body: Record<string, unknown>;
  answer: Record<string, unknown> | null;
  /** The query of an audited read (an export's list and format). */
  query?: Record<string, unknown>;
}

interface ActionRow {
  kind: string;
  describe?: (i: DescribeInput) => AuditParams;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 ? v.slice(0, 100) : undefined;
const amount = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** Keeps the defined values only. */
function kept(params: Record<string, string | number | undefined>): AuditParams {
  const out: AuditParams = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out[k] = v;
  return out;
}

/** `+225 •• •• 43 21`: the country code (international form) and the last four digits only. */
export function maskPhone(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const digits = raw.replace(/\D/g, '');
  if (digits.length < 6) return undefined;
  const last = digits.slice(-4);
  const tail = `•• •• ${last.slice(0, 2)} ${last.slice(2)}`;
  return raw.trim().startsWith('+') ? `+${digits.slice(0, 3)} ${tail}` : tail;
}

const money = ({ body, answer }: DescribeInput) => ({
  amount: amount(answer?.amount) ?? amount(body.amount),
  currency: text(answer?.currency),
});

/** A payout's currency: its answer's, or (refused) the one its country decides. */
const payout = (i: DescribeInput) => {
  const country = text(i.body.country);
  const byCountry =
    country && country in currencyByCountry
      ? currencyByCountry[country as keyof typeof currencyByCountry]
      : undefined;
  const m = money(i);
  return kept({ ...m, currency: m.currency ?? byCountry, phone: maskPhone(i.body.msisdn) });
};

/** The described changes, by route pattern. */
export const auditActions: Readonly<Record<string, ActionRow>> = {
  // The note's text is the merchant's own data: only which transaction it was on.
  // A saved filter's name and values are the member's own: only which list.
  'POST /saved-filters': { kind: 'saved-filter-created', describe: (i) => kept({ list: text(i.body.list) }) },
  'DELETE /saved-filters/:id': { kind: 'saved-filter-deleted' },
  'POST /transactions/:id/notes': { kind: 'note', describe: (i) => kept({ reference: text(i.params.id) }) },
  'POST /v1/payin/:reference/refund': {
    kind: 'refund',
    describe: (i) => kept({ ...money(i), reference: text(i.params.reference) }),
  },
  'POST /v1/payout': { kind: 'payout', describe: payout },
  'POST /v1/direct/payout': { kind: 'payout', describe: payout },
  'POST /v1/payout/:reference/cancel': {
    kind: 'payout-cancel',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/direct/payout/:reference/cancel': {
    kind: 'payout-cancel',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/payouts/bulk': {
    kind: 'bulk-payout',
    describe: (i) => kept({ items: Array.isArray(i.body.items) ? i.body.items.length : undefined }),
  },
  'POST /keys': {
    kind: 'api-key-created',
    describe: (i) => kept({ mode: text(i.answer?.mode) ?? text(i.body.mode) }),
  },
  'DELETE /keys/:apiKey': { kind: 'api-key-revoked' },
  'POST /team/invitations': { kind: 'member-invited', describe: (i) => kept({ role: text(i.body.role) }) },
  'DELETE /team/invitations/:id': { kind: 'invitation-cancelled' },
  'PATCH /team/members/:id': { kind: 'member-changed', describe: (i) => kept({ role: text(i.body.role) }) },
  'DELETE /team/members/:id': { kind: 'member-removed' },
  'PUT /team/logo': { kind: 'logo-set' },
  'DELETE /team/logo': { kind: 'logo-removed' },
  'PUT /team/alerts': { kind: 'alerts-changed' },
  'PUT /session/mode': { kind: 'mode-switched', describe: (i) => kept({ mode: text(i.body.mode) }) },
  'POST /auth/totp/setup': { kind: 'totp-setup' },
  'POST /auth/totp/enable': { kind: 'totp-enabled' },
  'POST /v1/webhooks': { kind: 'webhook-endpoint-created' },
  'DELETE /v1/webhooks/:id': { kind: 'webhook-endpoint-deleted' },
  'POST /v1/webhooks/:id/enable': { kind: 'webhook-endpoint-enabled' },
  'POST /v1/webhooks/:id/disable': { kind: 'webhook-endpoint-disabled' },
  'PATCH /v1/webhooks/:id': { kind: 'webhook-endpoint-changed' },
  'POST /v1/webhooks/:id/rotate-secret': { kind: 'webhook-secret-rotated' },
  'POST /v1/webhooks/:id/replay': { kind: 'webhook-replay' },
  // The route's own parameter name (src/contract/access/routes.ts): `:id` here never matched.
  'POST /v1/events/:eventId/redeliver': { kind: 'webhook-redelivery' },
  'POST /v1/webhooks/:id/test': { kind: 'webhook-test' },
  'POST /v1/payment-links': { kind: 'payment-link-created' },
  'PATCH /v1/payment-links/:id': { kind: 'payment-link-changed' },
  'POST /v1/payment-links/:id/deactivate': { kind: 'payment-link-deactivated' },
  'POST /v1/statements': { kind: 'statement-requested' },
  // An audited read (the route table's `audited`): which list left, in which format; never the filters.
  'GET /payment-links/:id/export': {
    kind: 'list-exported',
    describe: ({ query }) => kept({ list: 'payment-link-payments', format: text(query?.format) ?? 'csv' }),
  },
  'GET /transactions/export': {
    kind: 'list-exported',
    describe: ({ query }) =>
      kept({ list: text(query?.list) ?? 'transactions', format: text(query?.format) ?? 'csv' }),
  },
  'POST /payouts/bulk/preview': { kind: 'bulk-payout-checked' },
  'POST /v1/direct/payin': { kind: 'payin' },
  'POST /v1/payin/sessions': { kind: 'payin-session' },
  'POST /v1/ws/tokens': { kind: 'stream-token' },
  'POST /v1/sandbox/payins/:reference/settle': {
    kind: 'sandbox-settled',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/sandbox/payins/:reference/collected': {
    kind: 'sandbox-collected',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/sandbox/payouts/:reference/settle': {
    kind: 'sandbox-settled',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/sandbox/refunds/:reference/settle': {
    kind: 'sandbox-settled',
    describe: (i) => kept({ reference: text(i.params.reference) }),
  },
  'POST /v1/sandbox/routes': { kind: 'sandbox-routes' },
  'PUT /team/settings': { kind: 'team-settings-changed' },
  // Routes that write their own entry (`account.password-changed`…) when they run; these name them
  // when they are refused before (CSRF, the guards).
  'POST /auth/sign-out': { kind: 'auth.sign-out' },
  'POST /auth/step-up': { kind: 'step-up' },
  'POST /account/password': { kind: 'password-change' },
  'DELETE /account/sessions': { kind: 'sessions-ended' },
  'DELETE /account/sessions/:id': { kind: 'session-ended' },
  'POST /account/recovery-codes': { kind: 'recovery-codes-regenerated' },
};

/** `METHOD /a/:b` -> a matcher of `METHOD` and a path, exact and case-sensitive, answering its params. */
function matcher(pattern: string) {
  const [method, path] = pattern.split(' ') as [string, string];
  const names: string[] = [];
  const source = path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(seg.slice(1));
      return '([^/]+)';
    })
    .join('/');
  const re = new RegExp(`^${source}$`);
  return (m: string, p: string): Record<string, string> | null => {
    if (m !== method) return null;
    const found = re.exec(p);
    if (!found) return null;
    const params: Record<string, string> = {};
    names.forEach((n, k) => {
      try {
        params[n] = decodeURIComponent(found[k + 1]!);
      } catch {
        params[n] = found[k + 1]!;
      }
    });
    return params;
  };
}

const matchers = Object.keys(auditActions).map((pattern) => ({ pattern, match: matcher(pattern) }));

/**
 * The route a request was for: the pattern that matched (and its params), or, refused before any
 * route matched (a guard, CSRF), the described pattern its exact method and path fit; else null.
 */
export function routeOf(
  method: string,
  path: string,
  matched?: { pattern: string; params: Record<string, string> },
): { pattern: string; params: Record<string, string> } | null {
  if (matched) return matched;
  for (const m of matchers) {
    const params = m.match(method, path);
    if (params) return { pattern: m.pattern, params };
  }
  return null;
}

/** The structured action of a described route, or null (the page shows the raw method and path). */
export function describeAction(pattern: string | null, input: DescribeInput): AuditAction | null {
  const row = pattern ? auditActions[pattern] : undefined;
  if (!row) return null;
  return { kind: row.kind, params: row.describe ? row.describe(input) : {} };
}
