import { ServiceError } from '@temporalio/client';
import { isUpdateLimitReached, refundIdsOf, refundUpdateId } from '../../src/services/update-limits';

// The pieces of "Update limits answer 503" that need no server (on the server:
// test/integration/refund-update-limits.test.ts).
describe('Temporal Update limits', () => {
  const grpc = (code: number, details: string) => Object.assign(new Error(details), { code, details });

  it('recognises RESOURCE_EXHAUSTED as the client throws it (ServiceError -> gRPC cause), nothing else', () => {
    const limit = grpc(8, 'limit on number of concurrent in-flight updates has been reached (10)');
    expect(isUpdateLimitReached(new ServiceError('Workflow Update failed', { cause: limit }))).toBe(true);
    expect(isUpdateLimitReached(limit)).toBe(true);
    expect(
      isUpdateLimitReached(new ServiceError('Workflow Update failed', { cause: grpc(14, 'unavailable') })),
    ).toBe(false);
    expect(isUpdateLimitReached(new Error('boom'))).toBe(false);
    expect(isUpdateLimitReached(null)).toBe(false);
  });

  it('derives one short Update id per payin, externalReference and key', () => {
    const id = refundUpdateId('pr_1', 'order-1', 'key-1');
    expect(refundUpdateId('pr_1', 'order-1', 'key-1')).toBe(id);
    expect(refundUpdateId('pr_1', 'order-1', 'key-2')).not.toBe(id);
    expect(refundUpdateId('pr_1', 'order-2', 'key-1')).not.toBe(id);
    expect(refundUpdateId('pr_2', 'order-1', 'key-1')).not.toBe(id);
    // No separator trick: the parts cannot be shifted into one another.
    expect(refundUpdateId('pr_1', 'a\nb', 'c')).not.toBe(refundUpdateId('pr_1', 'a', 'b\nc'));
    expect(refundUpdateId('pr_1', 'x'.repeat(5_000), 'key-1')).toHaveLength(id.length);
    expect(id.length).toBeLessThanOrEqual(80);
  });

  // Issue 28: a retry sent new ids under the same Update id; the live run took them, the history kept
  // the first attempt's, and the desk's replay started another child than recorded (TMPRL1100).
  it('gives every attempt of one request the same refund and transaction ids', () => {
    const updateId = refundUpdateId('pr_1', 'order-1', 'key-1');
    const ids = refundIdsOf(updateId);
    expect(refundIdsOf(updateId)).toEqual(ids);
    expect(ids.refundId).toMatch(/^rf_[0-9a-f]{24}$/);
    expect(ids.transactionRef).toMatch(/^tr_[0-9a-f]{24}$/);
    expect(refundIdsOf(refundUpdateId('pr_1', 'order-1', 'key-2')).refundId).not.toBe(ids.refundId);
  });
});
