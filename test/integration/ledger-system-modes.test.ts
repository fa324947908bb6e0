import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { scopeOf } from '../../src/domain/modes';
import { newId } from '../../src/domain/ids';
import type { Currency } from '../../src/domain/money';
import type { Transaction } from '../../src/domain/transaction';
import { accountKeys, Ledger, parseAccountKey, type SystemAccountName } from '../../src/ledger';
import { ledgerModels, type AccountDoc } from '../../src/ledger/models';
import { creditPayin, debitRefund, fundFromSandbox } from '../../src/ledger/postings';
import { connectMongo } from '../../src/persistence/mongo';

// The platform's own accounts (operator clearing, fees, sandbox funding, payout holds) are kept per
// mode: test money never moves through the accounts live money does. The accounts a database holds
// from before, shared by both modes, are split at start: each mode's share moves to its own account,
// with transfers, once, whatever the concurrency, and nothing is created or lost.

const hex = () => randomBytes(6).toString('hex');

async function database(): Promise<{ uri: string; conn: Connection }> {
  const base = process.env.TEST_MONGODB_URL;
  if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
  const uri = `${base}/t_${hex()}`;
  return { uri, conn: await connectMongo(uri) };
}

const payin = (merchantId: string, amount: number, fee: number) =>
  ({
    id: `pr_${hex()}`,
    merchantId,
    kind: 'payin',
    currency: 'XOF',
    reference: `order-${hex()}`,
    amount,
    fee,
    payFee: true,
  }) as Transaction;

