import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import { operatorStatementBody } from '../../src/operators/wire';
import { callbackSecrets as secrets } from '../helpers/simulator';
import { eventually } from '../helpers/http';

// The sandbox operator's books: kept on disk across a restart, served as daily statements, and
// altered by its test controls (the reconciliation's counterpart).
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
