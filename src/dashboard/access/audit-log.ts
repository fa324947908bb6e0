import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { RequestHandler } from 'express';
import { ReadChains } from '../../persistence/read-chains';
import { redactLinkTokens } from '../../infra/log-masking';
import type { Mode } from '../../domain/modes';
import { describeAction, routeOf, type AuditAction } from './audit-actions';
import { routeTable, type RouteKey, type RouteRule } from '../../contract/access/routes';

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
  /**
   * Allowed (answered below 400), refused (4xx: a guard, a check, a conflict) or failed (5xx).
   * Absent on entries written before it: read from `status`.
   */
  outcome?: AuditOutcome;
  /** The problem's code of a refusal or failure (`ROLE_FORBIDDEN`…); null when allowed. */
  problemCode?: string | null;
  /** The matched route's pattern (`POST /v1/payin/:reference/refund`); null when none matched. */
  route?: string | null;
  /** What was done, structured (kind and parameters), rendered by the page; null: undescribed. */
  described?: AuditAction | null;
}

export type AuditOutcome = 'allowed' | 'refused' | 'failed';

export const outcomeOf = (status: number): AuditOutcome =>
  status < 400 ? 'allowed' : status < 500 ? 'refused' : 'failed';

/** The `code` of a problem+json answer, or null. */
function problemCodeOf(status: number, answer: Record<string, unknown> | null): string | null {
  if (status < 400 || !answer) return null;
  return typeof answer.code === 'string' ? answer.code.slice(0, 64) : null;
}

/** The answer's JSON body (small answers only), or null. */
function jsonOf(body: unknown): Record<string, unknown> | null {
  const raw = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
  if (raw === null || raw.length > 64 * 1024 || !raw.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
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

/** A read the route table marks `audited` (an export: customers' data leaving the service). */
const auditedRead = (key: RouteKey): boolean => {
  const rule = routeTable[key] as RouteRule;
  return 'audited' in rule && rule.audited === true;
};

/**
 * Records a request once it is answered ('finish'): every non-GET request (and every read the
 * route table marks `audited`) of a signed-in member,
 * under /dashboard/api and /dashboard/api/v1, allowed or refused (mounted before CSRF and the
 * guards), with its status, its problem's code, the route that matched (`req.baseUrl +
 * req.route.path` under `mount`, else the route table's row it matched) and what it did
 * (./audit-actions.ts). A path no row matches never reaches this (404 first: src/api/routing.ts).
 * `onError` hears a write that failed (never the body).
 */
export function auditChanges(
  log: AuditLog,
  onError: (err: unknown) => void,
  mount = '/dashboard/api',
): RequestHandler {
  return (req, res, next) => {
    // The route table's row is known here (src/api/routing.ts, unknownRoutes runs first): a read not
    // marked `audited` goes on untouched.
    const read = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
    if (read && !(req.routeKey && auditedRead(req.routeKey))) return next();
    const target = redactLinkTokens(req.originalUrl.split('?')[0]!);
    let answer: unknown;
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // The last string sent is the answer (res.json sends its serialized string through here).
      if (typeof body === 'string' || Buffer.isBuffer(body)) answer = body;
      return send(body);
    };
    res.on('finish', () => {
      // Sign-in and sign-out write their own entries (the member is known only after, or before).
      if (!req.member || req.auditedByRoute) return;
      const status = res.statusCode;
      const json = jsonOf(answer);
      const base = req.baseUrl.startsWith(mount) ? req.baseUrl.slice(mount.length) : req.baseUrl;
      const routePath = (req.route as { path?: unknown } | undefined)?.path;
      // The route that ran; else the route table's row the request matched (src/api/routing.ts),
      // refused before its handler (CSRF, the guards): its pattern, written as the audit actions are.
      const matched =
        typeof routePath === 'string'
          ? {
              pattern: `${req.method} ${base}${routePath}`,
              params: { ...(req.params as Record<string, string>) },
            }
          : undefined;
      const row = req.routeKey ? req.routeKey.replace(` ${mount}/`, ' /') : undefined;
      const path = req.originalUrl.split('?')[0]!.slice(mount.length) || '/';
      const route = routeOf(req.method, path, matched);
      const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
      const query = req.query as Record<string, unknown>;
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
          status,
          outcome: outcomeOf(status),
          problemCode: problemCodeOf(status, json),
          route: matched?.pattern ?? row ?? null,
          described: route
            ? describeAction(route.pattern, {
                params: route.params,
                body,
                query,
                answer: status < 400 ? json : null,
              })
            : null,
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
