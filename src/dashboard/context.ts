import type { Logger } from 'pino';
import type { Request, Response } from 'express';
import type { DashboardIdentity, MemberRecord } from './identity';
import { memberView } from './identity';
import { SESSION_COOKIE, LIFETIME_MS } from './access/sessions';
import { outcomeOf, type AuditEntry } from './access/audit-log';
import { permissionsOf, liveNeedsTotp } from './access/roles';
import { redactLinkTokens } from '../infra/log-masking';
import type { DashboardDataDeps } from './routes/data';
import type { SharedLimits } from '../persistence/shared-limits';
import type { MerchantLogoStore } from '../merchants/logos';
import type { AlertReader } from './alerts/alerts';
import type { AlertSettingsStore } from './alerts/settings';

/** What the dashboard's server side needs, wired in src/main/wiring.ts. */
export interface DashboardDeps {
  identity: DashboardIdentity;
  /** A merchant's name (shown by GET /session and in invitations), null when unknown. */
  merchantName(merchantId: string): Promise<string | null>;
  /** The merchant's logo, set on the team's page, shown on its payment links' pages. */
  logos: MerchantLogoStore;
  /** What needs the team's attention, and the owner's thresholds and mail (src/dashboard/alerts). */
  alerts: { reader: AlertReader; settings: AlertSettingsStore };
  /** Whether the merchant may act (not suspended; cached like API key checks); omitted, always. */
  merchantActive?(merchantId: string): Promise<boolean>;
  /** Links in mail (invitations, resets); unset, they follow the request's Host. */
  publicBaseUrl?: string | undefined;
  signIn?: {
    /** Failed sign-ins per client address per minute; 0: no limit. */
    failuresPerAddressPerMinute?: number;
    /** Failed sign-ins of one typed address from one client address per window (`lockMs`). */
    lockAfter?: number;
    /** The window of the per-account limits. */
    lockMs?: number;
    /** Failed sign-ins of one typed address from everywhere per window (known places spared). */
    failuresPerAccount?: number;
    /** Password-reset requests per client address per minute; 0: no limit. */
    resetMailsPerAddressPerMinute?: number;
    /** Invitations sent per merchant per hour; 0: no limit. */
    invitationsPerHour?: number;
  };
  /** Counters every API replica shares (the limits above); omitted, each process counts its own. */
  limits?: SharedLimits;
  /** What the data routes read (src/dashboard/routes/data.ts). */
  data: DashboardDataDeps;
  /** Where the built page is (dist/dashboard by default). */
  staticDir?: string;
  logger: Logger;
}

export const baseUrlOf = (deps: DashboardDeps, req: Request): string =>
  deps.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** The session cookie: httpOnly, Secure, SameSite=Strict, the dashboard's path only. */
export function setSessionCookie(res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    path: '/dashboard',
    maxAge: LIFETIME_MS,
  });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'strict', path: '/dashboard' });
}

/** GET /dashboard/api/session's answer. */
export async function sessionView(
  deps: DashboardDeps,
  member: MemberRecord,
  session: { mode: 'test' | 'live'; csrfToken: string },
) {
  return {
    member: { id: member._id, email: member.email, name: member.name },
    merchant: {
      id: member.merchantId,
      name: (await deps.merchantName(member.merchantId)) ?? member.merchantId,
    },
    role: member.role,
    permissions: permissionsOf(member.role),
    mode: session.mode,
    csrfToken: session.csrfToken,
    totpEnabled: memberView(member).totpEnabled,
    totpRequiredForLive: liveNeedsTotp.includes(member.role),
    /** The team requires TOTP of every member and this one has none yet: set it up first. */
    totpSetupRequired:
      member.totpSecret === null && (await deps.identity.settings.of(member.merchantId)).requireTotp,
  };
}

/** An audit entry a route writes itself (sign-in, its failure, sign-out, a link used). */
export async function routeAudit(
  deps: DashboardDeps,
  req: Request,
  member: MemberRecord,
  action: string,
  status: number,
  mode: AuditEntry['mode'] = null,
): Promise<void> {
  req.auditedByRoute = true;
  await deps.identity.audit
    .record(member.merchantId, {
      at: new Date(),
      memberId: member._id,
      email: member.email,
      action,
      target: redactLinkTokens(req.originalUrl.split('?')[0]!),
      mode,
      ip: req.ip ?? '',
      userAgent: String(req.headers['user-agent'] ?? '').slice(0, 256),
      status,
      outcome: outcomeOf(status),
      problemCode: null,
      route: null,
      // The page names these by their kind (`auth.sign-in`…).
      described: { kind: action, params: {} },
    })
    .catch((err: unknown) => deps.logger.error({ err }, 'dashboard audit log'));
}
