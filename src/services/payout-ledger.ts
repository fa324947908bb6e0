import type { Ledger, TransferResult } from '../ledger';
import type { Transaction } from '../domain/transaction';

// The three money movements of a payout, each under a fixed sourceRef derived from the payout id,
// so the API's debit, the workflow's re-check of it, an activity retry or a replay after a worker
// restart all apply each movement at most once (docs/payouts.md).
//   debit:    merchant account -> operator-clearing, chargedAmount (before the operator is asked)
//   fee:      operator-clearing -> fees, fee (once the operator paid the beneficiary)
//   reversal: operator-clearing -> merchant account, chargedAmount (failed or expired)

export const payoutSourceRefs = (id: string) => ({
  debit: `${id}:payout-debit`,
  fee: `${id}:payout-fee`,
  reversal: `${id}:payout-reversal`,
});

function accountOf(tx: Transaction): string {
  if (tx.kind !== 'payout' || !tx.payout) throw new Error(`transaction ${tx.id} is not a payout`);
  return tx.payout.accountId;
}

/** Throws InsufficientFundsError (nothing applied) when the account does not cover chargedAmount. */
export async function debitPayout(ledger: Ledger, tx: Transaction): Promise<TransferResult> {
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency);
  return ledger.transfer({
    sourceRef: payoutSourceRefs(tx.id).debit,
    fromAccountId: accountOf(tx),
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
    ledger.systemAccountId('operator-clearing', tx.currency),
    ledger.systemAccountId('fees', tx.currency),
  ]);
  return ledger.transfer({
    sourceRef: payoutSourceRefs(tx.id).fee,
    fromAccountId: clearing,
    toAccountId: fees,
    amount: tx.fee,
    reason: `payout fee ${tx.reference}`,
    transactionId: tx.id,
  });
}

/** The gross amount (chargedAmount, fees included) back to the account debited. */
export async function reversePayout(ledger: Ledger, tx: Transaction): Promise<TransferResult> {
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency);
  return ledger.transfer({
    sourceRef: payoutSourceRefs(tx.id).reversal,
    fromAccountId: clearing,
    toAccountId: accountOf(tx),
    amount: tx.chargedAmount,
    reason: `payout reversal ${tx.reference}`,
    transactionId: tx.id,
  });
}
