import type { BatchItemResult, PayoutBatchRecord } from '../schemas/payout-batch';
import { toMajor, type Currency } from '../../domain/money';
import { isLiveScope } from '../../domain/modes';
import type { Transaction } from '../../domain/transaction';
import type { Language } from '../i18n';
import type { FieldError, ProblemCode, Problem } from '../problems';
import type { Text } from '../i18n';
import { toPublicRecord } from './payout-record';

/** What a stored batch holds, as the record needs it (the store's type lives above the contract). */
export interface PayoutBatchFacts {
  id: string;
  merchantId: string;
  atomic: boolean;
  createdAt: Date;
  completedAt: Date | null;
  results:
    | {
        index: number;
        reference: string | null;
        result: 'accepted' | 'refused';
        transactionId: string | null;
        problem: { code: ProblemCode; detail?: Text; errors?: FieldError[] } | null;
      }[]
    | null;
}

/**
 * The public record of a batch: its items (accepted with their payout's record, refused with their
 * problem in `lang`), counts by status and totals by currency. `render` is the API's problem renderer.
 */
export function toPayoutBatchRecord(
  batch: PayoutBatchFacts,
  payouts: Map<string, Transaction>,
  lang: Language,
  render: (code: ProblemCode, lang: Language, extra: { detail?: Text; errors?: FieldError[] }) => Problem,
): PayoutBatchRecord {
  const results = batch.results ?? [];
  const byStatus: Record<string, number> = {};
  const totals = new Map<Currency, PayoutBatchRecord['summary']['totals'][number]>();
  const items: BatchItemResult[] = results.map((r) => {
    const tx = r.transactionId ? payouts.get(r.transactionId) : undefined;
    if (tx) {
      byStatus[tx.status] = (byStatus[tx.status] ?? 0) + 1;
      const t = totals.get(tx.currency) ?? {
        currency: tx.currency,
        count: 0,
        amount: 0,
        fee: 0,
        chargedAmount: 0,
        completedAmount: 0,
      };
      t.count += 1;
      t.amount += toMajor(tx.amount, tx.currency);
      t.fee += toMajor(tx.fee, tx.currency);
      t.chargedAmount += toMajor(tx.chargedAmount, tx.currency);
      if (tx.status === 'completed') t.completedAmount += toMajor(tx.amount, tx.currency);
      totals.set(tx.currency, t);
    }
    return {
      index: r.index,
      reference: r.reference,
      result: r.result,
      payout: tx ? toPublicRecord(tx) : null,
      problem: r.problem ? render(r.problem.code, lang, r.problem) : null,
    };
  });
  const accepted = results.filter((r) => r.result === 'accepted').length;
  return {
    id: batch.id,
    atomic: batch.atomic,
    status: batch.completedAt ? 'completed' : 'processing',
    createdAt: new Date(batch.createdAt).toISOString(),
    completedAt: batch.completedAt ? new Date(batch.completedAt).toISOString() : null,
    livemode: isLiveScope(batch.merchantId),
    summary: {
      items: results.length,
      accepted,
      refused: results.length - accepted,
      byStatus,
      totals: [...totals.values()],
    },
    items,
  };
}
