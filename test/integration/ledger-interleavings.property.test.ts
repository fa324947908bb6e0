import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { InsufficientFundsError, Ledger, type Account, type LedgerEntry } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';

// Random interleavings of concurrent transfers across a few accounts, against the real FerretDB.
// fast-check's scheduler decides the order in which transfers start (and may replay a sourceRef);
// three connections stand for three processes, so writers also race inside the database. After
// each run: every account's seq is 1..n, each balance is the sum of its entries, no merchant
// account went below zero, an applied transfer has exactly its two legs and a refused one none,
// and the currency's accounts sum to zero.

const WRITERS = 3;

interface Op {
  from: number;
  to: number;
  amount: number;
  writer: number;
  /** Also sent a second time under the same sourceRef (a retried activity). */
  replay: boolean;
}

describe('ledger under random interleavings (FerretDB)', () => {
  let conns: Connection[];
  let ledgers: Ledger[];

  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    const uri = `${base}/t_${randomBytes(6).toString('hex')}`;
    conns = await Promise.all(Array.from({ length: WRITERS }, () => connectMongo(uri)));
    // The last writer skips the in-process queue, so even its own writers race in the database.
    ledgers = conns.map((c, i) => Ledger.on(c, { serializeLocally: i < WRITERS - 1 }));
    await ledgers[0]!.init();
  });
  afterAll(async () => {
    await Promise.all((conns ?? []).map((c) => c.close()));
  });

  async function chain(accountId: string): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await ledgers[0]!.entries(accountId, { limit: 500, ...(cursor ? { cursor } : {}) });
      out.push(...page.entries);
      if (!page.nextCursor) return out.reverse();
      cursor = page.nextCursor;
    }
  }

  // Accounts 0..2 are merchant accounts (never negative), 3 is the fees system account.
  const op: fc.Arbitrary<Op> = fc
    .record({
      from: fc.integer({ min: 0, max: 3 }),
      to: fc.integer({ min: 0, max: 3 }),
      amount: fc.integer({ min: 1, max: 400 }),
      writer: fc.integer({ min: 0, max: WRITERS - 1 }),
      replay: fc.boolean(),
    })
    .filter((o) => o.from !== o.to);

  it('keeps every chain sound and money conserved', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(op, { minLength: 5, maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 3, maxLength: 3 }),
        async (s, ops, funding) => {
          const run = randomBytes(5).toString('hex');
          const ledger = ledgers[0]!;
          // A currency per run keeps the zero-sum check to this run's accounts alone.
          const currency = 'EUR';
          const merchants: Account[] = await Promise.all(
            [0, 1, 2].map((i) => ledger.createSubAccount(`mer_${run}`, currency, `a${i}`)),
          );
          const fees = await ledger.createSubAccount(`sys_${run}`, currency, 'fees');
          const source = await ledger.systemAccount('sandbox-funding', currency, 'test');
          const accounts = [...merchants, fees];
          // Account 3 stands for a platform account: funded generously so it never refuses.
          for (const [i, amt] of [...funding, 100_000].entries())
            if (amt > 0)
              await ledger.transfer({
                sourceRef: `fund:${run}:${i}`,
                fromAccountId: source.id,
                toAccountId: accounts[i]!.id,
                amount: amt,
                reason: 'funding',
              });

          const sends = ops.flatMap((o, i) =>
            (o.replay ? [o.writer, (o.writer + 1) % WRITERS] : [o.writer]).map((w) =>
              s.schedule(Promise.resolve(i), `op ${i} on writer ${w}`).then(() =>
                ledgers[w]!.transfer({
                  sourceRef: `op:${run}:${i}`,
                  fromAccountId: accounts[o.from]!.id,
                  toAccountId: accounts[o.to]!.id,
                  amount: o.amount,
                  reason: 'move',
                }).then(
                  (r) => ({ i, applied: r.applied, refused: false }),
                  (err: unknown) => {
                    if (!(err instanceof InsufficientFundsError)) throw err;
                    return { i, applied: false, refused: true };
                  },
                ),
              ),
            ),
          );
          await s.waitAll();
          const outcomes = await Promise.all(sends);

          // Each movement applied at most once; a refused one may apply on its replay (funds arrived).
          const appliedOps = new Set<number>();
          for (const o of outcomes) {
            if (!o.applied) continue;
            expect(appliedOps.has(o.i)).toBe(false);
            appliedOps.add(o.i);
          }
          const expected = [...funding, 100_000];
          ops.forEach((o, i) => {
            if (!appliedOps.has(i)) return;
            expected[o.from]! -= o.amount;
            expected[o.to]! += o.amount;
          });

          const m = ledgerModels(conns[0]!);
          let total = 0;
          for (const [idx, account] of accounts.entries()) {
            const entries = await chain(account.id);
            let balance = 0;
            entries.forEach((e, k) => {
              expect(e.seq).toBe(k + 1);
              balance += e.amount;
              expect(e.balanceAfter).toBe(balance);
              expect(e.balanceAfter).toBeGreaterThanOrEqual(0);
            });
            const v = await ledger.verify(account.id);
            expect(v.balance).toBe(v.sumOfEntries);
            expect(v.balance).toBe(expected[idx]);
            total += v.balance;
          }
          // Everything came from the funding account: the run's accounts hold exactly what it gave.
          expect(total).toBe(expected.reduce((a, b) => a + b, 0));
          expect(total).toBe(funding.reduce((a, b) => a + b, 0) + 100_000);
          for (const [i] of ops.entries()) {
            const legs = await m.entries.countDocuments({ sourceRef: `op:${run}:${i}` }).exec();
            expect(legs).toBe(appliedOps.has(i) ? 2 : 0);
          }
        },
      ),
      { numRuns: Number(process.env.LEDGER_PROPERTY_RUNS ?? 6) },
    );
  }, 180_000);
});
