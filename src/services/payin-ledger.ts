import type { Ledger } from '../ledger';
import type { Transaction } from '../domain/transaction';

// The credit of a collected payin, written once for everyone who may make it: the payin's workflow
// (the operator answered completed, or its partner found the funds) and reconciliation (the
// operator's books say completed after we ended the payin). Each movement has a fixed sourceRef,
// so whoever comes first applies it and the other's call changes nothing.
//   credit: operator-clearing -> merchant main account, the net amount (fee deducted if payFee)
//   fee:    operator-clearing -> fees, the fee

export const payinSourceRefs = (id: string) => ({
  credit: `${id}:payin-credit`,
  fee: `${id}:payin-fee`,
});

/** The net amount the merchant gets for a payin: the fee is deducted when the merchant pays it. */
export function payinNet(tx: Pick<Transaction, 'amount' | 'fee' | 'payFee'>): number {
  return tx.payFee ? tx.amount - tx.fee : tx.amount;
}

/** Credits the merchant for a collected payin: net to its main account, fee to fees, once each. */
export async function creditPayin(
  ledger: Ledger,
  tx: Transaction,
): Promise<{ credited: number; fee: number }> {
  const refs = payinSourceRefs(tx.id);
  const clearing = await ledger.systemAccountId('operator-clearing', tx.currency);
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
    const fees = await ledger.systemAccountId('fees', tx.currency);
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