describe('system accounts keyed by mode', () => {
  const conns: Connection[] = [];
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close()));
  });

  it('moves a test payin and a live payin through different clearing and fees accounts', async () => {
    const { conn } = await database();
    conns.push(conn);
    const ledger = Ledger.on(conn);
    await ledger.init();
    const merchant = `mer_${hex()}`;
    const live = payin(scopeOf(merchant, 'live'), 10_000, 150);
    const test = payin(scopeOf(merchant, 'test'), 7_000, 70);
    await creditPayin(ledger, live);
    await creditPayin(ledger, test);
    const liveFee = (await ledger.findTransfer(`${live.id}:payin-fee`))!;
    const testFee = (await ledger.findTransfer(`${test.id}:payin-fee`))!;
    expect(testFee.fromAccountId).not.toBe(liveFee.fromAccountId);
    expect(testFee.toAccountId).not.toBe(liveFee.toAccountId);
    // The platform's fees, per mode: only that mode's money.
    expect((await ledger.getAccount(liveFee.toAccountId))!.balance).toBe(150);
    expect((await ledger.getAccount(testFee.toAccountId))!.balance).toBe(70);
    expect((await ledger.getAccount(liveFee.fromAccountId))!.balance).toBe(-10_000);
    expect((await ledger.getAccount(testFee.fromAccountId))!.balance).toBe(-7_000);
  });

  it('keeps the name part of a system account recognisable: one key builder, one parser', async () => {
    expect(accountKeys.system('test', 'payout-holds', 'XOF')).toBe('system:test:payout-holds:XOF');
    expect(parseAccountKey(accountKeys.system('live', 'payout-holds', 'XOF'))).toEqual({
      kind: 'system',
      mode: 'live',
      name: 'payout-holds',
      currency: 'XOF',
    });
    expect(parseAccountKey(accountKeys.sharedSystem('fees', 'USD'))).toEqual({
      kind: 'system',
      mode: null,
      name: 'fees',
      currency: 'USD',
    });
    expect(parseAccountKey('sub:mer_1_test:XOF:a:b')).toEqual({
      kind: 'sub',
      merchantId: 'mer_1_test',
      currency: 'XOF',
      name: 'a:b',
    });
    const { conn } = await database();
    conns.push(conn);
    const ledger = Ledger.on(conn);
    await ledger.init();
    const holds = await ledger.systemAccount('payout-holds', 'XOF', 'test');
    expect(holds).toMatchObject({ kind: 'system', name: 'payout-holds', merchantId: null });
    const doc = await ledgerModels(conn).accounts.findOne({ id: holds.id }).lean<AccountDoc>().exec();
    expect(doc).toMatchObject({ key: 'system:test:payout-holds:XOF', name: 'payout-holds', mode: 'test' });
  });

  it('splits the accounts an older version shared by both modes: each mode its share, once, nothing created or lost', async () => {
    const { uri, conn } = await database();
    conns.push(conn);
    const m = ledgerModels(conn);
    const ledger = Ledger.on(conn);
    await ledger.init();

    // The shared accounts as the previous version created them (key system:<name>:<currency>).
    const shared = async (name: SystemAccountName, currency: Currency = 'XOF'): Promise<string> => {
      const key = accountKeys.sharedSystem(name, currency);
      const doc = { id: newId('acc'), key, merchantId: null, currency, kind: 'system' as const, name };
      await m.accounts.collection.insertOne({ _id: key, ...doc, createdAt: new Date() } as never);
      await m.accountIds.collection.insertOne({ _id: doc.id, key } as never);
      return doc.id;
    };
    const old = {
      clearing: await shared('operator-clearing'),
      fees: await shared('fees'),
      funding: await shared('sandbox-funding'),
      holds: await shared('payout-holds'),
    };
    const merchant = `mer_${hex()}`;
    const liveScope = scopeOf(merchant, 'live');
    const testScope = scopeOf(merchant, 'test');
    const liveMain = await ledger.mainAccountId(liveScope, 'XOF');
    const testMain = await ledger.mainAccountId(testScope, 'XOF');
    const owners = new Map<string, string>();
    const move = async (
      sourceRef: string,
      from: string,
      to: string,
      amount: number,
      transactionId?: { id: string; scope: string },
    ) => {
      if (transactionId) owners.set(transactionId.id, transactionId.scope);
      await ledger.transfer({
        sourceRef,
        fromAccountId: from,
        toAccountId: to,
        amount,
        reason: 'as the previous version posted it',
        ...(transactionId ? { transactionId: transactionId.id } : {}),
      });
    };
    // What the previous version posted: a test funding, payins of both modes and their fees, a live
    // payout (its fee moves between two system accounts only) and a test bulk hold and release.
    await move(`fund:${hex()}`, old.funding, testMain, 50_000);
    const lp = { id: `pr_${hex()}`, scope: liveScope };
    await move(`${lp.id}:payin-credit`, old.clearing, liveMain, 9_800, lp);
    await move(`${lp.id}:payin-fee`, old.clearing, old.fees, 200, lp);
    const tp = { id: `pr_${hex()}`, scope: testScope };
    await move(`${tp.id}:payin-credit`, old.clearing, testMain, 4_950, tp);
    await move(`${tp.id}:payin-fee`, old.clearing, old.fees, 50, tp);
    const lo = { id: `pr_${hex()}`, scope: liveScope };
    await move(`${lo.id}:payout-debit`, liveMain, old.clearing, 3_030, lo);
    await move(`${lo.id}:payout-fee`, old.clearing, old.fees, 30, lo);
    await move(`pb_${hex()}:hold`, testMain, old.holds, 6_000);
    await move(`pb_${hex()}:release`, old.holds, testMain, 1_000);
    // A movement between two shared accounts whose transaction is unknown: its mode cannot be told.
    await move(`mystery:${hex()}`, old.clearing, old.fees, 7, { id: `pr_${hex()}`, scope: '' });

    const before = await totals(ledger, m);
    const scopeOf_ = (id: string) => Promise.resolve(owners.get(id) || null);

    // Two processes start at once (two connections), then one restarts: one split.
    const other = await connectMongo(uri);
    conns.push(other);
    const otherLedger = Ledger.on(other);
    await otherLedger.init();
    const reports = await Promise.all([
      ledger.splitSharedSystemAccounts(scopeOf_),
      otherLedger.splitSharedSystemAccounts(scopeOf_),
    ]);
    const again = await ledger.splitSharedSystemAccounts(scopeOf_);
    const moved = [...reports, again].flatMap((r) => r.moved).filter((x) => x.amount !== 0);
    expect(again.moved.every((x) => x.amount === 0)).toBe(true);
    expect(again.unresolvedEntries).toBe(2); // its two legs, in clearing and in fees

    const bal = async (name: SystemAccountName, mode: 'test' | 'live') =>
      (await ledger.systemAccount(name, 'XOF', mode)).balance;
    const sharedBalance = async (id: string) => (await ledger.getAccount(id))!.balance;
    // Each mode's account holds exactly that mode's money.
    expect(await bal('operator-clearing', 'live')).toBe(-9_800 - 200 + 3_030 - 30);
    expect(await bal('operator-clearing', 'test')).toBe(-4_950 - 50);
    expect(await bal('fees', 'live')).toBe(200 + 30);
    expect(await bal('fees', 'test')).toBe(50);
    expect(await bal('sandbox-funding', 'test')).toBe(-50_000);
    expect(await bal('sandbox-funding', 'live')).toBe(0);
    expect(await bal('payout-holds', 'test')).toBe(5_000);
    expect(await bal('payout-holds', 'live')).toBe(0);
    // The shared accounts keep only what could not be told apart.
    expect(await sharedBalance(old.clearing)).toBe(-7);
    expect(await sharedBalance(old.fees)).toBe(7);
    expect(await sharedBalance(old.funding)).toBe(0);
    expect(await sharedBalance(old.holds)).toBe(0);
    // Merchant accounts untouched, money neither created nor lost, one move per mode and account.
    expect(await sharedBalance(liveMain)).toBe(9_800 - 3_030);
    expect(await sharedBalance(testMain)).toBe(50_000 + 4_950 - 6_000 + 1_000);
    const after = await totals(ledger, m);
    expect(after.sum).toBe(0);
    expect(before.sum).toBe(0);
    expect(after.merchant).toBe(before.merchant);
    expect(moved.map((x) => `${x.key}:${x.mode}`).sort()).toEqual(
      [
        'system:fees:XOF:live',
        'system:fees:XOF:test',
        'system:operator-clearing:XOF:live',
        'system:operator-clearing:XOF:test',
        'system:payout-holds:XOF:test',
        'system:sandbox-funding:XOF:test',
      ].sort(),
    );

    // A process of the previous version still running posts to a shared account afterwards: the
    // next start moves that too, and only that.
    const late = { id: `pr_${hex()}`, scope: liveScope };
    await move(`${late.id}:payin-credit`, old.clearing, liveMain, 1_000, late);
    await ledger.splitSharedSystemAccounts(scopeOf_);
    expect(await bal('operator-clearing', 'live')).toBe(-9_800 - 200 + 3_030 - 30 - 1_000);
    expect(await sharedBalance(old.clearing)).toBe(-7);
    expect((await totals(ledger, m)).sum).toBe(0);
    for (const id of Object.values(old)) {
      const v = await ledger.verify(id);
      expect(v.balance).toBe(v.sumOfEntries);
    }
  });

  it('changes nothing where no account was ever shared', async () => {
    const { conn } = await database();
    conns.push(conn);
    const ledger = Ledger.on(conn);
    await ledger.init();
    const merchant = scopeOf(`mer_${hex()}`, 'test');
    await fundFromSandbox(ledger, {
      merchantId: merchant,
      currency: 'XOF',
      amount: 5_000,
      reason: 'funding',
    });
    await debitRefund(ledger, {
      id: `rf_${hex()}`,
      merchantId: merchant,
      currency: 'XOF',
      amount: 1_000,
      fee: 0,
      externalReference: 'r-1',
      payinReference: 'p-1',
    });
    const report = await ledger.splitSharedSystemAccounts(() => Promise.resolve(null));
    expect(report).toEqual({ accounts: [], moved: [], unresolvedEntries: 0, refused: [] });
  });
});

/** The sum of every account's balance (0 in double entry), and of the merchant accounts alone. */
async function totals(ledger: Ledger, m: ReturnType<typeof ledgerModels>) {
  const docs = await m.accounts.find({}).lean<AccountDoc[]>().exec();
  let sum = 0;
  let merchant = 0;
  for (const d of docs) {
    const b = (await ledger.getAccount(d.id))!.balance;
    sum += b;
    if (d.merchantId) merchant += b;
  }
  return { sum, merchant };
}
