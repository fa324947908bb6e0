import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { moveRefundWindow } from '../helpers/refund-window';
import { Ledger } from '../../src/ledger';

// Issue 15, "every transaction runs once": a same-key retry that reaches the crash-recovery path
// (its idempotency record expired after 24 h, or was released after a 5xx) never starts a second
// run of a transaction, never asks the operator again and never moves money; and a retry whose
// body differs from the request that created the transaction is refused, not answered with it.

describe('every transaction runs once', () => {
  // A short refund window so a successful payin's workflow closes within the test (time skipping).
  const { stack, merchant, api } = useStack({ config: { REFUND_WINDOW: '10m' }, fund: 1_000_000 });
  let ledger: Ledger;

  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });

  const ref = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  /** As if the 24-hour retention had passed: the middleware no longer knows the key. */
  const expireKey = async (key: string) => {
    const res = await stack.mongo
      .collection('idempotency_keys')
      .deleteOne({ merchantId: merchant.merchantId, key });
    expect(res.deletedCount).toBe(1);
  };
  const withKey = (key: string) => ({ 'x-idempotency-key': key });
  const simulated = (kind: 'collection' | 'disbursement', id: string) =>
    stack.simulator.simulator.transactions.get(`${kind}:${id}`)?.requests ?? 0;
  const entriesOf = (id: string) =>
    stack.mongo.collection('ledger_entries').countDocuments({ sourceRef: { $regex: `^${id}:` } });
  const handleOf = (workflowId: string) => stack.env.client.workflow.getHandle(workflowId);
  /** Real time for anything a wrongly started run would do (the operator answers in ~200 ms). */
  const quietFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const payoutBody = (reference: string, scenario: 'completed' | 'failed', amount = 1_000) => ({
    reference,
    sandboxScenario: scenario,
    customerName: 'Awa Koné',
    payout: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
  });
  const payinBody = (reference: string, amount = 5_000) => ({
    reference,
    customerName: 'Awa Koné',
    payin: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });

  describe.each([
    ['completed', 'completed'],
    ['failed', 'reversed'],
  ] as const)('a payout the operator %s (ends %s)', (scenario, final) => {
    it('retried with its key after the key expired: 200 with it, no new run, operator not asked, no ledger movement', async () => {
      const reference = ref('po');
      const key = randomUUID();
      const body = payoutBody(reference, scenario);
      const first = await api.post('/v1/direct/payout', body, withKey(key));
      expect(first.status).toBe(201);
      const id = first.body.id as string;
      await eventually(
        () => api.get(`/v1/direct/payout/${reference}`),
        (r) => r.body.status === final,
      );
      const handle = handleOf(`payout:${merchant.merchantId}:${reference}`);
      await handle.result();
      const before = {
        runId: (await handle.describe()).runId,
        asked: simulated('disbursement', id),
        entries: await entriesOf(id),
        balance: (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance,
      };
      expect(before.asked).toBeGreaterThan(0);

      await expireKey(key);
      const retry = await api.post('/v1/direct/payout', body, withKey(key));
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ id, status: final });
      await quietFor(1_500);

      expect((await handle.describe()).runId).toBe(before.runId);
      expect(simulated('disbursement', id)).toBe(before.asked);
      expect(await entriesOf(id)).toBe(before.entries);
      expect((await ledger.mainAccount(merchant.merchantId, 'XOF')).balance).toBe(before.balance);
      expect((await api.get(`/v1/direct/payout/${reference}`)).body.status).toBe(final);
    });
  });

  it('a payin whose refund window closed, retried with its key after the key expired: no new run, refunds unchanged', async () => {
    const reference = ref('pi');
    const key = randomUUID();
    const body = payinBody(reference);
    const first = await api.post('/v1/direct/payin', body, withKey(key));
    expect(first.status).toBe(201);
    const id = first.body.id as string;
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    const refund = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 4_000,
      reason: 'returned',
      externalReference: 'ro-1',
    });
    expect(refund.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${refund.body.reference}`),
      (r) => r.body.status === 'completed',
    );
    const handle = handleOf(`payin:${merchant.merchantId}:${reference}`);
    await handle.result(); // the workflow closed at success
    await moveRefundWindow(stack.mongo, id, new Date(Date.now() - 60_000)); // its window's end passes
    const before = { runId: (await handle.describe()).runId, asked: simulated('collection', id) };

    await expireKey(key);
    const retry = await api.post('/v1/direct/payin', body, withKey(key));
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id, status: 'success' });
    await quietFor(1_500);

    expect((await handle.describe()).runId).toBe(before.runId);
    expect(simulated('collection', id)).toBe(before.asked);
    const read = await api.get(`/v1/payin/${reference}`);
    expect(read.body).toMatchObject({ status: 'success', refundedAmount: 4_000 });
    expect(read.body.refunds).toHaveLength(1);
    // The window stays closed: no second refund beyond the first, whatever is asked.
    const again = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 4_000,
      reason: 'returned',
      externalReference: 'ro-2',
    });
    expect(again.status).toBe(403);
  });

  describe('a same-key retry with another body, after the key expired', () => {
    it('payin: 409 IDEMPOTENCY_KEY_REUSED, not the stored payin', async () => {
      const reference = ref('pf');
      const key = randomUUID();
      expect((await api.post('/v1/direct/payin', payinBody(reference, 1_000), withKey(key))).status).toBe(
        201,
      );
      await expireKey(key);
      const changed = await api.post('/v1/direct/payin', payinBody(reference, 2_000), withKey(key));
      expect(changed.status).toBe(409);
      expect(changed.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      // The same body still gets its payin back (once the kept 409 is gone too).
      await expireKey(key);
      const same = await api.post('/v1/direct/payin', payinBody(reference, 1_000), withKey(key));
      expect(same.status).toBe(200);
      expect(same.body.amount).toBe(1_000);
    });

    it('payin stored before fingerprints existed: answered as before (200 with it)', async () => {
      const reference = ref('pl');
      const key = randomUUID();
      const first = await api.post('/v1/direct/payin', payinBody(reference, 1_000), withKey(key));
      expect(first.status).toBe(201);
      await stack.mongo
        .collection('transactions')
        .updateOne({ _id: first.body.id }, { $unset: { requestFingerprint: '' } });
      await expireKey(key);
      const changed = await api.post('/v1/direct/payin', payinBody(reference, 2_000), withKey(key));
      expect(changed.status).toBe(200);
      expect(changed.body.id).toBe(first.body.id);
    });

    it('payout: 409 IDEMPOTENCY_KEY_REUSED, nothing debited again', async () => {
      const reference = ref('pof');
      const key = randomUUID();
      const first = await api.post(
        '/v1/direct/payout',
        payoutBody(reference, 'completed', 1_000),
        withKey(key),
      );
      expect(first.status).toBe(201);
      await expireKey(key);
      // Counted as debits, not read as a balance: earlier tests' payins of this merchant may still
      // be credited meanwhile.
      const account = (await ledger.mainAccount(merchant.merchantId, 'XOF')).id;
      const debits = () =>
        stack.mongo
          .collection('ledger_entries')
          .countDocuments({ accountId: account, sourceRef: { $regex: ':payout-debit$' } });
      const before = await debits();
      const changed = await api.post(
        '/v1/direct/payout',
        payoutBody(reference, 'completed', 3_000),
        withKey(key),
      );
      expect(changed.status).toBe(409);
      expect(changed.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await debits()).toBe(before);
    });

    it('refund: 409 DUPLICATE_REFUND (the refund path names key reuse so), not the stored refund', async () => {
      const reference = ref('prf');
      expect((await api.post('/v1/direct/payin', payinBody(reference, 5_000))).status).toBe(201);
      await eventually(
        () => api.get(`/v1/payin/${reference}`),
        (r) => r.body.status === 'success',
      );
      const key = randomUUID();
      const refundBody = { amount: 1_000, reason: 'returned', externalReference: 'rf-fp' };
      const first = await api.post(`/v1/payin/${reference}/refund`, refundBody, withKey(key));
      expect(first.status).toBe(201);
      await expireKey(key);
      const changed = await api.post(
        `/v1/payin/${reference}/refund`,
        { ...refundBody, amount: 2_000 },
        withKey(key),
      );
      expect(changed.status).toBe(409);
      expect(changed.body.code).toBe('DUPLICATE_REFUND');
      // Past the stored key, the refund itself tells the reused key apart from a taken externalReference.
      expect(changed.body.errors).toEqual([
        { path: 'headers.x-idempotency-key', message: expect.stringContaining('new X-Idempotency-Key') },
      ]);
      await expireKey(key);
      const same = await api.post(`/v1/payin/${reference}/refund`, refundBody, withKey(key));
      expect(same.status).toBe(200);
      expect(same.body.reference).toBe(first.body.reference);
    });
  });
});
