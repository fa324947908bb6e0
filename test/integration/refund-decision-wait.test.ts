import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { replacementWorker } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';

// A refund asked while the worker that runs the payin's workflow is down: the API waits
// REFUND_DECISION_WAIT for the workflow's decision, then answers 503 and the retry refunds once.
describe('a refund its payin cannot decide in time (worker down)', () => {
  // No sticky cache: the test server has no sticky timeout, and this test replaces the worker.
  const { stack, api } = useStack({
    config: { REFUND_DECISION_WAIT: '1s' },
    worker: { maxCachedWorkflows: 0 },
  });

  it('answers 503 DECISION_PENDING with Retry-After, and the retry with the same key refunds once', async () => {
    await api.post('/v1/direct/payin', {
      reference: 'slow-decision',
      customerName: 'Awa Koné',
      payin: { amount: 3_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    await eventually(
      () => api.get('/v1/payin/slow-decision'),
      (r) => r.body.status === 'success',
    );
    stack.worker.shutdown();
    await eventually(
      async () => stack.worker.getState(),
      (s) => s === 'STOPPED' || s === 'FAILED',
    );
    const key = randomUUID();
    const body = { amount: 1_000, reason: 'late delivery', externalReference: 'slow-rf-1' };
    const pending = await api.post('/v1/payin/slow-decision/refund', body, {
      'x-idempotency-key': key,
      'accept-language': 'fr',
    });
    expect(pending.status).toBe(503);
    expect(pending.body.code).toBe('DECISION_PENDING');
    expect(pending.body.title).toBe('Pas encore décidé');
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0);

    const replacement = await replacementWorker(stack);
    const running = replacement.run();
    try {
      const retried = await eventually(
        () => api.post('/v1/payin/slow-decision/refund', body, { 'x-idempotency-key': key }),
        (r) => r.status !== 503 && r.status !== 409,
      );
      expect([200, 201]).toContain(retried.status);
      const payin = await eventually(
        () => api.get('/v1/payin/slow-decision'),
        (r) => r.body.refunds?.length >= 1,
      );
      // One refund, whichever of the two Updates the workflow decided first.
      expect(payin.body.refunds).toHaveLength(1);
      expect(payin.body.refunds[0].reference).toBe(retried.body.reference);
    } finally {
      replacement.shutdown();
      await running;
    }
  });
});
