import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import { OperatorConflictError, OperatorUnavailableError } from '../../src/operators/gateway';
import { useSimulator } from '../helpers/simulator';
import { eventually } from '../helpers/http';

// The sandbox operator over real HTTP (test/helpers/simulator.ts): what it answers for an id it does
// not know, cancellation (also of a request that arrives after it), and its test controls.
describe('operator simulator: unknown ids, cancellation and test controls', () => {
  const { sim, gateway, nextId, collection, callbacksFor, collectedPayment } = useSimulator();

  it('reads an unknown transaction as unknown (not a failure) and an unreachable operator as retryable', async () => {
    // A 404 is no answer: the request may still be on its way (issue 15, ambiguity never moves money).
    const read = await gateway.collectionStatus('pr_never', 'MTN', 'CI');
    expect(read.outcome).toBe('unknown');
    expect(read.failure).toBeUndefined();
    const down = new HttpOperatorGateway({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 300 });
    await expect(down.collectionStatus('pr_x', 'MTN', 'CI')).rejects.toBeInstanceOf(OperatorUnavailableError);
  });
  it('cancels a pending transaction: failed/CANCELLED, answered and kept, and a refund frees its reservation', async () => {
    const req = collection({ sandboxScenario: 'pending' });
    await gateway.requestCollection(req);
    const answer = await gateway.cancel('collection', req.transactionId, 'MTN', 'CI');
    expect(answer).toMatchObject({
      outcome: 'failed',
      operatorReference: `mtn_${req.transactionId}`,
      failure: { code: 'CANCELLED' },
    });
    expect(await gateway.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    // A cancelled collection was never collected: its partner finds nothing.
    expect(await gateway.partnerCheck(req.transactionId, 'MTN', 'CI')).toEqual({ collected: false });

    // A refund of 8,000 of a 10,000 collection, cancelled while pending: the 8,000 is refundable again.
    const { refund } = await collectedPayment(10_000, 'pending');
    const big = `rf_${nextId()}`;
    expect((await gateway.refund(refund(big, 8000))).outcome).toBe('pending');
    expect((await gateway.refund(refund(`rf_${nextId()}`, 5000))).failure?.code).toBe(
      'REFUND_EXCEEDS_COLLECTION',
    );
    expect((await gateway.cancel('refund', big, 'MTN', 'CI')).failure?.code).toBe('CANCELLED');
    expect((await gateway.refund(refund(`rf_${nextId()}`, 5000))).outcome).toBe('pending');
  });

  it('answers a final transaction unchanged when asked to cancel it (too late)', async () => {
    const done = collection();
    const failed = collection({ sandboxScenario: 'failed' });
    await gateway.requestCollection(done);
    await gateway.requestCollection(failed);
    await eventually(
      () => gateway.collectionStatus(done.transactionId, 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    await eventually(
      () => gateway.collectionStatus(failed.transactionId, 'MTN', 'CI'),
      (s) => s.outcome === 'failed',
    );
    expect(await gateway.cancel('collection', done.transactionId, 'MTN', 'CI')).toMatchObject({
      outcome: 'completed',
      operatorReference: `mtn_${done.transactionId}`,
    });
    expect(await gateway.cancel('collection', failed.transactionId, 'MTN', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'PAYER_DECLINED' },
    });
    expect((await gateway.collectionStatus(done.transactionId, 'MTN', 'CI')).outcome).toBe('completed');
  });

  it('tombstones an unknown id: a request arriving later is answered cancelled and never executed', async () => {
    const payout = {
      transactionId: nextId(),
      operator: 'MTN' as const,
      country: 'CI' as const,
      msisdn: '+2250500000002',
      amount: 3000,
      currency: 'XOF',
      sandboxScenario: null,
    };
    expect(await gateway.cancel('disbursement', payout.transactionId, 'MTN', 'CI')).toEqual({
      outcome: 'failed',
      operatorReference: '',
      failure: { code: 'CANCELLED', message: expect.any(String) },
    });
    // The request that was lost on its way arrives after the cancellation.
    expect(await gateway.disburse(payout)).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    await new Promise((r) => setTimeout(r, 200)); // well past the settle delay
    expect(await gateway.disbursementStatus(payout.transactionId, 'MTN', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    expect(callbacksFor(payout.transactionId)).toHaveLength(0);
    const state = (await (
      await fetch(`${sim.url}/_sandbox/transactions/disbursement/${payout.transactionId}`)
    ).json()) as { amount: number; tombstone: boolean; requests: number };
    expect(state).toMatchObject({ amount: 0, tombstone: true, requests: 1 });
    // Tombstones are not money: no statement lists them.
    const day = new Date().toISOString().slice(0, 10);
    expect((await gateway.statement('MTN', day)).entries.map((e) => e.id)).not.toContain(
      payout.transactionId,
    );
    // A cancel without a country is refused, as is one of an id another operator holds.
    expect(
      (await fetch(`${sim.url}/operators/MTN/collections/x/cancel`, { method: 'POST', body: '{}' })).status,
    ).toBe(400);
    await expect(gateway.cancel('disbursement', payout.transactionId, 'ORANGE', 'CI')).rejects.toBeInstanceOf(
      OperatorConflictError,
    );
  });

  it('test controls: settle a pending transaction now, rewrite a final one only with force', async () => {
    const req = collection({ sandboxScenario: 'pending' });
    await gateway.requestCollection(req);
    const settle = (body: unknown) =>
      fetch(`${sim.url}/_sandbox/collections/${req.transactionId}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await settle({ outcome: 'completed' })).status).toBe(200);
    expect((await gateway.collectionStatus(req.transactionId, 'MTN', 'CI')).outcome).toBe('completed');
    await eventually(
      async () => callbacksFor(req.transactionId),
      (l) => l.length === 1,
    );
    expect((await settle({ outcome: 'failed' })).status).toBe(409);
    expect(
      (await settle({ outcome: 'failed', failure: { code: 'X', message: 'x' }, force: true })).status,
    ).toBe(200);
    expect(await gateway.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'X' },
    });
  });
});
