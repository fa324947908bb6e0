import { verifyCallbackSignature } from '../../src/operators/signature';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
} from '../../src/operators/gateway';
import { useSimulator, callbackSecrets as secrets } from '../helpers/simulator';
import { eventually } from '../helpers/http';

// The sandbox operator over real HTTP, through the gateway the activities use, with a test receiver
// standing in for the service's callback endpoint (test/helpers/simulator.ts): scenarios, OTPs,
// the magic numbers, callbacks, disbursements and refunds. Reads of unknown ids, cancellation and
// test controls: simulator-cancel.test.ts; durable books and statements: simulator-books.test.ts.
describe('operator simulator', () => {
  const { sim, gateway, hastyGateway, failCallbacks, nextId, collection, callbacksFor, collectedPayment } =
    useSimulator();

  it('answers pending, completes after the delay, and calls back signed with the operator secret', async () => {
    const req = collection();
    const first = await gateway.requestCollection(req);
    expect(first).toMatchObject({
      outcome: 'pending',
      operatorReference: `mtn_${req.transactionId}`,
      ussdCode: '*133#',
    });
    const final = await eventually(
      () => gateway.collectionStatus(req.transactionId, 'MTN', 'CI'),
      (s) => s.outcome !== 'pending',
    );
    expect(final.outcome).toBe('completed');
    const [cb] = await eventually(
      async () => callbacksFor(req.transactionId),
      (l) => l.length > 0,
    );
    expect(cb!.path).toBe('/operator-callbacks/MTN');
    expect(JSON.parse(cb!.body)).toMatchObject({
      kind: 'collection',
      id: req.transactionId,
      outcome: 'completed',
    });
    expect(verifyCallbackSignature(secrets.MTN, cb!.body, cb!.signature)).toBe(true);
    expect(verifyCallbackSignature(secrets.ORANGE, cb!.body, cb!.signature)).toBe(false);
  });

  it('fails with the failed scenario and stays pending for ever with the pending one', async () => {
    const failed = collection({ sandboxScenario: 'failed' });
    const pending = collection({ sandboxScenario: 'pending', operator: 'MOOV', msisdn: '+2250100000001' });
    await gateway.requestCollection(failed);
    expect(await gateway.requestCollection(pending)).toMatchObject({ outcome: 'pending', ussdCode: '*155#' });
    const f = await eventually(
      () => gateway.collectionStatus(failed.transactionId, 'MTN', 'CI'),
      (s) => s.outcome !== 'pending',
    );
    expect(f).toMatchObject({ outcome: 'failed', failure: { code: 'PAYER_DECLINED' } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await gateway.collectionStatus(pending.transactionId, 'MOOV', 'CI')).outcome).toBe('pending');
    expect(callbacksFor(pending.transactionId)).toHaveLength(0);
  });

  it('is idempotent by our id: a repeat returns the same collection, other terms are a conflict', async () => {
    const req = collection({ operator: 'MTN', country: 'CM', msisdn: '+237670000001', currency: 'XAF' });
    const a = await gateway.requestCollection(req);
    const b = await gateway.requestCollection(req);
    expect(b.operatorReference).toBe(a.operatorReference);
    expect(b.ussdCode).toBeUndefined(); // MTN has a USSD fallback in CI only
    const state = (await (
      await fetch(`${sim.url}/_sandbox/transactions/collection/${req.transactionId}`)
    ).json()) as { requests: number };
    expect(state.requests).toBe(2);
    // Something with our id exists there: a conflict, not a refusal (only its status tells what happened).
    await expect(gateway.requestCollection({ ...req, amount: 6000 })).rejects.toBeInstanceOf(
      OperatorConflictError,
    );
  });

  it('needs a right OTP for Orange and answers Wave with a redirect page', async () => {
    const orange = { operator: 'ORANGE' as const, msisdn: '+2250700000001' };
    expect(await gateway.requestCollection(collection(orange))).toMatchObject({
      outcome: 'failed',
      failure: { code: 'OTP_REQUIRED' },
    });
    expect(await gateway.requestCollection(collection({ ...orange, otp: '000000' }))).toMatchObject({
      outcome: 'failed',
      failure: { code: 'OTP_INVALID' },
    });
    const good = collection({ ...orange, otp: '4321' });
    expect((await gateway.requestCollection(good)).outcome).toBe('pending');
    await eventually(
      () => gateway.collectionStatus(good.transactionId, 'ORANGE', 'CI'),
      (s) => s.outcome === 'completed',
    );

    const wave = collection({ operator: 'WAVE', msisdn: '+2250700000002' });
    const w = await gateway.requestCollection(wave);
    expect(w.paymentUrl).toBe(`${sim.url}/wave/checkout/${wave.transactionId}`);
    const page = await fetch(w.paymentUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Wave');
  });

  it('refuses an operator a country does not have, and an unknown operator', async () => {
    await expect(
      gateway.requestCollection(
        collection({ operator: 'MOOV', country: 'CM', msisdn: '+237670000001', currency: 'XAF' }),
      ),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    const res = await fetch(`${sim.url}/operators/AIRTEL/collections`, { method: 'POST' });
    expect(res.status).toBe(404);
  });

  it('9901: fails, and the partner check finds the funds only once the test says so', async () => {
    const req = collection({ msisdn: '+2250500009901' });
    await gateway.requestCollection(req);
    const s = await eventually(
      () => gateway.collectionStatus(req.transactionId, 'MTN', 'CI'),
      (x) => x.outcome !== 'pending',
    );
    expect(s).toMatchObject({ outcome: 'failed', failure: { code: 'OPERATOR_TIMEOUT' } });
    expect(await gateway.partnerCheck(req.transactionId, 'MTN', 'CI')).toEqual({ collected: false });
    expect(await gateway.partnerCheck(req.transactionId, 'MTN', 'CI')).toEqual({ collected: false });
    expect(
      (await fetch(`${sim.url}/_sandbox/collections/${req.transactionId}/collected`, { method: 'POST' }))
        .status,
    ).toBe(200);
    expect(await gateway.partnerCheck(req.transactionId, 'MTN', 'CI')).toMatchObject({ collected: true });
    expect(await gateway.partnerCheck('pr_unknown', 'MTN', 'CI')).toEqual({ collected: false });
  });

  it('9902: the partner check finds the funds at its third call', async () => {
    const req = collection({ msisdn: '+2250500009902' });
    await gateway.requestCollection(req);
    await eventually(
      () => gateway.collectionStatus(req.transactionId, 'MTN', 'CI'),
      (x) => x.outcome === 'failed',
    );
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push((await gateway.partnerCheck(req.transactionId, 'MTN', 'CI')).collected);
    expect(answers).toEqual([false, false, true]);
  });

  it('9903: completes but never calls back; only polling finds it', async () => {
    const req = collection({ msisdn: '+2250500009903' });
    await gateway.requestCollection(req);
    await eventually(
      () => gateway.collectionStatus(req.transactionId, 'MTN', 'CI'),
      (x) => x.outcome === 'completed',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(callbacksFor(req.transactionId)).toHaveLength(0);
  });

  it('9904: the first answer comes after the gateway gave up; the retry gets it, one collection', async () => {
    const req = collection({ msisdn: '+2250500009904' });
    await expect(hastyGateway.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    const retry = await gateway.requestCollection(req);
    expect(retry.operatorReference).toBe(`mtn_${req.transactionId}`);
    const state = (await (
      await fetch(`${sim.url}/_sandbox/transactions/collection/${req.transactionId}`)
    ).json()) as { requests: number };
    expect(state.requests).toBe(2);
    expect([...sim.simulator.transactions.keys()].filter((k) => k.endsWith(req.transactionId))).toHaveLength(
      1,
    );
  });

  it('retries a callback the receiver could not take', async () => {
    failCallbacks(1);
    const req = collection();
    await gateway.requestCollection(req);
    const delivery = await eventually(
      async () => sim.simulator.callbacks.find((c) => c.id === req.transactionId),
      (d) => d?.delivered === true,
    );
    expect(delivery!.attempts).toBe(2);
  });

  it('disburses and refunds with the same scenario logic', async () => {
    const payout = {
      transactionId: nextId(),
      operator: 'ORANGE' as const,
      country: 'CM' as const,
      msisdn: '+237690000001',
      amount: 2000,
      currency: 'XAF',
      sandboxScenario: 'failed' as const,
    };
    expect((await gateway.disburse(payout)).outcome).toBe('pending');
    expect(
      await eventually(
        () => gateway.disbursementStatus(payout.transactionId, 'ORANGE', 'CM'),
        (s) => s.outcome !== 'pending',
      ),
    ).toMatchObject({ outcome: 'failed', failure: { code: 'PAYEE_REJECTED' } });
    const ok = { ...payout, transactionId: nextId(), sandboxScenario: null };
    await gateway.disburse(ok);
    await eventually(
      () => gateway.disbursementStatus(ok.transactionId, 'ORANGE', 'CM'),
      (s) => s.outcome === 'completed',
    );

    const { paid, refund } = await collectedPayment(10_000, null);
    expect((await gateway.refund(refund('rf_1', 6000))).outcome).toBe('pending');
    await eventually(
      () => gateway.refundStatus('rf_1', 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    expect(await gateway.refund(refund('rf_2', 5000))).toMatchObject({
      outcome: 'failed',
      failure: { code: 'REFUND_EXCEEDS_COLLECTION' },
    });
    expect((await gateway.refund(refund('rf_3', 4000))).outcome).toBe('pending');
    expect(await gateway.refund({ ...refund('rf_4', 100), transactionId: 'pr_nope' })).toMatchObject({
      outcome: 'failed',
      failure: { code: 'ORIGINAL_NOT_COLLECTED' },
    });
    const cb = await eventually(
      async () => callbacksFor('rf_1'),
      (l) => l.length > 0,
    );
    expect(JSON.parse(cb[0]!.body)).toMatchObject({
      kind: 'refund',
      id: 'rf_1',
      transactionId: paid.transactionId,
    });
  });
});
