import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Connection } from 'mongoose';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { connectMongo } from '../../src/persistence/mongo';
import { startTimeSkippingEnv } from '../helpers/stack';
import { Ledger } from '../../src/ledger';
import { payoutSourceRefs } from '../../src/ledger/postings';
import { PayoutBatchStore, type PayoutBatch } from '../../src/persistence/payout-batches';
import { TransactionStore } from '../../src/persistence/transactions';
import { WorkflowStartLog } from '../../src/persistence/workflow-starts';
import { PayoutBatchService } from '../../src/services/payout-batch-service';
import { PayoutService } from '../../src/services/payout-service';
import { parseBatchItem } from '../../src/contract/schemas/payout-batch';
import { resolveFeeSchedule } from '../../src/domain/fees';
import { configSchema } from '../../src/config';

// An atomic bulk payout finished by two or three attempts at once (a request and its retry, or the
// batch's workflow), over the real FerretDB, each attempt on its own connection (its own process).
// fast-check's scheduler decides, at every call an attempt makes to the ledger or a store, which
// attempt goes on; a credit of the short account arrives somewhere in between (docs: issue 28 §2).
// After each schedule: one decision, followed by every attempt; each item paid at most once, and
// only if the batch was accepted; each account's balance is its funding minus what its paid items
// charged (no money created or lost); the batch's holds net to zero; `payout-holds` never negative.

const ATTEMPTS_MAX = 3;
const RUNS = Number(process.env.BATCH_PROPERTY_RUNS ?? 15);

interface Scenario {
  attempts: number;
  /** Whether the sub-account covers its items from the start (else only after the credit). */
  subCovered: boolean;
  /** Which connection (process) each attempt runs on. */
  conns: number[];
  /** Extra turns each attempt waits before each call: a slow attempt lags behind the others. */
  slowness: number[];
  /** After how many calls in all the sub-account is credited. */
  creditAt: number;
}

