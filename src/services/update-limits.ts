import { createHash } from 'node:crypto';
import { errorChain } from '../infra/error-chain';

// Temporal bounds the Updates a workflow may have in flight (10 by default on the server): beyond,
// it answers gRPC RESOURCE_EXHAUSTED, which the client retries with backoff for about 40 seconds
// before giving up with a ServiceError. That is a "too busy, retry" and never a fault of ours: the
// API answers it 503 with Retry-After (docs/decisions/refunds/decision-wait-is-bounded.md).

const GRPC_RESOURCE_EXHAUSTED = 8;

/** Whether an Update call failed because the server holds too many of them (or pushes back). */
export function isUpdateLimitReached(err: unknown): boolean {
  // Temporal wraps the gRPC error (ServiceError -> cause).
  for (const e of errorChain(err)) if (e.code === GRPC_RESOURCE_EXHAUSTED) return true;
  return false;
}

/**
 * The Update id of a refund request: the same payin, externalReference and idempotency key always
 * give the same id, so a client's retry attaches to the Update its first attempt left queued instead
 * of queuing another one. Hashed: ids stay short whatever the merchant's strings.
 */
export function refundUpdateId(payinId: string, externalReference: string, idempotencyKey: string): string {
  // JSON keeps the parts apart whatever characters they hold.
  const digest = createHash('sha256')
    .update(JSON.stringify([payinId, externalReference, idempotencyKey]))
    .digest('hex');
  return `refund-${digest}`;
}

/**
 * The refund and transaction ids of a refund request with an Update id: derived from it, so every
 * attempt sends the very same Update. The server keeps one request per Update id, and a retry that
 * carried new ids could run live with ids its workflow's history does not hold: replayed, the desk
 * started another child than recorded (TMPRL1100, docs/decisions/refunds/updates-queued-one-loop-decides.md).
 */
export function refundIdsOf(updateId: string): { refundId: string; transactionRef: string } {
  const part = (kind: string) =>
    createHash('sha256')
      .update(JSON.stringify([kind, updateId]))
      .digest('hex')
      .slice(0, 24);
  return { refundId: `rf_${part('refund')}`, transactionRef: `tr_${part('transaction')}` };
}
