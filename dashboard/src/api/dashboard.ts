// The dashboard-only routes of docs/dashboard.md (Shapes), typed by hand from that page; the public
// API's are typed from the OpenAPI document (./http.ts, `api`).
import type { components } from '../../../src/client/schema';
import type { Permission, Role } from '../../../src/dashboard/access/roles';
import { request } from './http';

export type { Permission, Role };
export type Mode = 'test' | 'live';
export type Schemas = components['schemas'];
export type TransactionPage = Schemas['TransactionPage'];

export interface Session {
  member: { id: string; email: string; name: string; totpEnabled: boolean };
  merchant: { id: string; name: string };
  role: Role;
  permissions: Permission[];
  mode: Mode;
  csrfToken: string;
}

export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
  qrSvg: string;
}

export interface InvitationView {
  email: string;
  role: Role;
  merchant: { name: string };
  invitedBy: { name: string } | null;
  expiresAt: string;
}

export interface TeamMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
  createdAt: string;
  lastSignInAt: string | null;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
  invitedBy: { name: string } | null;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { id: string; email: string } | null;
  action: string;
  target: string | null;
  mode: Mode | null;
  ip: string | null;
  userAgent: string | null;
}

export interface Volume {
  currency: string;
  count: number;
  amount: number;
}
export interface Volumes {
  payin: Volume[];
  payout: Volume[];
  refund: Volume[];
}
export interface Home {
  balances: { mode: Mode; currency: string; available: number; pending: number }[];
  today: Volumes;
  month: Volumes;
  successRates: { operator: string; type: 'payin' | 'payout'; attempts: number; succeeded: number }[];
  days: { date: string; currency: string; payin: number; payout: number; refund: number }[];
}

export type TimelineKind = 'status' | 'operator' | 'event' | 'webhook' | 'ledger';
export interface Timeline {
  reference: string;
  type: 'payin' | 'payout' | 'refund';
  entries: {
    at: string;
    kind: TimelineKind;
    label: string;
    detail: Record<string, string | number | boolean | null>;
  }[];
}

export interface RequestLogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  problemType: string | null;
  idempotencyKey: string | null;
  durationMs: number;
  requestBody: unknown;
  responseBody: unknown;
}

export interface ApiKey {
  apiKey: string;
  mode: Mode;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface BulkPreviewRow {
  row: number;
  values: Record<string, string>;
  item: Schemas['StandardPayoutRequest'] | null;
  errors: { path: string; message: string }[];
}
export interface BulkPreview {
  rows: BulkPreviewRow[];
  valid: number;
  invalid: number;
  totals: Volume[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

type Query = Record<string, string | number | undefined>;

export const dashboardApi = {
  session: () => request<Session>('GET', '/session'),
  signIn: (body: { email: string; password: string; totp?: string }, key: string) =>
    request<Session>('POST', '/auth/sign-in', { body, idempotencyKey: key }),
  signOut: (key: string) => request<void>('POST', '/auth/sign-out', { idempotencyKey: key }),
  setMode: (mode: Mode, key: string) =>
    request<Session>('PUT', '/session/mode', { body: { mode }, idempotencyKey: key }),
  totpSetup: (key: string) => request<TotpSetup>('POST', '/auth/totp/setup', { idempotencyKey: key }),
  totpEnable: (code: string, key: string) =>
    request<Session>('POST', '/auth/totp/enable', { body: { code }, idempotencyKey: key }),
  passwordReset: (email: string, key: string) =>
    request<void>('POST', '/auth/password-reset', { body: { email }, idempotencyKey: key }),
  passwordResetComplete: (body: { token: string; password: string }, key: string) =>
    request<void>('POST', '/auth/password-reset/complete', { body, idempotencyKey: key }),
  invitation: (token: string) => request<InvitationView>('GET', `/invitations/${encodeURIComponent(token)}`),
  acceptInvitation: (token: string, body: { name: string; password: string }, key: string) =>
    request<Session>('POST', `/invitations/${encodeURIComponent(token)}/accept`, {
      body,
      idempotencyKey: key,
    }),

  members: () => request<{ data: TeamMember[] }>('GET', '/team/members'),
  setRole: (id: string, role: Role, key: string) =>
    request<TeamMember>('PATCH', `/team/members/${encodeURIComponent(id)}`, {
      body: { role },
      idempotencyKey: key,
    }),
  removeMember: (id: string, key: string) =>
    request<void>('DELETE', `/team/members/${encodeURIComponent(id)}`, { idempotencyKey: key }),
  invitations: () => request<{ data: Invitation[] }>('GET', '/team/invitations'),
  invite: (body: { email: string; role: Role }, key: string) =>
    request<Invitation & { url: string }>('POST', '/team/invitations', { body, idempotencyKey: key }),
  revokeInvitation: (id: string, key: string) =>
    request<void>('DELETE', `/team/invitations/${encodeURIComponent(id)}`, { idempotencyKey: key }),

  audit: (query: Query) => request<Page<AuditEntry>>('GET', '/audit', { query }),
  home: () => request<Home>('GET', '/home'),
  timeline: (reference: string) =>
    request<Timeline>('GET', `/transactions/${encodeURIComponent(reference)}/timeline`),
  search: (query: Query) => request<TransactionPage>('GET', '/transactions/search', { query }),
  requests: (query: Query) => request<Page<RequestLogEntry>>('GET', '/requests', { query }),
  keys: () => request<{ data: ApiKey[] }>('GET', '/keys'),
  createKey: (key: string) =>
    request<{ key: ApiKey; apiClient: string }>('POST', '/keys', { idempotencyKey: key }),
  revokeKey: (apiKey: string, key: string) =>
    request<void>('DELETE', `/keys/${encodeURIComponent(apiKey)}`, { idempotencyKey: key }),
  bulkPreview: (file: File, key: string) => {
    const form = new FormData();
    form.set('file', file);
    return request<BulkPreview>('POST', '/payouts/bulk/preview', { form, idempotencyKey: key });
  },
};
