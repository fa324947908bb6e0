import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { storedDirectPayin } from '../helpers/payin-input';
import { buildActivityDeps } from '../../src/main/wiring';
import { configSchema } from '../../src/config';
import type { Transaction } from '../../src/domain/transaction';
import type { TransactionStore } from '../../src/persistence/transactions';
import { createPayinActivities } from '../../activities/payin/payin-activities';
import { createPayoutActivities } from '../../activities/payout/payout-activities';
import { createRefundActivities } from '../../activities/refund/refund-activities';
import type { ActivityDeps } from '../../activities';
import type { OpenRefundInput } from '../../activities/refund/refund-activities';

// Issue 15: a status write that lands late (an activity attempt that timed out, still running while
// Temporal's retry and the workflow's next writes went ahead) never moves a record backwards. The
// workflow numbers its writes (seq); against the real FerretDB, where every update is read-then-replace.
describe('monotonic status writes', () => {
  let mongo: Connection;
  let deps: ActivityDeps;
  let store: TransactionStore;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    deps = await buildActivityDeps({ mongo, config: configSchema.parse({}) });
    store = deps.transactions;
  });
  afterAll(async () => {
    await mongo?.close();
  });

  const newId = () => `pr_${randomUUID().slice(0, 12)}`;
  async function storePayin(extra: Partial<Transaction> = {}): Promise<Transaction> {
    const id = newId();
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const payin = { ...storedDirectPayin({ id, merchantId, reference: id, workflowId: id }), ...extra };
    await store.insertOrGet(payin);
    return payin;
  }
  const rawDoc = (id: string) => mongo.collection('transactions').findOne({ _id: id as never });

  describe('TransactionStore.applyState', () => {
    it('a late write of seq 3 arriving after seq 4 leaves seq 4', async () => {
      const { id, merchantId, reference } = await storePayin();
      await store.applyState(id, 1, { status: 'processing', confirmationStatus: 'pending' });
      await store.applyState(id, 2, { confirmationStatus: 'accepted' });
      await store.applyState(id, 3, { status: 'processing', provider: 'ORANGE_CI' }); // the retry
      await store.applyState(id, 4, { status: 'success' });
      // The first attempt of seq 3, which had timed out, lands now.
      const applied = await store.applyState(id, 3, { status: 'processing', provider: 'ORANGE_CI' });
      const expected = { status: 'success', confirmationStatus: 'accepted', provider: 'ORANGE_CI' };
      expect(await store.findById(id)).toMatchObject(expected);
      expect(await store.find(merchantId, 'payin', reference)).toMatchObject(expected);
      expect(applied).toBe(false);
      // Even its copy onto the document landing after seq 4's (FerretDB replaces the whole document).
      await mongo
        .collection('transactions')
        .updateOne({ _id: id as never }, { $set: { stateSeq: 3, status: 'processing' } });
      expect(await store.findById(id)).toMatchObject(expected);
      expect(await store.findById(id)).not.toHaveProperty('stateSeq');
    });

    it('a retried seq is a no-op, even with other content', async () => {
      const { id } = await storePayin();
      expect(await store.applyState(id, 1, { status: 'processing' })).toBe(true);
      expect(await store.applyState(id, 2, { status: 'failed', failure: failure('X') })).toBe(true);
      const after = await store.findById(id);
      const again = await store.applyState(id, 2, { status: 'failed', failure: failure('X') });
      const other = await store.applyState(id, 2, { status: 'success', failure: null });
      expect(after).toMatchObject({ status: 'failed', failure: failure('X') });
      expect(await store.findById(id)).toEqual(after); // updatedAt included: nothing was rewritten
      expect([again, other]).toEqual([false, false]);
    });

    it('keeps the other fields of a nested object when a path inside it is written', async () => {
      const payout = await storePayout();
      await store.applyState(payout.id, 1, { 'payout.operatorReference': 'OP-1', status: 'processed' });
      await store.applyState(payout.id, 2, { payout: { ...payout.payout!, operatorStatus: 'pending' } });
      await store.applyState(payout.id, 3, { 'payout.operatorStatus': 'completed', status: 'completed' });
      expect(await store.findById(payout.id)).toMatchObject({
        status: 'completed',
        payout: { ...payout.payout, operatorStatus: 'completed', operatorReference: null },
      });
      expect(await rawDoc(payout.id)).toMatchObject({ stateSeq: 3, status: 'completed' });
    });

    it('many late attempts landing in any order never move the record backwards (fast-check scheduler)', async () => {
      const N = 4;
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.array(fc.integer({ min: 1, max: N }), { maxLength: 10 }),
          fc.integer({ min: 1, max: 6 }),
          async (s, lateSeqs, readCount) => {
            const { id } = await storePayin();
            const issued = Array.from({ length: N + 1 }, () => deferred());
            let completed = 0;
            // The workflow: write n+1 once write n completed.
            const workflow = (async () => {
              for (let seq = 1; seq <= N; seq++) {
                await s.schedule(Promise.resolve(), `write ${seq}`);
                issued[seq]!.resolve();
                // false when an attempt the scheduler ran first applied this seq already
                await store.applyState(id, seq, stateOf(seq, N));
                completed = seq;
              }
            })();
            // Earlier attempts of an issued seq, still running, each landing whenever the scheduler says.
            const late = lateSeqs.map(async (seq, i) => {
              await issued[seq]!.promise;
              await s.schedule(Promise.resolve(), `late ${i}: seq ${seq}`);
              await store.applyState(id, seq, stateOf(seq, N));
            });
            // Status reads one after another: each sees at least what the one before saw, and every
            // write completed before it began.
            const seen: number[] = [];
            const reads = (async () => {
              for (let r = 0; r < readCount; r++) {
                await s.schedule(Promise.resolve(), `read ${r}`);
                const floor = completed;
                const n = seqShown(await store.findById(id));
                expect(n).toBeGreaterThanOrEqual(Math.max(floor, seen.at(-1) ?? 0));
                seen.push(n);
              }
            })();
            await s.waitFor(Promise.all([workflow, ...late, reads]));
            expect(await store.findById(id)).toMatchObject(stateOf(N, N));
          },
        ),
        { numRuns: 25 },
      );
    });

    it('many concurrent late attempts (Promise.all) never move the record backwards', async () => {
      const N = 8;
      const { id } = await storePayin();
      const late: Promise<unknown>[] = [];
      const seen: number[] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) {
          seen.push(seqShown(await store.findById(id)));
          await pause(Math.random() * 5);
        }
      })();
      for (let seq = 1; seq <= N; seq++) {
        // Each write has 4 attempts: this one, completed, and three that land up to 40 ms later.
        for (let a = 0; a < 3; a++)
          late.push(pause(Math.random() * 40).then(() => store.applyState(id, seq, stateOf(seq, N))));
        await store.applyState(id, seq, stateOf(seq, N));
        expect(seqShown(await store.findById(id))).toBeGreaterThanOrEqual(seq);
      }
      await Promise.all(late);
      writing = false;
      await reader;
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(await store.findById(id)).toMatchObject(stateOf(N, N));
    });

    it('a document written before versions reads and updates as before, and versions build on it', async () => {
      const payin = await storePayin();
      expect(await store.findById(payin.id)).toMatchObject(payin);
      expect(await store.findById(payin.id)).not.toHaveProperty('stateSeq');
      await store.update(payin.id, { confirmationStatus: 'pending', provider: 'ORANGE_CI' });
      expect(await store.findById(payin.id)).toMatchObject({
        confirmationStatus: 'pending',
        provider: 'ORANGE_CI',
      });
      expect(await rawDoc(payin.id)).not.toHaveProperty('stateSeq');
      // A workflow patched since begins numbering at 3 (its earlier writes had no seq).
      await store.applyState(payin.id, 3, { status: 'processed' });
      await store.applyState(payin.id, 4, { status: 'success' });
      const late = [
        await store.applyState(payin.id, 2, { status: 'processing' }),
        await store.applyState(payin.id, 3, { status: 'processed' }),
      ];
      expect(await store.findById(payin.id)).toMatchObject({
        ...payin,
        status: 'success',
        confirmationStatus: 'pending',
        provider: 'ORANGE_CI',
        updatedAt: expect.any(Date),
      });
      expect(late).toEqual([false, false]);
    });

    it('removing a transaction that never started removes its versions: its id starts clean', async () => {
      const payin = await storePayin({ status: 'pending' });
      await store.applyState(payin.id, 1, { confirmationStatus: 'pending' });
      await store.removeUnstarted(payin.id);
      expect(await mongo.collection('transaction_states').countDocuments({ recordId: payin.id })).toBe(0);
      await store.insertOrGet(payin);
      expect(await store.findById(payin.id)).toMatchObject({ confirmationStatus: 'none' });
    });
  });

  describe('activities', () => {
    it('recordPayinState with a seq: a late attempt never lands; without one: as before', async () => {
      const act = createPayinActivities(deps);
      const a = await storePayin();
      await act.recordPayinState(a.id, { status: 'processing', customerPhone: '+2250700000009' }, 1);
      await act.recordPayinState(a.id, { status: 'success' }, 2);
      await act.recordPayinState(a.id, { status: 'processing', customerPhone: '+2250700000009' }, 1);
      expect(await store.findById(a.id)).toMatchObject({
        status: 'success',
        customer: { name: 'Test', phoneNumber: '+2250700000009' },
      });
      // A workflow started before seq existed replays without one: a plain write, as it always was.
      const b = await storePayin();
      await act.recordPayinState(b.id, { status: 'failed', failure: failure('DECLINED') });
      await act.recordPayinState(b.id, { customerPhone: '+2250700000008' });
      expect(await store.findById(b.id)).toMatchObject({
        status: 'failed',
        failure: failure('DECLINED'),
        customer: { phoneNumber: '+2250700000008' },
      });
      expect(await rawDoc(b.id)).not.toHaveProperty('stateSeq');
    });

    it('recordPayoutState with a seq: a late processed never lands over completed; without one: as before', async () => {
      const act = createPayoutActivities(deps);
      const p = await storePayout();
      const processed = {
        status: 'processed' as const,
        operatorReference: 'OP-7',
        processedAt: '2026-11-23T10:00:00.000Z',
        operatorStatus: 'pending' as const,
      };
      await act.recordPayoutState(p.id, processed, 1);
      await act.recordPayoutState(
        p.id,
        { status: 'completed', operatorStatus: 'completed', processedAt: '2026-11-23T10:05:00.000Z' },
        2,
      );
      await act.recordPayoutState(p.id, processed, 1);
      expect(await store.findById(p.id)).toMatchObject({
        status: 'completed',
        payout: {
          ...p.payout,
          operatorReference: 'OP-7',
          operatorStatus: 'completed',
          processedAt: '2026-11-23T10:05:00.000Z',
        },
      });
      const q = await storePayout();
      await act.recordPayoutState(q.id, processed);
      expect(await store.findById(q.id)).toMatchObject({
        status: 'processed',
        payout: {
          ...q.payout,
          operatorReference: 'OP-7',
          operatorStatus: 'pending',
          processedAt: '2026-11-23T10:00:00.000Z',
        },
      });
    });

    it('listPayinRefunds with a seq: a late attempt that read the shorter list never writes it back', async () => {
      const refundActs = createRefundActivities(deps);
      const payin = await fundedPayin();
      await refundActs.openRefund(refundOf(payin.id, 1));
      await refundActs.listPayinRefunds(payin.id, [`rf_${payin.id}_1`], 1);
      // This attempt of the next write reads the payin now, then stalls (its activity timed out).
      const stale = await store.findById(payin.id);
      const stalled = createRefundActivities({
        ...deps,
        transactions: Object.assign(Object.create(store) as TransactionStore, {
          findById: async () => stale,
        }),
      });
      await refundActs.openRefund(refundOf(payin.id, 2));
      await refundActs.listPayinRefunds(payin.id, [`rf_${payin.id}_1`, `rf_${payin.id}_2`], 2);
      await refundActs.openRefund(refundOf(payin.id, 3));
      await refundActs.listPayinRefunds(
        payin.id,
        [`rf_${payin.id}_1`, `rf_${payin.id}_2`, `rf_${payin.id}_3`],
        3,
      );
      // Its write of seq 2 lands last, with the list it computed from its early read.
      await stalled.listPayinRefunds(payin.id, [`rf_${payin.id}_1`, `rf_${payin.id}_2`], 2);
      expect((await store.findById(payin.id))?.refundIds).toEqual(
        [1, 2, 3].map((n) => `rf_${payin.id}_${n}`),
      );
    });

    it('a refund never goes from reversed back to failed', async () => {
      const acts = createRefundActivities(deps);
      const payin = await fundedPayin();
      const refundId = `rf_${payin.id}_1`;
      await acts.openRefund(refundOf(payin.id, 1));
      await acts.listPayinRefunds(payin.id, [refundId], 1);
      await acts.failRefund(refundId, { code: 'DECLINED', message: 'declined' }, '2026-11-23T10:00:00.000Z');
      await acts.reverseRefund(refundId);
      // The first attempt of failRefund, which had timed out, lands now.
      await acts.failRefund(refundId, { code: 'DECLINED', message: 'declined' }, '2026-11-23T10:00:00.000Z');
      expect(await deps.refunds.findById(refundId)).toMatchObject({
        status: 'reversed',
        transactionStatus: 'failed',
        failure: { code: 'DECLINED' },
      });
      // Every read of it: by id, the payin's list, the external reference.
      const [listed] = await deps.refunds.ofPayin((await store.findById(payin.id))!);
      expect(listed).toMatchObject({ id: refundId, status: 'reversed' });
      expect(await deps.refunds.findByExternalReference(payin.merchantId, payin.id, 'ext-1')).toMatchObject({
        status: 'reversed',
      });
      expect(await deps.refunds.searchOfPayin(payin.merchantId, payin.id)).toMatchObject([
        { status: 'reversed' },
      ]);
    });

    it('a refund stored and failed before versions is reversed, and a late failed does not undo it', async () => {
      const acts = createRefundActivities(deps);
      const payin = await fundedPayin();
      const refundId = `rf_${payin.id}_1`;
      await acts.openRefund(refundOf(payin.id, 1));
      // As the earlier version wrote it: a plain $set, no version.
      await deps.refunds.update(refundId, {
        status: 'failed',
        transactionStatus: 'failed',
        processedAt: new Date('2026-11-23T10:00:00.000Z'),
        failure: failure('DECLINED'),
      });
      expect(await deps.refunds.findById(refundId)).toMatchObject({ status: 'failed' });
      await acts.reverseRefund(refundId);
      await acts.failRefund(refundId, { code: 'DECLINED', message: 'declined' }, '2026-11-23T10:00:00.000Z');
      expect(await deps.refunds.findById(refundId)).toMatchObject({
        status: 'reversed',
        failure: { code: 'DECLINED' },
      });
    });
  });

  // State n of a payin whose workflow writes N times: its refund list has n ids, its last is success.
  function stateOf(n: number, last: number): Partial<Transaction> {
    return {
      status: n === last ? 'success' : 'processing',
      refundIds: Array.from({ length: n }, (_, i) => `rf_${i + 1}`),
    };
  }
  function deferred(): { promise: Promise<void>; resolve: () => void } {
    let resolve!: () => void;
    const promise = new Promise<void>((res) => (resolve = res));
    return { promise, resolve };
  }
  const seqShown = (tx: Transaction | null) => tx?.refundIds?.length ?? 0;
  const pause = (ms: number) => new Promise((res) => setTimeout(res, ms));

  function failure(code: string) {
    return { code, message: code.toLowerCase(), provider: 'MTN_CI' as const };
  }

  async function storePayout(): Promise<Transaction> {
    return storePayin({
      kind: 'payout',
      status: 'processing',
      payout: {
        shape: 'direct',
        accountId: 'acc_test',
        transferReference: `mtr_${randomUUID().slice(0, 8)}`,
        operatorReference: null,
        processedAt: null,
        operatorStatus: null,
      },
    });
  }

  async function fundedPayin(): Promise<Transaction> {
    const payin = await storePayin({ status: 'success', refundIds: [] });
    await deps.ledger.transfer({
      sourceRef: `fund:${payin.id}`,
      fromAccountId: await deps.ledger.systemAccountId('sandbox-funding', 'XOF', 'test'),
      toAccountId: await deps.ledger.mainAccountId(payin.merchantId, 'XOF'),
      amount: 10_000,
      reason: 'test funding',
    });
    return payin;
  }

  const refundOf = (payinId: string, n: number): OpenRefundInput => ({
    refundId: `rf_${payinId}_${n}`,
    transactionRef: `txr_${payinId}_${n}`,
    payinId,
    externalReference: `ext-${n}`,
    reason: 'test',
    amount: 100,
    refundType: 'partial',
    operator: 'MTN',
    country: 'CI',
    sandboxScenario: 'completed',
    idempotencyKey: null,
    apiKey: null,
    requestedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    workflowId: `refund-${payinId}-${n}`,
  });
});
