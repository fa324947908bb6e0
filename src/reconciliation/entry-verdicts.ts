import type { Refund } from '../domain/refund';
import type { Transaction } from '../domain/transaction';
import type { StatementEntry } from '../operators/gateway';
import type { Finding, FindingAction, MismatchClass, OurView } from './types';

// What one statement entry against our view of it says (reconcile.ts): matched, or a finding with
// its class, action and a detail for a person. Pure: the lookups and the one correction that
// writes live in reconcile.ts.

export type Outcome = { matched: true; pending: boolean } | { finding: Finding };

export function finding(
  cls: MismatchClass,
  e: StatementEntry,
  ours: OurView | null,
  action: FindingAction,
  detail: string,
): { finding: Finding } {
  return {
    finding: {
      class: cls,
      kind: e.kind,
      id: e.id,
      action,
      needsPerson: action === 'needs_person',
      detail,
      operator: e,
      ours,
    },
  };
}

export function examineDisbursement(e: StatementEntry, tx: Transaction, ours: OurView): Outcome {
  const reversed = ours.ledger['payout-reversal'] !== null || tx.status === 'reversed';
  if (e.status === 'completed') {
    if (reversed || tx.status === 'failed' || tx.status === 'expired')
      return finding(
        'paid_but_reversed',
        e,
        ours,
        'needs_person',
        `The operator paid the beneficiary; the payout is ${tx.status} and the merchant ${reversed ? 'was' : 'is being'} given back ${tx.chargedAmount} ${tx.currency}.`,
      );
    if (tx.status === 'completed') return { matched: true, pending: false };
    return ourSideBehind(e, ours, tx.status);
  }
  if (e.status === 'failed') {
    if (tx.status === 'completed')
      return finding(
        'failed_but_completed',
        e,
        ours,
        'needs_person',
        `The operator failed the disbursement (${e.failureCode ?? 'no code'}); the payout is completed here and the merchant was charged.`,
      );
    if (reversed) return { matched: true, pending: false };
    return ourSideBehind(e, ours, tx.status);
  }
  if (tx.status === 'completed' || reversed)
    return finding(
      'pending_at_operator',
      e,
      ours,
      'needs_person',
      `The payout is ${tx.status} here; the operator still has the disbursement pending.`,
    );
  return { matched: true, pending: true };
}

export function examineRefund(e: StatementEntry, ours: OurView, refund: Refund): Outcome {
  if (e.amount !== ours.amount || e.currency !== ours.currency)
    return finding('amount_mismatch', e, ours, 'needs_person', amountDetail(e, ours));
  const reversed = ours.ledger['refund-reversal'] !== null || refund.status === 'reversed';
  if (e.status === 'completed') {
    if (reversed || refund.status === 'failed')
      return finding(
        'refunded_but_reversed',
        e,
        ours,
        'needs_person',
        `The operator refunded the customer; the refund is ${refund.status} here and the merchant ${reversed ? 'was' : 'is being'} credited back.`,
      );
    if (refund.status === 'completed') return { matched: true, pending: false };
    return ourSideBehind(e, ours, refund.status);
  }
  if (e.status === 'failed') {
    if (refund.status === 'completed')
      return finding(
        'failed_but_completed',
        e,
        ours,
        'needs_person',
        `The operator failed the refund (${e.failureCode ?? 'no code'}); it is completed here and the merchant was debited.`,
      );
    if (reversed) return { matched: true, pending: false };
    return ourSideBehind(e, ours, refund.status);
  }
  if (refund.status !== 'processing')
    return finding(
      'pending_at_operator',
      e,
      ours,
      'needs_person',
      `The refund is ${refund.status} here; the operator still has it pending.`,
    );
  return { matched: true, pending: true };
}

function ourSideBehind(e: StatementEntry, ours: OurView, status: string): Outcome {
  return finding(
    'pending_on_our_side',
    e,
    ours,
    'in_progress',
    `The operator is final (${e.status}); ours is ${status} and its workflow will read the answer.`,
  );
}

export function unknownToUs(e: StatementEntry): Outcome {
  return finding(
    'unknown_to_us',
    e,
    null,
    'needs_person',
    `The operator lists a ${e.kind} ${e.status} of ${e.amount} ${e.currency} under an id we do not hold.`,
  );
}

export function amountDetail(e: StatementEntry, ours: OurView): string {
  return `The operator has ${e.amount} ${e.currency}; we have ${ours.amount} ${ours.currency}.`;
}
