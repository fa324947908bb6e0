import { randomUUID } from 'node:crypto';
import { modeOfScope } from '../domain/modes';
import type { Currency, MinorAmount } from '../domain/money';
import type { Refund } from '../domain/refund';
import type { Transaction } from '../domain/transaction';
import type { Ledger } from './ledger';
import type { TransferResult } from './types';

// Every money movement of every flow, named as its business step, each under its source reference:
// the ledger's idempotency key (the transfer's `_id`), so whoever makes a movement first (the API,
// an activity, its retry, a replay, reconciliation) applies it and every other call changes nothing.
// The references are stored in existing ledgers and checked by reconciliation: never change one.
//
//   payin   credit     operator-clearing -> merchant main   net (amount − fee when the merchant pays it)
//           fee        operator-clearing -> fees            fee
//   payout  debit      merchant account  -> clearing        chargedAmount (before the operator is asked)
//           fee        operator-clearing -> fees            fee (the beneficiary was paid)
//           reversal   operator-clearing -> merchant account chargedAmount (failed or expired)
//   refund  debit      merchant main     -> clearing        amount + fee (before the refund is stored)
//           fee        operator-clearing -> fees            fee (the customer was credited)
//           reversal   operator-clearing -> merchant main   amount + fee (the refund failed)
//   sandbox funding    sandbox-funding   -> merchant main   any amount (`accounts fund`; sandbox only)
//
// A reconciliation correction (the operator's books say a payin we ended was collected) is the
// payin's own credit, under the same references: creditPayin.
//
// The system accounts (clearing, fees, sandbox funding) are those of the flow's mode (its merchant
// scope, src/domain/modes.ts): test money and live money never meet in the platform's books.
//
// The debits are the only movements that can be refused: they throw InsufficientFundsError and
// apply nothing (the other movements leave system accounts, which may go below zero, except
// `payout-holds`: a debit of it that it does not cover throws SystemAccountOverdrawnError).

/** The fixed source references of each flow's movements, by the flow's own id (tx_…, pr_…, rf_…). */
export const sourceRefs = {
  payin: (payinId: string) => ({
    credit: `${payinId}:payin-credit`,
    fee: `${payinId}:payin-fee`,
  }),
  payout: (payoutId: string) => ({
    debit: `${payoutId}:payout-debit`,
    fee: `${payoutId}:payout-fee`,
    reversal: `${payoutId}:payout-reversal`,
  }),
  refund: (refundId: string) => ({
    debit: `${refundId}:refund-debit`,
    fee: `${refundId}:refund-fee`,
    reversal: `${refundId}:refund-reversal`,
  }),
  /** A new reference per call: each `accounts fund` is a funding of its own, never a retry. */
  sandboxFunding: () => `fund:${randomUUID()}`,
};

export const payinSourceRefs = sourceRefs.payin;
export const payoutSourceRefs = sourceRefs.payout;
export const refundSourceRefs = sourceRefs.refund;

// ---- payins ----

/** The net amount the merchant gets for a payin: the fee is deducted when the merchant pays it. */
export function payinNet(tx: Pick<Transaction, 'amount' | 'fee' | 'payFee'>): MinorAmount {
  return tx.payFee ? tx.amount - tx.fee : tx.amount;
}

/**
 * Credits the merchant for a collected payin: net to its main account, fee to fees, once each.
 * Made by the payin's workflow (the operator answered completed, or its partner found the funds)
 * and by reconciliation's correction (the operator's books say completed after we ended the payin).
 */
export async function creditPayin(
  ledger: Ledger,
  tx: Transaction,
): Promise<{ credited: MinorAmount; fee: MinorAmount }> {
  const refs = sourceRefs.payin(tx.id);
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency, modeOfScope(tx.merchantId));
  const main = await ledger.mainAccountId(tx.merchantId, tx.currency);
  const net = payinNet(tx);
  if (net > 0) {
    await ledger.transfer({
      sourceRef: refs.credit,
      fromAccountId: clearing,
      toAccountId: main,
      amount: net,
      reason: `payin ${tx.reference}`,
      transactionId: tx.id,
    });
  }
  if (tx.fee > 0) {
    const fees = await ledger.systemAccountId('fees', tx.currency, modeOfScope(tx.merchantId));
    await ledger.transfer({
      sourceRef: refs.fee,
      fromAccountId: clearing,
      toAccountId: fees,
      amount: tx.fee,
      reason: `payin fee ${tx.reference}`,
      transactionId: tx.id,
    });
  }
  return { credited: net, fee: tx.fee };
}

// ---- payouts ----
// The API debits before the workflow starts, and the workflow re-checks the same debit: one
// movement, since both use its reference (docs/payouts.md).

function payoutAccountOf(tx: Transaction): string {
  if (tx.kind !== 'payout' || !tx.payout) throw new Error(`transaction ${tx.id} is not a payout`);
  return tx.payout.accountId;
}

/**
 * Reserves the payout's gross amount (chargedAmount, fee included) in operator clearing. Throws
 * InsufficientFundsError (nothing applied) when the account does not cover it.
 */
