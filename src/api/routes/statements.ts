import type { Router } from 'express';
import {
  createStatementRequest,
  listStatementsQuery,
  statementDownloadQuery,
} from '../../contract/schemas/statements';
import { toStatementRecord } from '../../contract/records/statement-record';
import type { StatementService } from '../../services/statement-service';
import type { Statement } from '../../statements/store';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';
import { decodeNewestFirst, encodeNewestFirst } from '../cursor';

const originOf = (req: { protocol: string; get(name: string): string | undefined }) =>
  `${req.protocol}://${req.get('host')}`;

/** POST /v1/statements, their list and GET /v1/statements/{id}: the merchant's (docs/statements.md). */
export function statementRoutes(statements: StatementService): Router {
  const router = newRouter();
  const record = (st: Statement, origin: string) =>
    toStatementRecord(st, st.status === 'ready' ? statements.downloadLink(st, origin) : null);

  route(router, 'POST /v1/statements', async (req, res) => {
    const body = parseOr400(createStatementRequest, req.body, req);
    const { created, statement } = await statements.create(req.merchantId!, body, req.idempotencyKey);
    res.status(created ? 202 : 200).json(record(statement, originOf(req)));
  });

  // Every statement of the merchant, whoever asked for it: a team shares them.
  route(router, 'GET /v1/statements', async (req, res) => {
    const q = parseOr400(listStatementsQuery, req.query, req);
    const before = decodeNewestFirst(q.cursor);
    const page = await statements.list(req.merchantId!, {
      limit: q.limit,
      ...(q.accountId ? { accountId: q.accountId } : {}),
      ...(before ? { before } : {}),
    });
    const last = page.statements[page.statements.length - 1];
    res.json({
      data: page.statements.map((st) => record(st, originOf(req))),
      nextCursor: page.more && last ? encodeNewestFirst(last) : null,
    });
  });

  route(router, 'GET /v1/statements/:id', async (req, res) => {
    res.json(record(await statements.get(req.merchantId!, req.params.id), originOf(req)));
  });

  return router;
}

/**
 * GET /v1/statements/{id}/download: the link is the credential (signed, short-lived), so accounting
 * tools and browsers fetch it without the API key. Mounted before merchant authentication.
 */
export function statementDownloadRoutes(statements: StatementService): Router {
  const router = newRouter();
  route(router, 'GET /v1/statements/:id/download', async (req, res) => {
    const q = parseOr400(statementDownloadQuery, req.query, req);
    const st = await statements.open(req.params.id, q.expires, q.signature);
    res.setHeader('Content-Type', st.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json');
    res.setHeader('Content-Disposition', `attachment; filename="${st.id}.${st.format}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    for await (const chunk of statements.content(st)) res.write(chunk);
    res.end();
  });
  return router;
}
