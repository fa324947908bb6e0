import type { Request, Response } from 'express';
import type { z } from 'zod';
import { operatorCodes, type OperatorCode } from '../domain/operators';
import type { CallbackKind } from '../operators/wire';
import type { SimTransaction } from './books';

// What every route of the simulator's operator API shares: its error answers, body parsing, the
// operator named in the path, and the rule that one id keeps its terms.

export const kindsByPath: Record<string, CallbackKind> = {
  collections: 'collection',
  disbursements: 'disbursement',
  refunds: 'refund',
};

export const badRequest = (res: Response, message: string, issues?: unknown) =>
  res.status(400).json({ error: 'INVALID_REQUEST', message, ...(issues ? { issues } : {}) });
export const notFound = (res: Response, message = 'Unknown transaction') =>
  res.status(404).json({ error: 'NOT_FOUND', message });
export const conflict = (res: Response) =>
  res.status(409).json({ error: 'CONFLICT', message: 'This id was used with other terms' });

export function parseBody<S extends z.ZodType>(schema: S, req: Request, res: Response): z.infer<S> | null {
  const parsed = schema.safeParse(req.body);
  if (!parsed.success) {
    badRequest(res, 'Invalid body', parsed.error.issues);
    return null;
  }
  return parsed.data;
}

export function operatorOf(req: Request, res: Response): OperatorCode | null {
  const code = operatorCodes.find((c) => c === req.params.code);
  if (!code) {
    res.status(404).json({ error: 'UNKNOWN_OPERATOR', message: `Operators: ${operatorCodes.join(', ')}` });
    return null;
  }
  return code;
}

/**
 * The same id with other terms is a conflict, as at real operators. A tombstone (a cancellation that
 * came first) holds the id whatever the terms: the request is answered cancelled.
 */
export function conflicts(
  tx: SimTransaction,
  operator: OperatorCode,
  amount: number,
  msisdn: string | null,
): boolean {
  if (tx.operator !== operator) return true;
  if (tx.tombstone) return false;
  return tx.amount !== amount || (msisdn !== null && tx.msisdn !== msisdn);
}