export async function debitPayout(ledger: Ledger, tx: Transaction): Promise<TransferResult> {
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency, modeOfScope(tx.merchantId));
  return ledger.transfer({
    sourceRef: sourceRefs.payout(tx.id).debit,
    fromAccountId: tx.payout?.fundedFrom ?? payoutAccountOf(tx),
    toAccountId: clearing,
    amount: tx.chargedAmount,
    reason: `payout ${tx.reference}`,
    transactionId: tx.id,
  });
}

/** The fee becomes the platform's once the beneficiary was paid. */
export async function settlePayoutFee(ledger: Ledger, tx: Transaction): Promise<TransferResult | null> {
  if (tx.fee <= 0) return null;
  const [clearing, fees] = await Promise.all([
    ledger.systemAccountId('operator-clearing', tx.currency, modeOfScope(tx.merchantId)),
    ledger.systemAccountId('fees', tx.currency, modeOfScope(tx.merchantId)),
  ]);
  return ledger.transfer({
    sourceRef: sourceRefs.payout(tx.id).fee,
    fromAccountId: clearing,
    toAccountId: fees,
    amount: tx.fee,
    reason: `payout fee ${tx.reference}`,
    transactionId: tx.id,
  });
}

/** The gross amount (chargedAmount, fees included) back to the account debited: failed or expired. */
export async function reversePayout(ledger: Ledger, tx: Transaction): Promise<TransferResult> {
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency, modeOfScope(tx.merchantId));
  return ledger.transfer({
    sourceRef: sourceRefs.payout(tx.id).reversal,
    fromAccountId: clearing,
    toAccountId: payoutAccountOf(tx),
    amount: tx.chargedAmount,
    reason: `payout reversal ${tx.reference}`,
    transactionId: tx.id,
  });
}

// ---- refunds ----

/** What a refund's movements need of it: known before the refund is stored (its debit comes first). */
export type RefundMoney = Pick<
  Refund,
  'id' | 'merchantId' | 'currency' | 'amount' | 'fee' | 'externalReference' | 'payinReference'
>;

/**
 * Debits the merchant's main account for a refund, amount + refund fee, before the refund is stored:
 * a refund the balance cannot cover leaves no record. Throws InsufficientFundsError (nothing applied).
 */
export async function debitRefund(ledger: Ledger, r: RefundMoney): Promise<TransferResult> {
  const main = await ledger.mainAccountId(r.merchantId, r.currency);
  const clearing = await ledger.systemAccountId('operator-clearing', r.currency, modeOfScope(r.merchantId));
  return ledger.transfer({
    sourceRef: sourceRefs.refund(r.id).debit,
    fromAccountId: main,
    toAccountId: clearing,
    amount: r.amount + r.fee,
    reason: `refund ${r.externalReference} of payin ${r.payinReference}`,
    transactionId: r.id,
  });
}

/** The customer was credited: the refund fee (if any) leaves clearing for the fees account. */
export async function settleRefundFee(ledger: Ledger, r: RefundMoney): Promise<TransferResult | null> {
  if (r.fee <= 0) return null;
  return ledger.transfer({
    sourceRef: sourceRefs.refund(r.id).fee,
    fromAccountId: await ledger.systemAccountId('operator-clearing', r.currency, modeOfScope(r.merchantId)),
    toAccountId: await ledger.systemAccountId('fees', r.currency, modeOfScope(r.merchantId)),
    amount: r.fee,
    reason: `refund fee ${r.externalReference}`,
    transactionId: r.id,
  });
}

/** Credits the merchant back what was debited for a failed refund (amount + fee). */
export async function reverseRefund(ledger: Ledger, r: RefundMoney): Promise<TransferResult> {
  return ledger.transfer({
    sourceRef: sourceRefs.refund(r.id).reversal,
    fromAccountId: await ledger.systemAccountId('operator-clearing', r.currency, modeOfScope(r.merchantId)),
    toAccountId: await ledger.mainAccountId(r.merchantId, r.currency),
    amount: r.amount + r.fee,
    reason: `reversal of failed refund ${r.externalReference}`,
    transactionId: r.id,
  });
}

// ---- sandbox ----

/**
 * Credits a merchant's main account from the sandbox funding account (`accounts fund`, test set-ups).
 * The caller checks the deployment is a sandbox: this is money from nowhere.
 */
export async function fundFromSandbox(
  ledger: Ledger,
  f: {
    merchantId: string;
    currency: Currency;
    amount: MinorAmount;
    reason: string;
    metadata?: Record<string, unknown>;
  },
): Promise<TransferResult & { sourceRef: string; accountId: string }> {
  const accountId = await ledger.mainAccountId(f.merchantId, f.currency);
  const sourceRef = sourceRefs.sandboxFunding();
  const result = await ledger.transfer({
    sourceRef,
    fromAccountId: await ledger.systemAccountId('sandbox-funding', f.currency, modeOfScope(f.merchantId)),
    toAccountId: accountId,
    amount: f.amount,
    reason: f.reason,
    ...(f.metadata ? { metadata: f.metadata } : {}),
  });
  return { ...result, sourceRef, accountId };
}
