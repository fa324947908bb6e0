import express, { Router, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { IncomingCallback, VerifiedCallback } from '../../operators/connectors/connector';
import type { Transaction } from '../../domain/transaction';
import type { CallbackKind } from '../../operators/wire';
import { ApiProblem } from '../../contract/problems';

export interface ProviderCallbackDeps {
  /** The configured connectors by name (`pawapay`, `mtn`, `wave`): each verifies its own callbacks. */
  verifiers: ReadonlyMap<string, { verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> }>;
  findTransaction(id: string): Promise<Transaction | null>;
  /** A refund's own workflow (refund callbacks go straight to it), null when unknown. */
  refundWorkflowOf(refundId: string): Promise<string | null>;
  signal(workflowId: string, payload: { kind: CallbackKind; id: string }): Promise<void>;
  /** Callbacks per connector and transaction per minute, per API process (429 beyond); 0 disables. */
  perTransactionPerMinute: number;
}

/**
 * POST /provider-callbacks/:name: a real provider's callback, in its own format and signed its own
 * way (RFC 9421 for pawaPay, Wave-Signature for Wave, a secret path token for MTN, which signs
 * nothing). The connector checks it and names our id; the workflow is only told to re-read the
 * status from the provider, so the callback's own outcome is never trusted and a replay is harmless.
 * An id we do not know is answered 202 like any other, so nothing leaks.
 */
export function providerCallbackRoutes(deps: ProviderCallbackDeps): Router {
  const router = Router();
  const limit =
    deps.perTransactionPerMinute > 0
      ? rateLimit({
          windowMs: 60_000,
          limit: deps.perTransactionPerMinute,
          standardHeaders: 'draft-8',
          legacyHeaders: false,
          keyGenerator: (req, res) =>
            `${String(req.params.name)}:${(res.locals.verified as VerifiedCallback).id}`,
          handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
        })
      : (_req: express.Request, _res: express.Response, next: express.NextFunction) => next();

  const chain: RequestHandler[] = [
    express.raw({ type: () => true, limit: '64kb' }),
    async (req, res, next) => {
      const verifier = deps.verifiers.get(String(req.params.name));
      if (!verifier) throw new ApiProblem('NOT_FOUND');
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const verified = await verifier.verifyCallback({
        method: req.method,
        path: req.originalUrl,
        headers,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      });
      if (!verified) throw new ApiProblem('OPERATOR_SIGNATURE_INVALID');
      res.locals.verified = verified;
      next();
    },
    limit,
    async (_req, res) => {
      const { kind, id } = res.locals.verified as VerifiedCallback;
      const workflowId =
        kind === 'refund'
          ? await deps.refundWorkflowOf(id)
          : ((await deps.findTransaction(id))?.workflowId ?? null);
      if (workflowId) await deps.signal(workflowId, { kind, id });
      res.status(202).json({ received: true });
    },
  ];
  router.post('/provider-callbacks/:name', ...chain);
  // MTN asks callback hosts to take PUT as well as POST.
  router.put('/provider-callbacks/:name', ...chain);
  return router;
}
