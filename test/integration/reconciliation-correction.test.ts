import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { moveRefundWindow } from '../helpers/refund-window';
import { storedDirectPayin } from '../helpers/payin-input';
import type { Transaction } from '../../src/domain/transaction';
import { EventStore } from '../../src/events/event-store';
import { Ledger } from '../../src/ledger';
import { payinNet } from '../../src/ledger/postings';
import type { OperatorGateway, StatementEntry } from '../../src/operators/gateway';
import { RefundStore } from '../../src/persistence/refunds';
import { TransactionStore, type TransactionStateChanges } from '../../src/persistence/transactions';
import {
  buildReconciliationStores,
  eventNotifier,
  reconcileOperatorDay,
  temporalProbe,
  type ReconciliationDeps,
} from '../../src/reconciliation';
import type { ReconciliationWorkflowResult } from '../../workflows/operations/reconciliation';

// Issue 28 §5 and §8: reconciliation's correction of a payin (the operator's books say it collected
// a payin we ended failed or expired) is one decision, success for good, written as the payin
// record's next state version with its refund window
// (docs/decisions/reconciliation/correction-is-a-state-version.md).
// On the real stack: FerretDB, the time-skipping Temporal server and its worker, the simulator. The
// store-level tests hand reconciliation a statement of one entry (a stubbed operator); its probe and
// notifier ask the stack's Temporal, as the CLI does.

const MIN = 60_000;
const DAY = 86_400_000;
const WINDOW = 7 * DAY;
/** The day of the stubbed books: one on which nothing was asked of MTN (the API test asks today). */
const BOOKS_DAY = '2026-01-15';
/** Schedules of the concurrency test: under 2 s each (the event is awaited through the worker), ~45 s in all. */
const SCHEDULES = Number(process.env.CORRECTION_SCHEDULES ?? 25);

