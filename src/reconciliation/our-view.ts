import type { Refund } from '../domain/refund';
import type { Transaction } from '../domain/transaction';
import type { Ledger } from '../ledger';
import { payinNet, payinSourceRefs, payoutSourceRefs, refundSourceRefs } from '../ledger/postings';
import type { OurView } from './types';

// Our side of a reconciliation (reconcile.ts): a transaction or refund with the ledger movements
// its flow makes, each read by its fixed sourceRef (an `_id` lookup).

export async function transactionView(ledger: Ledger, tx: Transaction): Promise<OurView> {
  const refs: Record<string, string> =
    tx.kind === 'payin'
      ? { 'payin-credit': payinSourceRefs(tx.id).credit, 'payin-fee': payinSourceRefs(tx.id).fee }
      : {
          'payout-debit': payoutSourceRefs(tx.id).debit,
          'payout-fee': payoutSourceRefs(tx.id).fee,
          'payout-reversal': payoutSourceRefs(tx.id).reversal,
        };
  return {
    kind: tx.kind,
    merchantId: tx.merchantId,
    reference: tx.reference,
    status: tx.status,
    // A payin's operator collected chargedAmount (amount + fee when the customer pays the fee).
    amount: tx.kind === 'payin' ? tx.chargedAmount : tx.amount,
    currency: tx.currency,
    fee: tx.fee,
    failureCode: tx.failure?.code ?? null,
    ledger: await movements(ledger, refs),
    updatedAt: iso(tx.updatedAt),
  };
}

export async function refundView(ledger: Ledger, r: Refund): Promise<OurView> {
  const refs = refundSourceRefs(r.id);
  return {
    kind: 'refund',
    merchantId: r.merchantId,
    reference: r.payinReference,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    fee: r.fee,
    failureCode: r.failure?.code ?? null,
    ledger: await movements(ledger, {
      'refund-debit': refs.debit,
      'refund-fee': refs.fee,
      'refund-reversal': refs.reversal,
    }),
    updatedAt: iso(r.updatedAt),
  };
}

async function movements(
  ledger: Ledger,
  refs: Record<string, string>,
): Promise<Record<string, number | null>> {
  const found = await Promise.all(
    Object.entries(refs).map(
      async ([name, ref]) => [name, (await ledger.findTransfer(ref))?.amount ?? null] as const,
    ),
  );
  return Object.fromEntries(found);
}

/** Every movement a collected payin makes is recorded: the net credit and the fee (when not zero). */
export function isCredited(tx: Transaction, ours: OurView): boolean {
  return (
    (payinNet(tx) <= 0 || ours.ledger['payin-credit'] !== null) &&
    (tx.fee <= 0 || ours.ledger['payin-fee'] !== null)
  );
}

function iso(d: Date | string | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}
