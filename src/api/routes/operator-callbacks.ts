import express, { Router } from 'express';
import { operatorCodes, type OperatorCode } from '../../domain/operators';
import type { Transaction } from '../../domain/transaction';
import { operatorCallbackBody, type CallbackKind } from '../../operators/wire';
import { signatureHeader, verifyCallbackSignature } from '../../operators/signature';
import { ApiProblem } from '../problem';

export interface OperatorCallbackDeps {
  secrets: Record<OperatorCode, string>;
  findTransaction(id: string): Promise<Transaction | null>;
  /** Sends the operatorCallback signal; a workflow that has already closed is not an error. */
  signal(workflowId: string, payload: { kind: CallbackKind; id: string }): Promise<void>;
}

/**
 * POST /operator-callbacks/:code: outside /v1 (operators have no merchant credentials), so it is
 * authenticated by the operator's HMAC over the raw body instead. Only a trigger: the workflow is
 * told to re-read the status from the operator, which makes a replay harmless. A transaction we do
 * not know, or that belongs to another operator, is answered 202 like any other, so nothing leaks.
 */
export function operatorCallbackRoutes(deps: OperatorCallbackDeps): Router {
  const router = Router();
  router.post(
    '/operator-callbacks/:code',
    express.raw({ type: () => true, limit: '16kb' }),
    async (req, res) => {
      const code = operatorCodes.find((c) => c === req.params.code);
      if (!code) throw new ApiProblem('NOT_FOUND');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!verifyCallbackSignature(deps.secrets[code], raw, req.get(signatureHeader)))
        throw new ApiProblem('OPERATOR_SIGNATURE_INVALID');
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiProblem('MALFORMED_JSON');
      }
      const parsed = operatorCallbackBody.safeParse(json);
      if (!parsed.success) {
        throw new ApiProblem('VALIDATION_ERROR', {
          errors: parsed.error.issues.map((i) => ({
            path: i.path.join('.') || '(body)',
            message: i.message,
          })),
        });
      }
      const { kind, id, transactionId } = parsed.data;
      // A refund belongs to the workflow of the payin it reverses.
      const owner = kind === 'refund' ? transactionId : id;
      const tx = owner ? await deps.findTransaction(owner) : null;
      if (tx && tx.provider?.split('_')[0] === code) await deps.signal(tx.workflowId, { kind, id });
      res.status(202).json({ received: true });
    },
  );
  return router;
}
