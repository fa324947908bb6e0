// The dashboard-only routes of docs/dashboard.md (Shapes), typed by hand from that page; the public
// API's are typed from the OpenAPI document (./http.ts, `api`).
import type { components } from '../../../src/client/schema';
import type { Permission, Role } from '../../../src/dashboard/access/roles';
import type {
  AlertSettingsShape,
  DashboardAlert,
  CurrencyVolumes,
  HomeAnswer,
  PeriodFigures,
  TransactionNote,
  TransactionTimeline,
} from '../../../src/dashboard/data/shapes';
import { request } from './http';

export type { Permission, Role, DashboardAlert };
export type AlertSettings = AlertSettingsShape;
export type Mode = 'test' | 'live';
export type Schemas = components['schemas'];
export type TransactionPage = Schemas['TransactionPage'];

export interface Session {
  member: { id: string; email: string; name: string };
  merchant: { id: string; name: string };
  role: Role;
  permissions: Permission[];
  mode: Mode;
  csrfToken: string;
  totpEnabled: boolean;
  /** Owners and admins: live mode only with TOTP set up. */
  totpRequiredForLive: boolean;
  /** The team requires TOTP of every member and this one has none: only its set-up is open. */
  totpSetupRequired: boolean;
}

export interface Account {
  member: { id: string; email: string; name: string; role: Role };
  totpEnabled: boolean;
  recoveryCodesRemaining: number;
  totpRequiredForTeam: boolean;
}

export interface AccountSession {
  id: string;
  /** 'Firefox on Windows' */
  device: string;
  userAgent: string;
  mode: Mode;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

/** The merchant's logo as the team page shows it (the file itself: /team/logo/image). */
export interface TeamLogo {
  logo: { version: string; contentType: string; bytes: number; updatedAt: string } | null;
}

export interface TeamSettings {
  requireTotp: boolean;
}

export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
  /** An SVG data URL (the CSP allows `img-src data:`). */
  qrCode: string;
}

export interface InvitationView {
  email: string;
  role: Role;
  merchant: { name: string };
  /** The inviter's name; null: the operator's CLI. */
  invitedBy: string | null;
  expiresAt: string;
}

export interface TeamMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  state: 'pending' | 'accepted' | 'revoked' | 'expired';
  createdAt: string;
  expiresAt: string;
}

export interface AuditEntry {
  at: string;
  memberId: string | null;
  email: string | null;
  action: string;
  target: string;
  mode: Mode | null;
  ip: string;
  userAgent: string;
  status: number;
  outcome: 'allowed' | 'refused' | 'failed';
  problemCode: string | null;
  /** The matched route's pattern; null when none matched (refused before, e.g. by CSRF). */
  route: string | null;
  /** What was done, rendered by the page (audit-actions.ts); null: its raw method and path. */
  described: { kind: string; params: Record<string, string | number> } | null;
}

/** The home figures and a transaction's timeline: the server's own types (one truth). */
export type Home = HomeAnswer;
export type Timeline = TransactionTimeline;
export type { TransactionNote };
export type { CurrencyVolumes, PeriodFigures };

export interface RequestLogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  problemType: string | null;
  problemCode: string | null;
  idempotencyKey: string | null;
  durationMs: number;
  requestId: string | null;
  apiKey: string;
  /** Masked JSON text, cut at 16 kB (`truncated`); null when none. */
  requestBody: string | null;
  responseBody: string | null;
  truncated: boolean;
}

