import type { Router as Express, Request } from 'express';
import { z } from 'zod';
import type { CallbackKind } from '../operators/wire';
import type { CallbackDelivery } from './callbacks';
import { scenarioFailures, type SandboxOperator } from './operator';
import { kindsByPath, notFound, parseBody } from './route-helpers';

// Test controls, not part of any operator's API (docs/sandbox.md): they move the operator's side
// where the scenarios cannot, e.g. "the operator completes after our deadline", or alter its books.

/** `collection` or `collections`, and so on. */
function kindOf(req: Request): CallbackKind | null {
  const k = String(req.params.kind);
  return (
    kindsByPath[k] ?? (Object.values(kindsByPath).includes(k as CallbackKind) ? (k as CallbackKind) : null)
  );
}

const settleBody = z.strictObject({
  outcome: z.enum(['completed', 'failed']),
  failure: z.object({ code: z.string().min(1), message: z.string() }).optional(),
  /** Also change a final outcome: the operator's books say otherwise than it answered. */
  force: z.boolean().optional(),
});

const tamperBody = z.strictObject({
  amount: z.number().int().nonnegative().optional(),
  fee: z.number().int().nonnegative().optional(),
  createdAt: z.iso.datetime().optional(),
});

export function mountSandboxRoutes(app: Express, op: SandboxOperator, callbacks: CallbackDelivery[]): void {
  const books = op.books;

  app.post('/_sandbox/collections/:id/collected', (req, res) => {
    const tx = books.get('collection', req.params.id);
    if (!tx) return notFound(res);
    op.markCollected(tx);
    res.json({ id: tx.id, partnerCollected: tx.partnerCollected });
  });

  app.get('/_sandbox/transactions/:kind/:id', (req, res) => {
    const kind = kindOf(req);
    const tx = kind ? books.get(kind, req.params.id) : undefined;
    if (!tx) return notFound(res);
    res.json(tx);
  });

  /** The operator lost the transaction: it leaves the books (and every statement). */
  app.delete('/_sandbox/transactions/:kind/:id', (req, res) => {
    const kind = kindOf(req);
    if (!kind || !books.delete(kind, req.params.id)) return notFound(res);
    res.status(204).end();
  });

  /** Settles a pending transaction now (or, with `force`, rewrites a final one), then calls back. */
  app.post('/_sandbox/:kind/:id/settle', (req, res) => {
    const kind = kindOf(req);
    const tx = kind ? books.get(kind, req.params.id) : undefined;
    if (!tx) return notFound(res);
    const body = parseBody(settleBody, req, res);
    if (!body) return;
    if (tx.tombstone || (tx.outcome !== 'pending' && !body.force))
      return res
        .status(409)
        .json({ error: 'ALREADY_FINAL', message: `The transaction is already ${tx.outcome}`, record: tx });
    op.finalize(tx, body.outcome, body.failure ?? scenarioFailures[tx.kind]);
    res.json(tx);
  });

  /** Alters the operator's books (amount, fee, day): what reconciliation must notice. */
  app.post('/_sandbox/:kind/:id/tamper', (req, res) => {
    const kind = kindOf(req);
    const tx = kind ? books.get(kind, req.params.id) : undefined;
    if (!tx) return notFound(res);
    const body = parseBody(tamperBody, req, res);
    if (!body) return;
    if (body.amount !== undefined) tx.amount = body.amount;
    if (body.fee !== undefined) tx.fee = body.fee;
    if (body.createdAt !== undefined) tx.createdAt = new Date(body.createdAt).toISOString();
    books.save(tx);
    res.json(tx);
  });

  app.get('/_sandbox/callbacks', (_req, res) => {
    res.json(callbacks);
  });
}
