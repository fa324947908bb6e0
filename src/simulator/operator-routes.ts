import type { Router as Express } from 'express';
import { z } from 'zod';
import { countries } from '../domain/operators';
import { view, type SandboxOperator } from './operator';
import { mountRequestRoutes } from './request-routes';
import { badRequest, conflict, kindsByPath, notFound, operatorOf } from './route-helpers';

// The operator API the gateway speaks (docs/operators.md): requests, status reads and partner
// checks (request-routes.ts), cancellations and daily statements here, and Wave's own page.

const statementDate = z.iso.date();

export function mountOperatorRoutes(
  app: Express,
  op: SandboxOperator,
  opts: { slowResponseMs: number },
): void {
  const books = op.books;
  mountRequestRoutes(app, op, opts);

  // Cancel: 200 with the status it leaves (failed/CANCELLED when the cancellation took effect).
  app.post('/operators/:code/:what/:id/cancel', (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const kind = kindsByPath[req.params.what];
    if (!kind) return notFound(res, 'No such route');
    const country = z.enum(countries).safeParse(req.query.country);
    if (!country.success) return badRequest(res, `country must be one of ${countries.join(', ')}`);
    const known = books.get(kind, req.params.id);
    if (known && known.operator !== operator) return conflict(res);
    res.json(view(op.cancel(kind, req.params.id, operator, country.data)));
  });

  app.get('/operators/:code/statements/:date', (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const date = statementDate.safeParse(req.params.date);
    if (!date.success) return badRequest(res, 'The date is a calendar day, YYYY-MM-DD');
    res.json(op.statement(operator, date.data));
  });

  // Wave sends the customer to its own page; the sandbox's stands in for it.
  app.get('/wave/checkout/:id', (req, res) => {
    const tx = books.get('collection', req.params.id);
    if (!tx) return notFound(res);
    const amount = `${tx.amount} ${tx.currency}`;
    res
      .type('html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
          `<title>Wave sandbox</title></head><body><main><h1>Wave (sandbox)</h1>` +
          `<p>Payment of ${amount}: <strong data-testid="wave-status">${tx.outcome}</strong>.</p>` +
          `<p>In the sandbox the outcome follows sandboxScenario; nothing to do on this page.</p></main></body></html>`,
      );
  });
}
