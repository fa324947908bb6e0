import type { Router } from 'express';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { parseOr400 } from '../../api/validate';
import { decodeCursor, encodeCursor } from '../../api/cursor';
import { outcomeOf, type AuditEntry } from '../access/audit-log';
import type { DashboardDeps } from '../context';
import { newRouter, route } from '../../api/routing';

// The audit log of the member's merchant, newest first, and its CSV (owners: the `audit` permission).

const EXPORT_MAX = 10_000;
// The first nine as before (readers of earlier exports keep their columns), then the outcome and action.
const columns = [
  'at',
  'memberId',
  'email',
  'action',
  'target',
  'mode',
  'ip',
  'userAgent',
  'status',
  'outcome',
  'problemCode',
  'route',
  'actionKind',
  'actionParams',
] as const;
// Entries written before outcomes were recorded: the outcome follows from the status.
const out = (e: AuditEntry) => ({
  ...e,
  at: new Date(e.at).toISOString(),
  outcome: e.outcome ?? outcomeOf(e.status),
  problemCode: e.problemCode ?? null,
  route: e.route ?? null,
  described: e.described ?? null,
});
const csvRow = (e: ReturnType<typeof out>) => ({
  ...e,
  actionKind: e.described?.kind ?? '',
  actionParams: e.described ? JSON.stringify(e.described.params) : '',
});

export function auditRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { audit } = deps.identity;

  route(router, 'GET /dashboard/api/audit', async (req, res) => {
    const q = parseOr400(
      z.object({
        cursor: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
      }),
      req.query,
      req,
    );
    const before = q.cursor
      ? decodeCursor(z.object({ before: z.number().int().min(1) }), q.cursor).before
      : undefined;
    const page = await audit.list(req.member!.merchantId, { limit: q.limit, ...(before ? { before } : {}) });
    res.json({
      data: page.entries.map(out),
      nextCursor: page.next === null ? null : encodeCursor({ before: page.next }),
    });
  });

  route(router, 'GET /dashboard/api/audit/export', async (req, res) => {
    const rows: ReturnType<typeof csvRow>[] = [];
    let before: number | undefined;
    do {
      const page = await audit.list(req.member!.merchantId, { limit: 100, ...(before ? { before } : {}) });
      rows.push(...page.entries.map((e) => csvRow(out(e))));
      before = page.next ?? undefined;
    } while (before !== undefined && rows.length < EXPORT_MAX);
    res
      .type('text/csv; charset=utf-8')
      .attachment('audit-log.csv')
      .send(stringify(rows, { header: true, columns: [...columns] }));
  });

  return router;
}