export interface ApiKey {
  apiKey: string; // mk_test_… / mk_live_…, not a secret
  mode: Mode;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface BulkPreviewRow {
  /** The row's line in the file (the header is line 1). */
  line: number;
  item: Schemas['CreatePayoutBatchRequest']['items'][number] | null;
  /** A refused row's cells as the file has them. */
  cells?: { reference?: string; msisdn?: string; amount?: string; customerName?: string };
  errors: { field: string; message: string }[];
}
export interface BulkPreview {
  rows: BulkPreviewRow[];
  valid: number;
  invalid: number;
  totals: { currency: string; count: number; amount: number }[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Query = Record<string, string | number | undefined>;

/** GET/POST /saved-filters: a member's own filters of a list, under a name. */
export type FilterList = 'transactions' | 'refunds' | 'payouts';
export interface SavedFilter {
  id: string;
  list: FilterList;
  name: string;
  filters: Record<string, string>;
  createdAt: string;
}

export const dashboardApi = {
  session: () => request<Session>('GET', '/session'),
  signIn: (body: { email: string; password: string; totp?: string }, key: string) =>
    request<Session>('POST', '/auth/sign-in', { body, idempotencyKey: key }),
  signOut: (key: string) => request<void>('POST', '/auth/sign-out', { idempotencyKey: key }),
  setMode: (mode: Mode, key: string) =>
    request<Session>('PUT', '/session/mode', { body: { mode }, idempotencyKey: key }),
  totpSetup: (key: string) => request<TotpSetup>('POST', '/auth/totp/setup', { idempotencyKey: key }),
  /** The recovery codes come with it, shown this once. */
  totpEnable: (code: string, key: string) =>
    request<{ totpEnabled: true; recoveryCodes: string[] }>('POST', '/auth/totp/enable', {
      body: { code },
      idempotencyKey: key,
    }),

  account: () => request<Account>('GET', '/account'),
  /** Answers the renewed session (new CSRF token): every other session ended. */
  changePassword: (body: { currentPassword: string; newPassword: string }, key: string) =>
    request<Session>('POST', '/account/password', { body, idempotencyKey: key }),
  accountSessions: () => request<{ data: AccountSession[] }>('GET', '/account/sessions'),
  /** Sign out everywhere; `keepCurrent`: every session but this one. */
  endSessions: (keepCurrent: boolean, key: string) =>
    request<{ ended: number; signedOut: boolean }>('DELETE', '/account/sessions', {
      ...(keepCurrent ? { query: { keepCurrent: 'true' } } : {}),
      idempotencyKey: key,
    }),
  endSession: (id: string, key: string) =>
    request<void>('DELETE', `/account/sessions/${encodeURIComponent(id)}`, { idempotencyKey: key }),
  /** A new set of recovery codes (the old one void), for a TOTP code. */
  regenerateRecoveryCodes: (code: string, key: string) =>
    request<{ recoveryCodes: string[]; remaining: number }>('POST', '/account/recovery-codes', {
      body: { code },
      idempotencyKey: key,
    }),
  teamSettings: () => request<TeamSettings>('GET', '/team/settings'),
  teamLogo: () => request<TeamLogo>('GET', '/team/logo'),
  /** The image itself is the body; the server reads its type from its bytes. */
  setTeamLogo: (file: File, key: string) =>
    request<TeamLogo>('PUT', '/team/logo', { raw: file, contentType: file.type, idempotencyKey: key }),
  removeTeamLogo: (key: string) => request<TeamLogo>('DELETE', '/team/logo', { idempotencyKey: key }),
  /** What needs the team's attention in the session's mode (every member who reads). */
  alerts: () => request<{ data: DashboardAlert[] }>('GET', '/alerts'),
  /** The session's mode's thresholds and mail (owners and admins). */
  alertSettings: () => request<AlertSettings>('GET', '/team/alerts'),
  setAlertSettings: (body: AlertSettings, key: string) =>
    request<AlertSettings>('PUT', '/team/alerts', { body, idempotencyKey: key }),
  setTeamSettings: (body: TeamSettings, key: string) =>
    request<TeamSettings>('PUT', '/team/settings', { body, idempotencyKey: key }),
  /** A TOTP code checked again: live keys are made or revoked within five minutes of one. */
  stepUp: (totp: string, key: string) =>
    request<{ steppedUpUntil: string }>('POST', '/auth/step-up', { body: { totp }, idempotencyKey: key }),
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
    request<Invitation & { link: string }>('POST', '/team/invitations', { body, idempotencyKey: key }),
  revokeInvitation: (id: string, key: string) =>
    request<void>('DELETE', `/team/invitations/${encodeURIComponent(id)}`, { idempotencyKey: key }),

  audit: (query: Query) => request<Page<AuditEntry>>('GET', '/audit', { query }),
  home: () => request<Home>('GET', '/home'),
  savedFilters: (list: FilterList) =>
    request<{ data: SavedFilter[] }>('GET', '/saved-filters', { query: { list } }),
  saveFilters: (body: { list: FilterList; name: string; filters: Record<string, string> }) =>
    request<SavedFilter>('POST', '/saved-filters', { body }),
  removeSavedFilters: (id: string) => request<void>('DELETE', `/saved-filters/${encodeURIComponent(id)}`),
  /** A note on a transaction (append-only); its text as typed, trimmed by the server. */
  addNote: (id: string, text: string) =>
    request<TransactionNote>('POST', `/transactions/${encodeURIComponent(id)}/notes`, { body: { text } }),
  timeline: (reference: string) =>
    request<Timeline>('GET', `/transactions/${encodeURIComponent(reference)}/timeline`),
  /** `q`: a part of a reference; `phone`: the last 2 to 4 digits of the customer's number. */
  search: (query: Query) => request<TransactionPage>('GET', '/transactions/search', { query }),
  requests: (query: Query) => request<Page<RequestLogEntry>>('GET', '/requests', { query }),
  keys: () => request<{ data: ApiKey[] }>('GET', '/keys'),
  createKey: (mode: Mode, key: string) =>
    request<{ apiKey: string; apiClient: string; mode: Mode }>('POST', '/keys', {
      body: { mode },
      idempotencyKey: key,
    }),
  revokeKey: (apiKey: string, key: string) =>
    request<ApiKey>('DELETE', `/keys/${encodeURIComponent(apiKey)}`, { idempotencyKey: key }),
  /** The file itself is the body, typed by its extension (the server reads text/csv or XLSX). */
  bulkPreview: (file: File, key: string) =>
    request<BulkPreview>('POST', '/payouts/bulk/preview', {
      raw: file,
      contentType: /\.xlsx$/i.test(file.name) ? xlsxType : 'text/csv',
      idempotencyKey: key,
    }),
};
