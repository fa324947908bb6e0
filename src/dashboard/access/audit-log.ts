import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { RequestHandler } from 'express';
import { ReadChains } from '../../persistence/read-chains';
import { redactLinkTokens } from '../../infra/log-masking';
import type { Mode } from '../../domain/modes';

// What every member did (docs/dashboard.md): each change under /dashboard/api, and sign-in,
// failed sign-in and sign-out. One read chain per merchant (src/persistence/read-chains.ts), so the
// newest-first list is read by `_id` alone. No personal data but the member's own address: never a
// body, and the target is the request's path (ids, never phone numbers).

export interface AuditEntry {
  at: Date;
  memberId: string | null;
  email: string | null;
  /** `METHOD /path` as the member's request named it, or `auth.sign-in`, `auth.sign-in-failed`… */
  action: string;
  /** The path without its query (what was acted on). */
  target: string;
  mode: Mode | null;
  ip: string;
  userAgent: string;
  status: number;
}

const stream = (merchantId: string) => `dashboard:${merchantId}`;

export class AuditLog {
  constructor(private readonly chains: ReadChains<AuditEntry>) {}

  static on(conn: Connection): AuditLog {
    return new AuditLog(new ReadChains<AuditEntry>(conn, 'dashboard_audit'));
  }

  init(): Promise<void> {
    return this.chains.init();
  }

  async record(merchantId: string, entry: AuditEntry): Promise<void> {
    const id = `aud_${randomBytes(12).toString('hex')}`;
    await this.chains.append(stream(merchantId), id, entry.at, entry, { fresh: true });
  }

  /** Newest first, `limit` entries below position `before` (a cursor); `next` continues. */
  async list(
    merchantId: string,
    opts: { before?: number; limit: number },
  ): Promise<{ entries: AuditEntry[]; next: number | null }> {
    const page = await this.chains.walkDown(stream(merchantId), {
      limit: opts.limit,
      ...(opts.before !== undefined ? { before: opts.before } : {}),
    });
    return { entries: page.entries.map((e) => e.doc), next: page.next };
  }
}

/**
 * Records a request once it is answered ('finish'): every non-GET request of a signed-in member,
 * under /dashboard/api and /dashboard/api/v1. `onError` hears a write that failed (never the body).
 */
export function auditChanges(log: AuditLog, onError: (err: unknown) => void): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const target = redactLinkTokens(req.originalUrl.split('?')[0]!);
    res.on('finish', () => {
      // Sign-in and sign-out write their own entries (the member is known only after, or before).
      if (!req.member || req.auditedByRoute) return;
      log
        .record(req.member.merchantId, {
          at: new Date(),
          memberId: req.member.id,
          email: req.member.email,
          action: `${req.method} ${target}`,
          target,
          mode: req.dashboardMode ?? null,
          ip: req.ip ?? '',
          userAgent: String(req.headers['user-agent'] ?? '').slice(0, 256),
          status: res.statusCode,
        })
        .catch(onError);
    });
    next();
  };
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The session's mode on a /dashboard/api request. */
    dashboardMode?: Mode;
    /** The route wrote its own audit entry (sign-in, sign-out). */
    auditedByRoute?: boolean;
  }
}