describe('atomic bulk payout decided by concurrent attempts (FerretDB)', () => {
  let conns: Connection[];
  let env: TestWorkflowEnvironment;
  const config = configSchema.parse({ NODE_ENV: 'test' });
  // Workflows are started on a queue no worker polls: the payouts stay as the batch left them.
  const taskQueue = `idle-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    const uri = `${base}/t_${randomBytes(6).toString('hex')}`;
    conns = await Promise.all(Array.from({ length: ATTEMPTS_MAX }, () => connectMongo(uri)));
    await Ledger.on(conns[0]!).init();
    await PayoutBatchStore.on(conns[0]!).init();
    await TransactionStore.on(conns[0]!).init();
    await WorkflowStartLog.on(conns[0]!).init();
    env = await startTimeSkippingEnv();
  }, 120_000);
  afterAll(async () => {
    await Promise.all((conns ?? []).map((c) => c.close()));
    await env?.teardown();
  });

  const servicesOn = (conn: Connection) => {
    const ledger = Ledger.on(conn);
    const transactions = TransactionStore.on(conn);
    const payouts = new PayoutService({
      transactions,
      starts: WorkflowStartLog.on(conn),
      ledger,
      temporal: env.client,
      taskQueue,
      payoutExpiryMs: config.PAYOUT_EXPIRY,
      feeSchedule: resolveFeeSchedule(config.FEE_SCHEDULE),
    });
    return { ledger, transactions, payouts, batches: PayoutBatchStore.on(conn) };
  };

  /** Every async method of `target` waits for the scheduler before it runs. */
  function gated<T extends object>(target: T, gate: (label: string) => Promise<void>, label: string): T {
    return new Proxy(target, {
      get(t, prop, receiver) {
        const value: unknown = Reflect.get(t, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          gate(`${label}.${String(prop)}`).then(() => (value as (...a: unknown[]) => unknown).apply(t, args));
      },
    });
  }

  const scenario: fc.Arbitrary<Scenario> = fc.integer({ min: 2, max: ATTEMPTS_MAX }).chain((attempts) => {
    const each = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: attempts, maxLength: attempts });
    return fc.record({
      attempts: fc.constant(attempts),
      // Mostly short: the case where one attempt refuses while another, later, could hold.
      subCovered: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      conns: each(fc.integer({ min: 0, max: ATTEMPTS_MAX - 1 })),
      slowness: each(fc.integer({ min: 0, max: 3 })),
      creditAt: fc.integer({ min: 0, max: 70 }),
    });
  });

  /** One atomic batch of three items: two on the main account, one on a sub-account, funded. */
  async function newBatch(subCovered: boolean) {
    const base = servicesOn(conns[0]!);
    // The merchants made here (`mer_<run>`) are live ones: their system accounts are live mode's.
    const funding = await base.ledger.systemAccountId('sandbox-funding', 'XOF', 'live');
    const holdsAccount = await base.ledger.systemAccount('payout-holds', 'XOF', 'live');
    const newest = (await base.ledger.entries(holdsAccount.id, { limit: 1 })).entries[0];
    const holdsBefore = { seq: newest?.seq ?? 0, balance: newest?.balanceAfter ?? 0 };
    const run = randomBytes(5).toString('hex');
    const merchantId = `mer_${run}`;
    const main = await base.ledger.mainAccount(merchantId, 'XOF');
    const sub = await base.ledger.createSubAccount(merchantId, 'XOF', 'salaries');
    const raw = [
      { reference: `x1-${run}`, amount: 1000 },
      { reference: `x2-${run}`, amount: 500 },
      { reference: `y1-${run}`, amount: 800, accountId: sub.id, customerName: 'Awa' },
    ].map((i) => ({ msisdn: '+2250700000002', country: 'CI', sandboxScenario: 'completed', ...i }));
    const items = raw.map((r) => {
      const parsed = parseBatchItem(r);
      if (!('item' in parsed)) throw new Error('test item refused');
      return parsed.item;
    });
    // What each item charges (amount + fee), as the batch will compute it.
    const charged = await Promise.all(
      items.map(
        async (input) =>
          (await base.payouts.prepare(merchantId, { ...input, pathPrefix: '' })).transaction.chargedAmount,
      ),
    );
    const fund = async (accountId: string, amount: number, ref: string) =>
      base.ledger.transfer({
        sourceRef: ref,
        fromAccountId: funding,
        toAccountId: accountId,
        amount,
        reason: 'test funding',
      });
    const funded = new Map<string, number>([
      [main.id, charged[0]! + charged[1]!],
      [sub.id, subCovered ? charged[2]! : charged[2]! - 1],
    ]);
    for (const [account, amount] of funded) await fund(account, amount, `fund:${run}:${account}`);
    const batch: PayoutBatch = {
      id: `pb_${run}${randomBytes(7).toString('hex')}`,
      merchantId,
      idempotencyKey: randomUUID(),
      requestFingerprint: null,
      atomic: true,
      items: items.map((input) => ({ input })),
      state: 'open',
      decision: null,
      held: [],
      results: null,
      createdAt: new Date(),
      completedAt: null,
    };
    await base.batches.insertOrGet(batch);
    /** The credit of the sub-account that arrives while the attempts run. */
    const credit = async () => {
      await fund(sub.id, charged[2]!, `credit:${run}`);
      funded.set(sub.id, funded.get(sub.id)! + charged[2]!);
    };
    const accountOf = [main.id, main.id, sub.id];
    return { base, batch, items, charged, accountOf, funded, credit, holdsBefore };
  }

  /** An attempt at finishing the batch on connection `c`, each call it makes through `gate`. */
  function attempt(c: number, batchId: string, gate: (label: string) => Promise<void>, name: string) {
    const deps = servicesOn(conns[c]!);
    return new PayoutBatchService({
      batches: gated(deps.batches, gate, `${name}:batches`),
      transactions: gated(deps.transactions, gate, `${name}:transactions`),
      ledger: gated(deps.ledger, gate, `${name}:ledger`),
      payouts: gated(deps.payouts, gate, `${name}:payouts`),
    }).process(batchId);
  }

  /** The invariants, once every attempt has finished: see the file's head. */
  async function checkInvariants(setup: Awaited<ReturnType<typeof newBatch>>, answers: PayoutBatch[]) {
    const { base, batch, items, charged, accountOf, funded, holdsBefore } = setup;
    const holds = await base.ledger.systemAccount('payout-holds', 'XOF', 'live');
    // One decision, and every attempt answered it.
    const stored = (await base.batches.findById(batch.id))!;
    const decisionDoc = await conns[0]!.db!.collection('payout_batch_decisions').findOne({
      _id: batch.id as never,
    });
    const decision = (decisionDoc?.decision as string | undefined) ?? stored.decision;
    expect(['accepted', 'refused']).toContain(decision);
    expect(stored.decision).toBe(decision);
    for (const answered of answers)
      expect(answered.results!.map((r) => r.result)).toEqual(items.map(() => decision));

    // Each item paid at most once, and only if accepted; each account's balance says the same.
    const spent = new Map<string, number>();
    for (const [index, item] of items.entries()) {
      const tx = await base.transactions.find(batch.merchantId, 'payout', item.reference);
      const legs = tx ? await base.ledger.entriesOf([payoutSourceRefs(tx.id).debit]) : [];
      const paid = legs.filter((e) => e.leg === 'debit');
      expect(paid.length).toBe(decision === 'accepted' ? 1 : 0);
      if (paid.length === 1) {
        expect(paid[0]!.accountId).toBe(holds.id);
        spent.set(accountOf[index]!, (spent.get(accountOf[index]!) ?? 0) + charged[index]!);
      }
    }
    for (const [account, amount] of funded) {
      const v = await base.ledger.verify(account);
      expect(v.balance).toBe(v.sumOfEntries);
      expect(v.balance).toBe(amount - (spent.get(account) ?? 0));
    }
    // The batch's holds: what went in came out, paid or released.
    const refs = [...funded.keys()].flatMap((a) => [
      `batch:${batch.id}:hold:${a}`,
      `batch:${batch.id}:release:${a}`,
    ]);
    const onHolds = (await base.ledger.entriesOf(refs)).filter((e) => e.accountId === holds.id);
    const paidFromHolds = [...spent.values()].reduce((a, b) => a + b, 0);
    expect(onHolds.reduce((sum, e) => sum + e.amount, 0)).toBe(paidFromHolds);
    // `payout-holds` never went below zero: nothing else holds money meanwhile, so this batch never
    // took out more than it had put in (measured from where this run found it, for clear shrinks).
    const chain = await base.ledger.entries(holds.id, { limit: 500 });
    for (const e of chain.entries.filter((x) => x.seq > holdsBefore.seq))
      expect(e.balanceAfter - holdsBefore.balance).toBeGreaterThanOrEqual(0);
  }

  it("the issue's schedule: B read the batch, A refused and released, the credit came, then B", async () => {
    const setup = await newBatch(false);
    let paused!: () => void;
    const resume = new Promise<void>((r) => (paused = r));
    let parked!: () => void;
    const isParked = new Promise<void>((r) => (parked = r));
    // B goes as far as reading the batch (and, where there is one, its decision), then waits.
    const b = attempt(
      1,
      setup.batch.id,
      async (label) => {
        if (label.includes(':batches')) return;
        parked();
        await resume;
      },
      'B',
    );
    await isParked;
    const a = await attempt(0, setup.batch.id, () => Promise.resolve(), 'A');
    await setup.credit();
    paused();
    await checkInvariants(setup, [a, await b]);
  }, 60_000);

  it('a hold left by an attempt that died after the batch was refused is given back at completion', async () => {
    const setup = await newBatch(false);
    const { base, batch, funded } = setup;
    const service = () =>
      new PayoutBatchService({
        batches: base.batches,
        transactions: base.transactions,
        ledger: base.ledger,
        payouts: base.payouts,
      });
    const done = await service().process(batch.id);
    expect(done.results!.map((r) => r.result)).toEqual(['refused', 'refused', 'refused']);
    // Another attempt, which read the batch undecided, holds every account once the sub-account
    // is credited (at least that hold is new), and dies.
    await setup.credit();
    const holds = await base.ledger.systemAccountId('payout-holds', 'XOF', 'live');
    const owed = [setup.charged[0]! + setup.charged[1]!, setup.charged[2]!];
    for (const [i, account] of setup.accountOf.slice(1).entries())
      await base.ledger.transfer({
        sourceRef: `batch:${batch.id}:hold:${account}`,
        fromAccountId: account,
        toAccountId: holds,
        amount: owed[i]!,
        reason: `bulk payout ${batch.id}: hold`,
      });
    const sub = setup.accountOf[2]!;
    expect((await base.ledger.getAccount(sub))!.balance).toBe(funded.get(sub)! - setup.charged[2]!);
    await service().releaseRefusedHolds(done);
    await service().releaseRefusedHolds(done);
    await checkInvariants(setup, [done]);
  }, 60_000);

  it('takes one decision, pays each item at most once, creates no money', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenario, async (s, sc) => {
        const setup = await newBatch(sc.subCovered);
        // The scheduler releases one waiting call at a time, once every live attempt is waiting.
        let waiting = 0;
        const turn = (label: string) => {
          waiting += 1;
          return s.schedule(Promise.resolve(), label).then(() => {
            waiting -= 1;
          });
        };
        const attempts = sc.conns.map((c, n) =>
          attempt(
            c,
            setup.batch.id,
            async (label) => {
              for (let i = 0; i < sc.slowness[n]!; i++) await turn(`${label} (slow ${i})`);
              await turn(label);
            },
            `A${n}`,
          ),
        );
        let finished = 0;
        const settled = attempts.map((p) =>
          p
            .then(
              (value) => ({ ok: true as const, value }),
              (error: unknown) => ({ ok: false as const, error }),
            )
            .finally(() => {
              finished += 1;
            }),
        );
        // The sub-account is credited meanwhile, between two calls (the payin that lets a later
        // attempt hold it).
        let calls = 0;
        let credited = false;
        while (finished < attempts.length) {
          if (!credited && calls >= sc.creditAt) {
            await setup.credit();
            credited = true;
          }
          if (waiting > 0 && waiting === attempts.length - finished) {
            await s.waitOne();
            calls += 1;
          } else await new Promise((r) => setTimeout(r, 1));
        }
        if (!credited) await setup.credit();
        const outcomes = await Promise.all(settled);
        for (const o of outcomes) if (!o.ok) throw o.error;
        await checkInvariants(
          setup,
          outcomes.map((o) => (o as { value: PayoutBatch }).value),
        );
      }),
      { numRuns: RUNS },
    );
  }, 240_000);
});
