import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { InsufficientFundsError, Ledger, type TransferDoc } from '../../src/ledger';
import {
  creditPayin,
  debitPayout,
  debitRefund,
  fundFromSandbox,
  reversePayout,
  reverseRefund,
  settlePayoutFee,
  settleRefundFee,
  type RefundMoney,
} from '../../src/ledger/postings';
import type { Transaction } from '../../src/domain/transaction';
import { modeOfScope } from '../../src/domain/modes';

// Every movement of src/ledger/postings.ts against the real FerretDB, found again under its source
// reference written out literally here: existing ledgers, reconciliation and running histories
// depend on these strings, so changing one fails this test.

describe('ledger postings: each movement under its fixed source reference', () => {
  let conn: Connection;
  let ledger: Ledger;

  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    conn = await connectMongo(`${base}/t_${randomBytes(6).toString('hex')}`);
    ledger = Ledger.on(conn);
    await ledger.init();
  });
  afterAll(async () => {
    await conn?.close();
  });

  const hex = () => randomBytes(6).toString('hex');
  const ids = async (merchantId: string) => ({
    main: await ledger.mainAccountId(merchantId, 'XOF'),
    clearing: await ledger.systemAccountId('operator-clearing', 'XOF', modeOfScope(merchantId)),
    fees: await ledger.systemAccountId('fees', 'XOF', modeOfScope(merchantId)),
    funding: await ledger.systemAccountId('sandbox-funding', 'XOF', modeOfScope(merchantId)),
  });
  /** The movement stored under `sourceRef`, with only the fields that say what moved. */
  const movement = async (sourceRef: string) => {
    const t: TransferDoc | null = await ledger.findTransfer(sourceRef);
    if (!t) throw new Error(`no movement under ${sourceRef}`);
    return {
      from: t.fromAccountId,
      to: t.toAccountId,
      amount: t.amount,
      reason: t.reason,
      tx: t.transactionId,
    };
  };
  const balance = async (id: string) => (await ledger.getAccount(id))!.balance;

  const funded = async (amount: number) => {
    const merchantId = `mer_${hex()}`;
    const a = await ids(merchantId);
    const f = await fundFromSandbox(ledger, { merchantId, currency: 'XOF', amount, reason: 'test funding' });
    expect(f.sourceRef).toMatch(/^fund:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(f.accountId).toBe(a.main);
    expect(await movement(f.sourceRef)).toEqual({
      from: a.funding,
      to: a.main,
      amount,
      reason: 'test funding',
      tx: null,
    });
    return { merchantId, a };
  };

  it('payin: <id>:payin-credit (net) and <id>:payin-fee, each applied once', async () => {
    const merchantId = `mer_${hex()}`;
    const a = await ids(merchantId);
    const id = `tx_${hex()}`;
    const tx = {
      id,
      merchantId,
      kind: 'payin',
      currency: 'XOF',
      reference: 'order-1',
      amount: 1_000,
      fee: 15,
      payFee: true,
    } as Transaction;
    expect(await creditPayin(ledger, tx)).toEqual({ credited: 985, fee: 15 });
    expect(await creditPayin(ledger, tx)).toEqual({ credited: 985, fee: 15 }); // a retry: nothing moves
    expect(await movement(`${id}:payin-credit`)).toEqual({
      from: a.clearing,
      to: a.main,
      amount: 985,
      reason: 'payin order-1',
      tx: id,
    });
    expect(await movement(`${id}:payin-fee`)).toEqual({
      from: a.clearing,
      to: a.fees,
      amount: 15,
      reason: 'payin fee order-1',
      tx: id,
    });
    expect(await balance(a.main)).toBe(985);
  });

  it('payout: <id>:payout-debit, <id>:payout-fee, <id>:payout-reversal; a debit not covered is refused', async () => {
    const { merchantId, a } = await funded(2_000);
    const id = `pr_${hex()}`;
    const tx = {
      id,
      merchantId,
      kind: 'payout',
      currency: 'XOF',
      reference: 'po-1',
      amount: 1_000,
      fee: 10,
      chargedAmount: 1_010,
      payFee: true,
      payout: { accountId: a.main },
    } as Transaction;
    expect((await debitPayout(ledger, tx)).applied).toBe(true);
    expect((await debitPayout(ledger, tx)).applied).toBe(false);
    expect(await movement(`${id}:payout-debit`)).toEqual({
      from: a.main,
      to: a.clearing,
      amount: 1_010,
      reason: 'payout po-1',
      tx: id,
    });
    await settlePayoutFee(ledger, tx);
    expect(await movement(`${id}:payout-fee`)).toEqual({
      from: a.clearing,
      to: a.fees,
      amount: 10,
      reason: 'payout fee po-1',
      tx: id,
    });
    await reversePayout(ledger, tx);
    expect(await movement(`${id}:payout-reversal`)).toEqual({
      from: a.clearing,
      to: a.main,
      amount: 1_010,
      reason: 'payout reversal po-1',
      tx: id,
    });
    expect(await balance(a.main)).toBe(2_000);

    const tooBig = { ...tx, id: `pr_${hex()}`, chargedAmount: 2_001 };
    await expect(debitPayout(ledger, tooBig)).rejects.toBeInstanceOf(InsufficientFundsError);
    expect(await balance(a.main)).toBe(2_000);
  });

  it('refund: <id>:refund-debit (amount + fee), <id>:refund-fee, <id>:refund-reversal', async () => {
    const { merchantId, a } = await funded(1_000);
    const id = `rf_${hex()}`;
    const r: RefundMoney = {
      id,
      merchantId,
      currency: 'XOF',
      amount: 500,
      fee: 5,
      externalReference: 'ext-1',
      payinReference: 'order-2',
    };
    expect((await debitRefund(ledger, r)).applied).toBe(true);
    expect((await debitRefund(ledger, r)).applied).toBe(false);
    expect(await movement(`${id}:refund-debit`)).toEqual({
      from: a.main,
      to: a.clearing,
      amount: 505,
      reason: 'refund ext-1 of payin order-2',
      tx: id,
    });
    await settleRefundFee(ledger, r);
    expect(await movement(`${id}:refund-fee`)).toEqual({
      from: a.clearing,
      to: a.fees,
      amount: 5,
      reason: 'refund fee ext-1',
      tx: id,
    });
    await reverseRefund(ledger, r);
    expect(await movement(`${id}:refund-reversal`)).toEqual({
      from: a.clearing,
      to: a.main,
      amount: 505,
      reason: 'reversal of failed refund ext-1',
      tx: id,
    });
    expect(await balance(a.main)).toBe(1_000);

    await expect(debitRefund(ledger, { ...r, id: `rf_${hex()}`, amount: 1_001 })).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
  });
});
