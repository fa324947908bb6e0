import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../src/config';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
} from '../../src/operators/gateway';
import { signatureHeader, verifyCallbackSignature } from '../../src/operators/signature';
import { operatorStatementBody } from '../../src/operators/wire';
import { eventually } from '../helpers/http';

// The sandbox operator over real HTTP, through the gateway the activities use, with a test receiver
// standing in for the service's callback endpoint.
const secrets = configSchema.parse({}).OPERATOR_CALLBACK_SECRETS;

interface Received {
  path: string;
  body: string;
  signature: string | undefined;
}

describe('operator simulator', () => {
  let sim: RunningSimulator;
  let receiver: Server;
  let received: Received[];
  let failNext = 0;
  let gateway: HttpOperatorGateway;
  let seq = 0;
  const nextId = () => `pr_sim_${Date.now()}_${seq++}`;

  beforeAll(async () => {
    received = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          signature: req.headers[signatureHeader] as string | undefined,
        });
        res.statusCode = failNext-- > 0 ? 503 : 202;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const port = (receiver.address() as { port: number }).port;
    sim = await startSimulator({
      port: 0,
      callbackSecrets: secrets,
      callbackBaseUrl: `http://127.0.0.1:${port}`,
      settleDelayMs: 50,
      slowResponseMs: 800,
      callbackRetryDelaysMs: [0, 100, 100],
    });
    gateway = new HttpOperatorGateway({ baseUrl: sim.url, timeoutMs: 400 });
    // One request first: the first answers of a cold process can take longer than the 400 ms the
    // gateway waits here (short, so that the 9904 number's slow answer times out).
    await gateway.statement('MTN', '2000-01-01');
  });
  afterAll(async () => {
    await sim?.stop();
    await new Promise<void>((r) => receiver?.close(() => r()));
  });

  const collection = (over: Partial<Parameters<HttpOperatorGateway['requestCollection']>[0]> = {}) => ({
    transactionId: nextId(),
    operator: 'MTN' as const,
    country: 'CI' as const,
    msisdn: '+2250500000001',
    amount: 5000,
    currency: 'XOF',
    sandboxScenario: null,
    ...over,
  });
  const callbacksFor = (id: string) => received.filter((r) => r.body.includes(`"id":"${id}"`));

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
    await expect(gateway.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
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
    failNext = 1;
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

    const paid = collection({ amount: 10_000 });
    await gateway.requestCollection(paid);
    await eventually(
      () => gateway.collectionStatus(paid.transactionId, 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    const refund = (refundId: string, amount: number) => ({
      refundId,
      transactionId: paid.transactionId,
      operator: 'MTN' as const,
      country: 'CI' as const,
      amount,
      currency: 'XOF',
      sandboxScenario: null,
    });
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
    const paid = collection({ amount: 10_000 });
    await gateway.requestCollection(paid);
    await eventually(
      () => gateway.collectionStatus(paid.transactionId, 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    const refund = (refundId: string, amount: number) => ({
      refundId,
      transactionId: paid.transactionId,
      operator: 'MTN' as const,
      country: 'CI' as const,
      amount,
      currency: 'XOF',
      sandboxScenario: 'pending' as const,
    });
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

describe('operator simulator: durable books and daily statements', () => {
  const dirs: string[] = [];
  const running: RunningSimulator[] = [];
  afterAll(async () => {
    for (const s of running) await s.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const start = async (opts: Partial<Parameters<typeof startSimulator>[0]> = {}) => {
    const s = await startSimulator({ port: 0, callbackSecrets: secrets, settleDelayMs: 50, ...opts });
    running.push(s);
    return { sim: s, gateway: new HttpOperatorGateway({ baseUrl: s.url, timeoutMs: 2_000 }) };
  };
  const payin = (transactionId: string, over: Record<string, unknown> = {}) => ({
    transactionId,
    operator: 'MTN' as const,
    country: 'CI' as const,
    msisdn: '+2250500000001',
    amount: 5000,
    currency: 'XOF',
    sandboxScenario: null,
    ...over,
  });

  it('keeps its books across a restart on the same data directory, and settles what was pending', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sim-books-'));
    dirs.push(dataDir);
    // No settlement before it stops, but for the one a test control settles.
    const first = await start({ dataDir, settleDelayMs: 60_000 });
    await first.gateway.requestCollection(payin('pr_books_done'));
    const settled = await fetch(`${first.sim.url}/_sandbox/collections/pr_books_done/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'completed' }),
    });
    expect(settled.status).toBe(200);
    await first.gateway.cancel('collection', 'pr_books_tomb', 'MTN', 'CI');
    await first.gateway.disburse({ ...payin('pr_books_pending'), msisdn: '+2250500000003' });
    expect((await first.gateway.disbursementStatus('pr_books_pending', 'MTN', 'CI')).outcome).toBe('pending');
    await first.sim.stop();
    await first.gateway.requestCollection(payin('pr_books_lost')).catch(() => undefined); // down: nothing

    const second = await start({ dataDir });
    expect(await second.gateway.collectionStatus('pr_books_done', 'MTN', 'CI')).toMatchObject({
      outcome: 'completed',
      operatorReference: 'mtn_pr_books_done',
    });
    // The repeat is the same transaction, not a second one.
    expect(await second.gateway.requestCollection(payin('pr_books_done'))).toMatchObject({
      outcome: 'completed',
    });
    expect(second.sim.simulator.transactions.get('collection:pr_books_done')).toMatchObject({ requests: 2 });
    expect(await second.gateway.collectionStatus('pr_books_tomb', 'MTN', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    // Pending when the first stopped: settled by the second.
    await eventually(
      () => second.gateway.disbursementStatus('pr_books_pending', 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    expect((await second.gateway.collectionStatus('pr_books_lost', 'MTN', 'CI')).outcome).toBe('unknown');
    const day = new Date().toISOString().slice(0, 10);
    expect((await second.gateway.statement('MTN', day)).entries.map((e) => e.id).sort()).toEqual([
      'pr_books_done',
      'pr_books_pending',
    ]);
    await second.sim.stop();
    // A third start replays the compacted journal: the settlement made by the second is there.
    const third = await start({ dataDir });
    expect((await third.gateway.disbursementStatus('pr_books_pending', 'MTN', 'CI')).outcome).toBe(
      'completed',
    );
  });

  it("serves each day's statement: its entries with their status now, tombstones left out", async () => {
    let clock = new Date('2026-11-22T23:59:59.500Z');
    const { sim, gateway } = await start({ now: () => clock, partnerChecksBeforeCollected: 1 });
    await gateway.requestCollection(payin('pr_day1'));
    await gateway.requestCollection(payin('pr_day1_failed', { sandboxScenario: 'failed' }));
    clock = new Date('2026-11-23T08:00:00.000Z');
    await gateway.requestCollection(payin('pr_day2', { amount: 12_000 }));
    await gateway.requestCollection(payin('pr_day2_partner', { msisdn: '+2250500009902' }));
    await gateway.requestCollection(payin('pr_day2_pending', { sandboxScenario: 'pending' }));
    await gateway.requestCollection(
      payin('pr_day2_orange', { operator: 'ORANGE', msisdn: '+2250700000001', otp: '1234' }),
    );
    await gateway.cancel('collection', 'pr_day2_tomb', 'MTN', 'CI');
    await eventually(
      () => gateway.collectionStatus('pr_day2', 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );
    await eventually(
      () => gateway.collectionStatus('pr_day2_partner', 'MTN', 'CI'),
      (s) => s.outcome === 'failed',
    );
    expect((await gateway.partnerCheck('pr_day2_partner', 'MTN', 'CI')).collected).toBe(true);
    await eventually(
      () => gateway.collectionStatus('pr_day1_failed', 'MTN', 'CI'),
      (s) => s.outcome === 'failed',
    );
    await gateway.refund({
      refundId: 'rf_day2',
      transactionId: 'pr_day2',
      operator: 'MTN',
      country: 'CI',
      amount: 2000,
      currency: 'XOF',
      sandboxScenario: null,
    });
    await eventually(
      () => gateway.refundStatus('rf_day2', 'MTN', 'CI'),
      (s) => s.outcome === 'completed',
    );

    const day1 = await gateway.statement('MTN', '2026-11-22');
    expect(day1).toMatchObject({ operator: 'MTN', date: '2026-11-22' });
    expect(day1.entries.map((e) => [e.id, e.status, e.failureCode])).toEqual([
      ['pr_day1', 'completed', null],
      ['pr_day1_failed', 'failed', 'PAYER_DECLINED'],
    ]);
    const day2 = await gateway.statement('MTN', '2026-11-23');
    expect(day2.generatedAt).toBe('2026-11-23T08:00:00.000Z');
    expect(Object.fromEntries(day2.entries.map((e) => [e.id, e]))).toEqual({
      pr_day2: {
        kind: 'collection',
        id: 'pr_day2',
        originalId: null,
        operatorReference: 'mtn_pr_day2',
        country: 'CI',
        amount: 12_000,
        currency: 'XOF',
        fee: 0,
        status: 'completed',
        failureCode: null,
        createdAt: '2026-11-23T08:00:00.000Z',
        finalizedAt: '2026-11-23T08:00:00.000Z',
      },
      // Its first answer was a failure; the partner found the funds: completed on the books.
      pr_day2_partner: expect.objectContaining({ status: 'completed', failureCode: null }),
      pr_day2_pending: expect.objectContaining({ status: 'pending', finalizedAt: null }),
      rf_day2: expect.objectContaining({
        kind: 'refund',
        originalId: 'pr_day2',
        amount: 2000,
        status: 'completed',
      }),
    });
    expect((await gateway.statement('ORANGE', '2026-11-23')).entries.map((e) => e.id)).toEqual([
      'pr_day2_orange',
    ]);
    expect((await gateway.statement('MTN', '2026-11-24')).entries).toEqual([]);
    // The raw answer is the wire schema, and a date that is not a day is refused.
    const raw = await fetch(`${sim.url}/operators/MTN/statements/2026-11-23`);
    expect(operatorStatementBody.safeParse(await raw.json()).success).toBe(true);
    expect((await fetch(`${sim.url}/operators/MTN/statements/2026-02-30`)).status).toBe(400);
  });

  it('test controls alter the books: amount, fee, day, or the transaction lost', async () => {
    const { sim, gateway } = await start();
    await gateway.requestCollection(payin('pr_tamper'));
    const post = (path: string, body: unknown) =>
      fetch(`${sim.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (
        await post('/_sandbox/collection/pr_tamper/tamper', {
          amount: 4000,
          fee: 25,
          createdAt: '2026-01-02T03:04:05Z',
        })
      ).status,
    ).toBe(200);
    expect((await gateway.statement('MTN', '2026-01-02')).entries).toEqual([
      expect.objectContaining({ id: 'pr_tamper', amount: 4000, fee: 25 }),
    ]);
    expect(
      (await fetch(`${sim.url}/_sandbox/transactions/collection/pr_tamper`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect((await gateway.statement('MTN', '2026-01-02')).entries).toEqual([]);
    expect((await gateway.collectionStatus('pr_tamper', 'MTN', 'CI')).outcome).toBe('unknown');
  });
});