describe('reconciliation corrects a payin for good', () => {
  const { stack, api, merchant } = useStack({
    config: { PAYIN_EXPIRY: '10m', PAYOUT_EXPIRY: '10m' },
    fund: 100_000,
  });
  const today = () => new Date().toISOString().slice(0, 10);
  const stores = () => ({
    transactions: TransactionStore.on(stack.mongo),
    refunds: RefundStore.on(stack.mongo),
    ledger: Ledger.on(stack.mongo),
    ...buildReconciliationStores(stack.mongo),
  });

  /** A payin its workflow ended `status` (seq 1 processing, seq 2 the end) under a merchant of its own. */
  async function endedPayin(status: 'expired' | 'failed' = 'expired'): Promise<Transaction> {
    const { transactions } = stores();
    const id = `pr_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const payin = storedDirectPayin({
      id,
      merchantId,
      reference: id,
      workflowId: `payin:${merchantId}:${id}`,
    });
    await transactions.insertOrGet(payin);
    await transactions.applyState(id, 1, { status: 'processing', confirmationStatus: 'pending' });
    await transactions.applyState(id, 2, endState(status));
    return payin;
  }
  const endState = (status: 'expired' | 'failed'): TransactionStateChanges => ({
    status,
    failure: {
      code: status === 'expired' ? 'EXPIRED' : 'PAYER_NOT_FOUND',
      message: status,
      provider: 'MTN_CI',
    },
  });

  /** The operator's books of the day: this one collection, completed. */
  const booksOf = (tx: Transaction): OperatorGateway => {
    const entry: StatementEntry = {
      kind: 'collection',
      id: tx.id,
      originalId: null,
      operatorReference: `op-${tx.id}`,
      country: tx.country,
      amount: tx.chargedAmount,
      currency: tx.currency,
      fee: 0,
      status: 'completed',
      failureCode: null,
      createdAt: new Date().toISOString(),
      finalizedAt: new Date().toISOString(),
    };
    const statement = async (operator: string, date: string) => ({
      operator,
      date,
      generatedAt: new Date().toISOString(),
      entries: date === BOOKS_DAY ? [entry] : [],
    });
    return { statement } as unknown as OperatorGateway;
  };

  /** What a CLI run is given: the store, Temporal to probe and to hand the event to the worker. */
  const depsOf = (tx: Transaction): ReconciliationDeps => {
    const s = stores();
    const temporal = () => Promise.resolve(stack.env.client);
    return {
      ...s,
      operators: booksOf(tx),
      workflows: temporalProbe(temporal),
      notify: eventNotifier({ ...s, temporal, taskQueue: stack.taskQueue }),
      refundWindowMs: () => Promise.resolve(WINDOW),
    };
  };
  const reconcile = (deps: ReconciliationDeps) =>
    reconcileOperatorDay(deps, { operator: 'MTN', date: BOOKS_DAY, trigger: 'cli' });
  const correctedEvents = async (tx: Transaction) =>
    (
      await EventStore.on(stack.mongo).list(tx.merchantId, {
        type: 'payin.corrected',
        reference: tx.reference,
        limit: 10,
      })
    ).events;

  it('after a correction, neither the next state write nor a late write of the ended workflow brings the old status back', async () => {
    const { transactions, ledger } = stores();
    const tx = await endedPayin('expired');
    const before = Date.now();
    const report = await reconcile(depsOf(tx));
    expect(report.findings).toEqual([
      expect.objectContaining({ class: 'collected_not_credited', id: tx.id, action: 'credited' }),
    ]);
    const corrected = { status: 'success', confirmationStatus: 'accepted', failure: null };
    expect(await transactions.findById(tx.id)).toMatchObject(corrected);

    // The next writer of the record (its refund desk lists a refund: listPayinRefunds numbers on from
    // stateSeqOf) builds on the correction, not on the expiry before it.
    const next = (await transactions.stateSeqOf(tx.id)) + 1;
    expect(await transactions.applyState(tx.id, next, { refundIds: ['rf_first'] })).toBe(true);
    expect(await transactions.findById(tx.id)).toMatchObject({ ...corrected, refundIds: ['rf_first'] });

    // A late attempt of the workflow's expiry write (seq 2): its retry, and its copy onto the
    // document landing last (FerretDB replaces the whole document).
    expect(await transactions.applyState(tx.id, 2, endState('expired'))).toBe(false);
    await stack.mongo
      .collection('transactions')
      .updateOne({ _id: tx.id as never }, { $set: { stateSeq: 2, ...endState('expired') } });
    const read = await transactions.find(tx.merchantId, 'payin', tx.reference);
    expect(read).toMatchObject({ ...corrected, refundIds: ['rf_first'] });
    // Its refund window runs from the correction.
    const until = new Date(read!.refundableUntil!).getTime();
    expect(until).toBeGreaterThanOrEqual(before + WINDOW);
    expect(until).toBeLessThanOrEqual(Date.now() + WINDOW);

    // A second run finds it success and credited: nothing moves, nothing is told again.
    const main = await ledger.mainAccount(tx.merchantId, 'XOF');
    expect(main.balance).toBe(payinNet(tx));
    expect((await reconcile(depsOf(tx))).findings).toEqual([]);
    expect((await ledger.mainAccount(tx.merchantId, 'XOF')).balance).toBe(payinNet(tx));
    const events = await eventually(
      () => correctedEvents(tx),
      (e) => e.length > 0,
    );
    expect(events.map((e) => e.data.status)).toEqual(['success']);
  }, 60_000);

  it('a corrected payin is refundable through the API within its window, from the correction on, and refused after it', async () => {
    const reference = `rc-${randomUUID().slice(0, 12)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'pending',
      payin: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.confirmationStatus === 'pending',
    );
    // Our deadline passes while the operator says pending: the payin ends, its workflow closes.
    await stack.env.sleep(11 * MIN);
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'expired' || r.body.status === 'failed',
    );
    await eventually(
      () => stack.env.client.workflow.getHandle(`payin:${merchant.merchantId}:${reference}`).describe(),
      (d) => d.status.name !== 'RUNNING',
    );
    // Then the operator's books say the customer paid; the daily run (the worker's activity) corrects it.
    const settled = await fetch(`${stack.simulator.url}/_sandbox/collections/${created.body.id}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'completed', force: true }),
    });
    expect(settled.status).toBeLessThan(300);
    const before = Date.now();
    const run = (await stack.env.client.workflow.execute('reconciliationWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `reconciliation-test-${randomUUID()}`,
      args: [{ date: today(), operators: ['MTN'] }],
    })) as ReconciliationWorkflowResult;
    expect(run.reports[0]).toMatchObject({ needsPerson: false, totals: { corrected: 1 } });
    expect((await api.get(`/v1/payin/${reference}`)).body.status).toBe('success');

    // Within the window: refunded (its refund desk decides, as for any payin that closed at success).
    const refund = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 3_000,
      reason: 'returned',
      externalReference: `rf-${randomUUID().slice(0, 8)}`,
    });
    expect(refund.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${refund.body.reference}`),
      (r) => r.body.status === 'completed',
    );
    expect((await api.get(`/v1/payin/${reference}`)).body).toMatchObject({
      status: 'success',
      refundedAmount: 3_000,
    });

    // Its window runs from the correction (REFUND_WINDOW, 7 days).
    const corrected = await stores().transactions.findById(created.body.id);
    const until = new Date(corrected!.refundableUntil!).getTime();
    expect(until).toBeGreaterThanOrEqual(before + WINDOW);
    expect(until).toBeLessThanOrEqual(Date.now() + WINDOW);

    // Past it: refused, and still success.
    await moveRefundWindow(stack.mongo, created.body.id, new Date(Date.now() - MIN));
    const late = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 1_000,
      reason: 'returned',
      externalReference: `rf-${randomUUID().slice(0, 8)}`,
    });
    expect(late.status).toBe(403);
    expect(late.body.code).toBe('REFUND_NOT_ALLOWED');
    expect((await api.get(`/v1/payin/${reference}`)).body.status).toBe('success');
  }, 180_000);

  it('two or three runs, the ended workflow’s late write and the payin’s readers, in any order: one decision, money moved once (fast-check scheduler)', async () => {
    const { transactions, ledger } = stores();
    const events = EventStore.on(stack.mongo);
    // The payins below belong to merchants made here without the test-mode suffix: live money.
    const clearing = () => ledger.systemAccount('operator-clearing', 'XOF', 'live');
    const fees = () => ledger.systemAccount('fees', 'XOF', 'live');
    let schedules = 0;

    /** Each call of the object's methods waits for the scheduler first: the runs interleave at every store step. */
    const stepped = <T extends object>(s: fc.Scheduler, who: string, target: T): T =>
      new Proxy(target, {
        get(t, prop) {
          const v = Reflect.get(t, prop) as unknown;
          if (typeof v !== 'function') return v;
          return async (...args: unknown[]) => {
            await s.schedule(Promise.resolve(), `${who}.${String(prop)}`);
            return (v as (...a: unknown[]) => unknown).apply(t, args);
          };
        },
      });
    const steppedDeps = (s: fc.Scheduler, who: string, tx: Transaction): ReconciliationDeps => {
      const d = depsOf(tx);
      return {
        ...d,
        transactions: stepped(s, who, d.transactions),
        ledger: stepped(s, who, d.ledger),
        corrections: stepped(s, who, d.corrections),
        workflows: stepped(s, who, d.workflows),
        notify: stepped(s, who, d.notify),
      };
    };

    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom<'expired' | 'failed'>('expired', 'failed'),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 3 }),
        async (s, ended, desk, readCount, runCount) => {
          schedules++;
          const tx = await endedPayin(ended);
          const [clearing0, fees0] = [(await clearing()).balance, (await fees()).balance];
          const t0 = Date.now();

          // Two or three runs: the schedule's, a retry of its activity, the CLI.
          const runs = ['A', 'B', 'C'].slice(0, runCount).map((who) => reconcile(steppedDeps(s, who, tx)));
          // The ended workflow's expiry (or failure) write, an attempt that timed out and lands late:
          // its insert, then its copy onto the document.
          const late = (async () => {
            await s.schedule(Promise.resolve(), 'late write');
            await transactions.applyState(tx.id, 2, endState(ended));
            await s.schedule(Promise.resolve(), 'late copy');
            await stack.mongo
              .collection('transactions')
              .updateOne({ _id: tx.id as never }, { $set: { stateSeq: 2, ...endState(ended) } });
          })();
          // Status reads one after another: once success, always success.
          const seen: string[] = [];
          const reads = (async () => {
            for (let r = 0; r < readCount; r++) {
              await s.schedule(Promise.resolve(), `read ${r}`);
              seen.push((await transactions.find(tx.merchantId, 'payin', tx.reference))!.status);
            }
          })();
          // A refund desk opened as soon as the payin reads success writes the record's next state.
          let listed = false;
          const refunds = (async () => {
            if (!desk) return;
            await s.schedule(Promise.resolve(), 'desk');
            if ((await transactions.findById(tx.id))?.status !== 'success') return;
            const seq = (await transactions.stateSeqOf(tx.id)) + 1;
            listed = await transactions.applyState(tx.id, seq, { refundIds: [`rf_${tx.id}`] });
          })();
          await s.waitFor(Promise.all([...runs, late, reads, refunds]));
          const reports = await Promise.all(runs);

          // One decision: success for good, its window from the correction, the desk's write kept.
          const final = await transactions.findById(tx.id);
          expect(final).toMatchObject({ status: 'success', confirmationStatus: 'accepted', failure: null });
          const until = new Date(final!.refundableUntil!).getTime();
          expect(until).toBeGreaterThanOrEqual(t0 + WINDOW);
          expect(until).toBeLessThanOrEqual(Date.now() + WINDOW);
          if (listed) expect(final!.refundIds).toEqual([`rf_${tx.id}`]);
          // The correction is version 3 (over the end, 2), the desk's write 4, and nothing else.
          const versions = stack.mongo.collection('transaction_states');
          const version = (seq: number) => versions.findOne({ _id: `${tx.id}:${seq}` as never });
          const status = (v: unknown) =>
            (v as { state: { path: string; value: unknown }[] }).state.find((e) => e.path === 'status')
              ?.value;
          expect(status(await version(3))).toBe('success');
          expect(await version(listed ? 5 : 4)).toBeNull();
          const successIndex = seen.indexOf('success');
          if (successIndex >= 0) expect(seen.slice(successIndex).every((st) => st === 'success')).toBe(true);
          for (const report of reports) {
            expect(report.needsPerson).toBe(false);
            for (const f of report.findings) expect(f).toMatchObject({ id: tx.id, action: 'credited' });
          }
          expect(reports.flatMap((r) => r.findings).length).toBeGreaterThan(0);

          // Money moved once: the merchant credited its net, fees the fee, from clearing, all balanced.
          const net = payinNet(tx);
          const main = await ledger.mainAccount(tx.merchantId, 'XOF');
          expect(main.balance).toBe(net);
          const [clearing1, fees1] = [await clearing(), await fees()];
          expect(clearing0 - clearing1.balance).toBe(net + tx.fee);
          expect(fees1.balance - fees0).toBe(tx.fee);
          expect(fees1.balance).toBeGreaterThanOrEqual(0);
          for (const account of [main, clearing1, fees1]) {
            const v = await ledger.verify(account.id);
            expect(v.balance).toBe(v.sumOfEntries);
          }
          // Told once: one payin.corrected (its publishing workflow runs once per payin).
          const told = await eventually(
            () => events.list(tx.merchantId, { reference: tx.reference, limit: 10 }),
            (page) => page.events.length > 0,
          );
          await new Promise((r) => setTimeout(r, 200)); // room for a second event, should there be one
          const again = await events.list(tx.merchantId, { reference: tx.reference, limit: 10 });
          expect(again.events.map((e) => [e.type, e.data.status])).toEqual([['payin.corrected', 'success']]);
          expect(told.events).toHaveLength(1);
        },
      ),
      { numRuns: SCHEDULES },
    );
    expect(schedules).toBe(SCHEDULES);
  }, 240_000);
});
