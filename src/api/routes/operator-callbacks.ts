import express, { Router, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { operatorCodes, type OperatorCode } from '../../domain/operators';
import type { Transaction } from '../../domain/transaction';
import { operatorCallbackBody, type CallbackKind } from '../../operators/wire';
import { signatureHeader, verifiedCallbackTimestamp } from '../../operators/signature';
import type { SignedCallback } from '../../persistence/callback-receipts';
import { ApiProblem } from '../../contract/problems';
import { negotiateLanguage } from '../../contract/i18n';
import { zodErrorMap } from '../../contract/zod-messages';

export interface OperatorCallbackDeps {
  secrets: Record<OperatorCode, string>;
  findTransaction(id: string): Promise<Transaction | null>;
  /** A refund's own workflow (refund callbacks go straight to it), null when unknown. */
  refundWorkflowOf(refundId: string): Promise<string | null>;
  /** Sends the operatorCallback signal; a workflow that has already closed is not an error. */
  signal(workflowId: string, payload: { kind: CallbackKind; id: string }): Promise<void>;
  /** Callbacks already received (src/persistence/callback-receipts.ts), shared by every API process. */
  receipts: {
    firstReceipt(cb: SignedCallback): Promise<boolean>;
    forget(cb: SignedCallback): Promise<void>;
  };
  /** Callbacks per operator and transaction per minute, per API process (429 beyond); 0 disables. */
  perTransactionPerMinute: number;
}

/** A verified, parsed callback, handed from the checks to the delivery. */
interface Received {
  signed: SignedCallback;
  kind: CallbackKind;
  id: string;
  transactionId?: string | undefined;
}

/**
 * POST /operator-callbacks/:code: outside /v1 (operators have no merchant credentials), so it is
 * authenticated by the operator's HMAC over the raw body instead. Only a trigger: the workflow is
 * told to re-read the status from the operator. A transaction we do not know, or that belongs to
 * another operator, is answered 202 like any other, so nothing leaks.
 *
 * A replay of the same signed callback (same timestamp and body) within the signature's window
 * answers 200 and reaches no workflow, and each transaction gets at most `perTransactionPerMinute`
 * callbacks a minute: a leaked or looping sender costs neither signals nor workflow tasks.
 */
export function operatorCallbackRoutes(deps: OperatorCallbackDeps): Router {
  const router = Router();

  const verify: RequestHandler = (req, res, next) => {
    const code = operatorCodes.find((c) => c === req.params.code);
    if (!code) throw new ApiProblem('NOT_FOUND');
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const timestamp = verifiedCallbackTimestamp(deps.secrets[code], raw, req.get(signatureHeader));
    if (timestamp === null) throw new ApiProblem('OPERATOR_SIGNATURE_INVALID');
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ApiProblem('MALFORMED_JSON');
    }
    const parsed = operatorCallbackBody.safeParse(json, { error: zodErrorMap(negotiateLanguage(req)) });
    if (!parsed.success) {
      throw new ApiProblem('VALIDATION_ERROR', {
        errors: parsed.error.issues.map((i) => ({
          path: i.path.join('.') || '(body)',
          message: i.message,
        })),
      });
    }
    const { kind, id, transactionId } = parsed.data;
    const received: Received = { signed: { operator: code, timestamp, body: raw }, kind, id, transactionId };
    res.locals.callback = received;
    next();
  };

  // In memory, per process: with several API replicas a transaction gets up to this many per
  // replica. Keyed on the transaction the callback names, so one noisy transaction limits only itself.
  const perTransaction: RequestHandler =
    deps.perTransactionPerMinute > 0
      ? rateLimit({
          windowMs: 60_000,
          limit: deps.perTransactionPerMinute,
          standardHeaders: 'draft-8',
          legacyHeaders: false,
          keyGenerator: (_req, res) => {
            const cb = res.locals.callback as Received;
            return `${cb.signed.operator}:${cb.id}`;
          },
          handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
        })
      : (_req, _res, next) => next();

  router.post(
    '/operator-callbacks/:code',
    express.raw({ type: () => true, limit: '16kb' }),
    verify,
    perTransaction,
    async (_req, res) => {
      const { signed, kind, id, transactionId } = res.locals.callback as Received;
      if (!(await deps.receipts.firstReceipt(signed))) {
        // Already received (here or on another replica): the workflow has had its trigger.
        res.status(200).json({ received: true });
        return;
      }
      try {
        // The operator must be the payin's (a refund's: the payin it reverses). A refund's callback
        // goes to the refund's own workflow, not through its payin's.
        const owner = kind === 'refund' ? transactionId : id;
        const tx = owner ? await deps.findTransaction(owner) : null;
        if (tx && tx.provider?.split('_')[0] === signed.operator) {
          const workflowId = kind === 'refund' ? await deps.refundWorkflowOf(id) : tx.workflowId;
          if (workflowId) await deps.signal(workflowId, { kind, id });
        }
      } catch (err) {
        // Not delivered: the operator's retry of this same callback must not count as a replay.
        await deps.receipts.forget(signed).catch(() => undefined);
        throw err;
      }
      res.status(202).json({ received: true });
    },
  );
  return router;
}
