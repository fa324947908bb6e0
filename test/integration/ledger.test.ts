import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { HINT_EVERY, NEAR_BELOW } from '../../src/persistence/append-at-head';
import { auditQueries } from '../helpers/query-audit';
import {
  InsufficientFundsError,
  Ledger,
  SourceRefConflictError,
  SystemAccountOverdrawnError,
  type Account,
  type LedgerEntry,
  type TransferRequest,
} from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';

// The journal against the real FerretDB. Several connections stand for several processes (API,
// workers), so writers really race in the database, not only inside this process.
const WRITERS = 3;

describe('ledger on FerretDB', () => {
  let conns: Connection[];
  let ledgers: Ledger[];
  let ledger: Ledger;
  let uri: string;

  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    uri = `${base}/t_${randomBytes(6).toString('hex')}`;
    conns = await Promise.all(Array.from({ length: WRITERS }, () => connectMongo(uri)));
    // One Ledger per connection, as one per process; the last one also skips the in-process queue,
    // so its own concurrent writers race in the database too.
    ledgers = conns.map((c, i) => Ledger.on(c, { serializeLocally: i < WRITERS - 1 }));
    ledger = ledgers[0]!;
    await ledger.init();
  });
  afterAll(async () => {
    await Promise.all((conns ?? []).map((c) => c.close()));
  });

  const merchant = () => `mer_${randomBytes(6).toString('hex')}`;
  const ref = (label: string) => `${label}:${randomBytes(6).toString('hex')}`;

  async function fund(account: Account, amount: number): Promise<void> {
    const funding = await ledger.systemAccount('sandbox-funding', account.currency, 'live');
    await ledger.transfer({
      sourceRef: ref('fund'),
      fromAccountId: funding.id,
      toAccountId: account.id,
      amount,
      reason: 'sandbox funding',
    });
  }

  async function allEntries(accountId: string): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await ledger.entries(accountId, { limit: 500, ...(cursor ? { cursor } : {}) });
      out.push(...page.entries);
      if (!page.nextCursor) return out.reverse();
      cursor = page.nextCursor;
    }
  }

  /** Seq 1..n without gap, each running balance = previous + amount, never below zero. */
  function expectSoundChain(entries: LedgerEntry[], allowNegative = false): void {
    let balance = 0;
    entries.forEach((e, i) => {
      expect(e.seq).toBe(i + 1);
      balance += e.amount;
      expect(e.balanceAfter).toBe(balance);
      if (!allowNegative) expect(e.balanceAfter).toBeGreaterThanOrEqual(0);
    });
  }

  it('keeps one account under 200 concurrent debits and credits: no overdraft, nothing lost or doubled', async () => {
    const m = merchant();
    const account = await ledger.mainAccount(m, 'XOF');
    const fees = await ledger.systemAccount('fees', 'XOF', 'live');
    const funding = await ledger.systemAccount('sandbox-funding', 'XOF', 'live');
    await fund(account, 1_000);

    // 130 debits of 20 (2,600) and 70 credits of 10 (700): far more debits than the balance allows.
    const ops: (TransferRequest & { kind: 'debit' | 'credit' })[] = Array.from({ length: 200 }, (_, i) => {
      const kind = i % 20 < 13 ? 'debit' : 'credit';
      return kind === 'debit'
        ? {
            kind,
            sourceRef: `op-${m}-${i}`,
            fromAccountId: account.id,
            toAccountId: fees.id,
            amount: 20,
            reason: 'debit',
          }
        : {
            kind,
            sourceRef: `op-${m}-${i}`,
            fromAccountId: funding.id,
            toAccountId: account.id,
            amount: 10,
            reason: 'credit',
          };
    });
    // Two "processes", each queueing its own writers per account, racing each other in the database.
    const outcomes = await Promise.allSettled(ops.map((op, i) => ledgers[i % 2]!.transfer(op)));

    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    for (const r of refused) expect(r.reason).toBeInstanceOf(InsufficientFundsError);
    const appliedDebits = ops.filter((op, i) => op.kind === 'debit' && outcomes[i]!.status === 'fulfilled');
    // Every credit lands; some debits are refused, the rest apply.
    expect(ops.filter((op, i) => op.kind === 'credit' && outcomes[i]!.status === 'rejected')).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    expect(appliedDebits.length).toBeGreaterThan(0);
    for (const o of outcomes) if (o.status === 'fulfilled') expect(o.value.applied).toBe(true);

    const entries = await allEntries(account.id);
    expectSoundChain(entries);
    // Exactly one entry per applied movement, none for a refused one.
    expect(entries).toHaveLength(1 + 70 + appliedDebits.length);
    const refs = entries.map((e) => e.sourceRef);
    expect(new Set(refs).size).toBe(refs.length);
    ops.forEach((op, i) => expect(refs.includes(op.sourceRef)).toBe(outcomes[i]!.status === 'fulfilled'));

    const expected = 1_000 + 70 * 10 - appliedDebits.length * 20;
    const v = await ledger.verify(account.id);
    expect(v).toEqual({ balance: expected, sumOfEntries: expected, entries: entries.length });
    expect((await ledger.getAccount(account.id))!.balance).toBe(expected);
    // Double entry: the counterpart accounts moved by exactly the opposite amounts.
    const feesV = await ledger.verify(fees.id);
    expect(feesV.sumOfEntries).toBe(appliedDebits.length * 20);
    expect(feesV.balance).toBe(feesV.sumOfEntries);
    expectSoundChain(await allEntries(fees.id));
    expectSoundChain(await allEntries(funding.id), true);
  }, 120_000); // 200 movements on a shared 2-core machine: seconds when idle, more under load

  it('applies a transfer once however often its sourceRef is replayed, also 20 at a time', async () => {
    const account = await ledger.mainAccount(merchant(), 'XAF');
    const funding = await ledger.systemAccount('sandbox-funding', 'XAF', 'live');
    const req: TransferRequest = {
      sourceRef: ref('pr_x:credit'),
      fromAccountId: funding.id,
      toAccountId: account.id,
      amount: 5_000,
      reason: 'payin settled',
      transactionId: 'pr_x',
    };
    const first = await ledger.transfer(req);
    const again = await ledgers[1]!.transfer(req);
    expect(first.applied).toBe(true);
    expect(again).toEqual({ ...first, applied: false });

    const concurrent = { ...req, sourceRef: ref('pr_y:credit') };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ledgers[i % WRITERS]!.transfer(concurrent)),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.transferId)).size).toBe(1);
    expect(new Set(results.map((r) => r.toBalance))).toEqual(new Set([10_000]));

    expect(await ledger.verify(account.id)).toEqual({ balance: 10_000, sumOfEntries: 10_000, entries: 2 });
    const legs = await ledgerModels(conns[0]!)
      .entries.countDocuments({ sourceRef: concurrent.sourceRef })
      .exec();
    expect(legs).toBe(2);

    // The same sourceRef for a different movement is refused, not silently merged.
    await expect(ledger.transfer({ ...req, amount: 1 })).rejects.toBeInstanceOf(SourceRefConflictError);
  });

  it('finds a replayed leg a few positions down by `_id`, and one further down by a scan', async () => {
    // A replay after a timeout meets its own legs below the heads; FerretDB's SQLite backend scans
    // the whole journal for a `(sourceRef, leg)` filter, so the nearest positions are read first.
    const account = await ledger.mainAccount(merchant(), 'XAF');
    const funding = await ledger.systemAccount('sandbox-funding', 'XAF', 'live');
    const credit = (label: string): TransferRequest => ({
      sourceRef: ref(label),
      fromAccountId: funding.id,
      toAccountId: account.id,
      amount: 100,
      reason: 'payin settled',
    });
    const near = credit('near');
    await ledger.transfer(near);
    for (let i = 0; i < 5; i++) await ledger.transfer(credit(`after-near-${i}`));
    const replayed = await auditQueries(conns[1]!, () => ledgers[1]!.transfer(near));
    expect(replayed.result.applied).toBe(false);
    expect(replayed.scans).toEqual([]);

    const far = credit('far');
    await ledger.transfer(far);
    for (let i = 0; i < NEAR_BELOW + 2; i++) await ledger.transfer(credit(`after-far-${i}`));
    const replayedFar = await auditQueries(conns[2]!, () => ledgers[2]!.transfer(far));
    expect(replayedFar.result.applied).toBe(false);
    expect(replayedFar.scans.map((q) => q.collection)).toContain('ledger_entries');

    const entries = 2 + 5 + NEAR_BELOW + 2;
    expect(await ledger.verify(account.id)).toEqual({
      balance: entries * 100,
      sumOfEntries: entries * 100,
      entries,
    });
  });

  it('completes a transfer killed between its legs exactly once on retry', async () => {
    const account = await ledger.mainAccount(merchant(), 'XOF');
    const fees = await ledger.systemAccount('fees', 'XOF', 'live');
    await fund(account, 3_000);
    const req: TransferRequest = {
      sourceRef: ref('po_1:debit'),
      fromAccountId: account.id,
      toAccountId: fees.id,
      amount: 1_200,
      reason: 'payout',
    };
    const feesBefore = (await ledger.verify(fees.id)).balance;

    // The process dies after the intent and the debit leg: money has left, not yet arrived.
    const intent = await ledger.recordTransfer(req);
    await ledger.applyLeg(intent, 'debit');
    expect((await ledger.verify(account.id)).balance).toBe(1_800);
    expect((await ledger.verify(fees.id)).balance).toBe(feesBefore);

    // The activity is retried with the same sourceRef (here concurrently, from two "processes").
    const [a, b] = await Promise.all([ledgers[1]!.transfer(req), ledgers[2]!.transfer(req)]);
    expect([a.applied, b.applied].sort()).toEqual([false, true]);
    expect(a.transferId).toBe(intent.id);
    expect(await ledger.verify(account.id)).toEqual({ balance: 1_800, sumOfEntries: 1_800, entries: 2 });
    expect((await ledger.verify(fees.id)).balance).toBe(feesBefore + 1_200);
    expect((await ledger.transfer(req)).applied).toBe(false);
    // One intent, stored under its sourceRef; complete means both legs exist, once each.
    const m = ledgerModels(conns[0]!);
    expect(await m.transfers.countDocuments({ sourceRef: req.sourceRef }).exec()).toBe(1);
    expect((await m.transfers.findOne({ _id: req.sourceRef }).lean().exec())?.id).toBe(intent.id);
    const legs = await m.entries.find({ sourceRef: req.sourceRef }).lean().exec();
    expect(legs.map((l) => l.leg).sort()).toEqual(['credit', 'debit']);

    // Dying after the intent alone is completed the same way.
    const req2 = { ...req, sourceRef: ref('po_2:debit'), amount: 800 };
    await ledger.recordTransfer(req2);
    expect((await ledger.transfer(req2)).applied).toBe(true);
    expect(await ledger.verify(account.id)).toEqual({ balance: 1_000, sumOfEntries: 1_000, entries: 3 });
  });

  it('finds the real head behind a stale or missing head hint, and brings the hint forward', async () => {
    const account = await ledger.mainAccount(merchant(), 'XOF');
    const fees = await ledger.systemAccount('fees', 'XOF', 'live');
    const heads = ledgerModels(conns[0]!).heads;
    const hint = () => heads.findOne({ _id: account.id }, { _id: 0, seq: 1, balanceAfter: 1 }).lean().exec();
    const debit = (amount: number) => ({
      sourceRef: ref('po:debit'),
      fromAccountId: account.id,
      toAccountId: fees.id,
      amount,
      reason: 'payout',
    });
    // A new process: nothing remembered, so it starts from the stored hint.
    const freshProcess = async <T>(fn: (l: Ledger) => Promise<T>): Promise<T> => {
      const conn = await connectMongo(uri);
      try {
        return await fn(Ledger.on(conn));
      } finally {
        await conn.close();
      }
    };
    const setHint = (seq: number, balanceAfter: number) =>
      heads.updateOne({ _id: account.id }, { $set: { seq, balanceAfter } }).exec();

    // One hint scheme with the read chains (src/persistence/append-at-head.ts): the inserter of every
    // HINT_EVERY-th position writes it, a reader that finds it HINT_EVERY or more behind moves it.
    expect(HINT_EVERY).toBe(8);
    await fund(account, 1_000); // seq 1: 1,000
    expect(await hint()).toBeNull(); // seq 1 is not a hint position
    for (let seq = 2; seq <= 8; seq++) await fund(account, 100); // seq 8: 1,700
    expect(await hint()).toEqual({ seq: 8, balanceAfter: 1_700 }); // the writer of seq 8 leaves it
    await ledger.transfer(debit(1_600)); // seq 9: 100
    expect(await hint()).toEqual({ seq: 8, balanceAfter: 1_700 }); // not a hint position: behind

    // The hint still says 1,700. Trusting it would show 1,700 and let a debit of 500 through.
    expect(await freshProcess(async (l) => (await l.getAccount(account.id))!.balance)).toBe(100);
    await setHint(1, 1_000);
    expect(await freshProcess(async (l) => (await l.getAccount(account.id))!.balance)).toBe(100);
    expect(await hint()).toEqual({ seq: 9, balanceAfter: 100 }); // 8 behind: the reader brought it forward
    await setHint(1, 1_000);
    const refused = await freshProcess((l) => l.transfer(debit(500)).catch((e: unknown) => e));
    expect(refused).toBeInstanceOf(InsufficientFundsError);
    expect(refused).toMatchObject({ available: 100, requested: 500 });

    // Stale the other way: the hint says 100 while a credit brought the balance to 2,100. Refusing
    // on the hint would turn down a debit the account covers.
    await fund(account, 2_000); // seq 10: 2,100
    await setHint(9, 100);
    const applied = await freshProcess((l) => l.transfer(debit(1_500)));
    expect(applied).toMatchObject({ applied: true, fromBalance: 600 });

    // No hint at all (a process died before ever writing it): the chain is followed from seq 1.
    await heads.deleteOne({ _id: account.id }).exec();
    expect(await freshProcess((l) => l.verify(account.id))).toEqual({
      balance: 600,
      sumOfEntries: 600,
      entries: 11,
    });
    await heads.deleteOne({ _id: account.id }).exec();
    await freshProcess((l) => l.transfer(debit(600)));
    const entries = await allEntries(account.id);
    expectSoundChain(entries);
    expect(entries.map((e) => e.balanceAfter)).toEqual([
      1_000, 1_100, 1_200, 1_300, 1_400, 1_500, 1_600, 1_700, 100, 2_100, 600, 0,
    ]);
    // The appender found no hint, 11 positions behind: it wrote the head it probed (seq 11).
    expect(await hint()).toEqual({ seq: 11, balanceAfter: 600 });
  });

  it('refuses an overdraft and applies nothing; system accounts may go negative', async () => {
    const account = await ledger.mainAccount(merchant(), 'USD');
    const fees = await ledger.systemAccount('fees', 'USD', 'live');
    await fund(account, 1_050);
    const req: TransferRequest = {
      sourceRef: ref('po_3:debit'),
      fromAccountId: account.id,
      toAccountId: fees.id,
      amount: 1_051,
      reason: 'payout',
    };
    const err = await ledger.transfer(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientFundsError);
    expect(err).toMatchObject({ accountId: account.id, available: 1_050, requested: 1_051 });
    expect(await ledger.verify(account.id)).toEqual({ balance: 1_050, sumOfEntries: 1_050, entries: 1 });
    expect(await ledgerModels(conns[0]!).entries.countDocuments({ sourceRef: req.sourceRef }).exec()).toBe(0);

    const funding = await ledger.systemAccount('sandbox-funding', 'USD', 'live');
    expect((await ledger.getAccount(funding.id))!.balance).toBe(-1_050);
    await expect(
      ledger.transfer({
        ...req,
        sourceRef: ref('x'),
        fromAccountId: account.id,
        toAccountId: funding.id,
        amount: 0,
      }),
    ).rejects.toThrow(/positive integer/);
    const eur = await ledger.mainAccount(merchant(), 'EUR');
    await expect(
      ledger.transfer({ ...req, sourceRef: ref('x'), toAccountId: eur.id, amount: 1 }),
    ).rejects.toThrow(/currency mismatch/);
  });

  it('refuses to take payout-holds below zero, naming it; what went in may come out', async () => {
    const account = await ledger.mainAccount(merchant(), 'EUR');
    const holds = await ledger.systemAccount('payout-holds', 'EUR', 'live');
    const clearing = await ledger.systemAccount('operator-clearing', 'EUR', 'live');
    await fund(account, 500);
    await ledger.transfer({
      sourceRef: ref('hold'),
      fromAccountId: account.id,
      toAccountId: holds.id,
      amount: 500,
      reason: 'hold',
    });
    const req: TransferRequest = {
      sourceRef: ref('pr_9:payout-debit'),
      fromAccountId: holds.id,
      toAccountId: clearing.id,
      amount: 501,
      reason: 'payout from the hold',
    };
    const err = await ledger.transfer(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemAccountOverdrawnError);
    expect(err).not.toBeInstanceOf(InsufficientFundsError);
    expect(err).toMatchObject({
      accountName: 'payout-holds',
      accountId: holds.id,
      available: 500,
      requested: 501,
    });
    expect((err as Error).message).toMatch(/payout-holds/);
    expect(await ledgerModels(conns[0]!).entries.countDocuments({ sourceRef: req.sourceRef }).exec()).toBe(0);
    // Covered, it applies; operator-clearing, which mirrors money outside the ledger, may go negative.
    await ledger.transfer({ ...req, sourceRef: ref('pr_9:payout-debit'), amount: 500 });
    expect((await ledger.getAccount(holds.id))!.balance).toBe(0);
    await ledger.transfer({
      ...req,
      sourceRef: ref('pr_9:reversal'),
      fromAccountId: clearing.id,
      toAccountId: account.id,
      amount: 700,
    });
    expect((await ledger.getAccount(clearing.id))!.balance).toBe(clearing.balance - 200);
  });

  it('creates exactly one main account per merchant and currency under concurrency', async () => {
    const m = merchant();
    const got = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ledgers[i % WRITERS]!.mainAccount(m, 'XOF')),
    );
    expect(new Set(got.map((a) => a.id)).size).toBe(1);
    expect(await ledgerModels(conns[0]!).accounts.countDocuments({ merchantId: m }).exec()).toBe(1);

    const sub = await ledger.createSubAccount(m, 'XOF', 'payouts');
    expect(await ledger.createSubAccount(m, 'XOF', 'payouts')).toEqual(sub);
    const listed = await ledger.listAccounts(m);
    expect(listed.map((a) => [a.kind, a.name, a.currency, a.balance])).toEqual([
      ['main', 'main', 'XOF', 0],
      ['sub', 'payouts', 'XOF', 0],
    ]);
    expect(await ledger.getAccount('acc_unknown')).toBeNull();
  });

  it('pages a statement newest first and filters it by date', async () => {
    const account = await ledger.mainAccount(merchant(), 'XOF');
    for (let i = 1; i <= 5; i++) {
      await fund(account, i * 100);
      await new Promise((r) => setTimeout(r, 5)); // distinct createdAt for the date filter
    }
    const p1 = await ledger.entries(account.id, { limit: 2 });
    expect(p1.entries.map((e) => e.amount)).toEqual([500, 400]);
    const p2 = await ledger.entries(account.id, { limit: 2, cursor: p1.nextCursor! });
    const p3 = await ledger.entries(account.id, { limit: 2, cursor: p2.nextCursor! });
    expect(p2.entries.map((e) => e.amount)).toEqual([300, 200]);
    expect(p3).toMatchObject({ entries: [{ amount: 100, seq: 1 }], nextCursor: null });

    const third = p2.entries[0]!.createdAt;
    const since = await ledger.entries(account.id, { from: third });
    expect(since.entries.map((e) => e.amount)).toEqual([500, 400, 300]);
    const until = await ledger.entries(account.id, { to: third });
    expect(until.entries.map((e) => e.amount)).toEqual([300, 200, 100]);
    await expect(ledger.entries(account.id, { cursor: 'garbage' })).rejects.toThrow(/invalid cursor/);
  });
});
