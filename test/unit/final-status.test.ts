import {
  isFinal,
  isStatusKind,
  statusKinds,
  statusesOf,
  type StatusKind,
} from '../../src/domain/final-status';
import { observeTransactionEvent, transactionsFinished } from '../../src/infra/metrics';

// One rule of a final status for every caller (docs/decisions/architecture/one-final-status.md). The
// expected table names every status of every kind: a status added to a kind's list without a
// decision here fails the first test.
const expected: { [K in StatusKind]: Record<string, boolean> } = {
  payin: { pending: false, processing: false, success: true, failed: true, expired: true },
  payout: {
    pending: false,
    processing: false,
    processed: false,
    completed: true,
    failed: true,
    reversed: true,
    expired: true,
  },
  refund: { pending: false, processing: false, completed: true, failed: true, reversed: true },
};

describe('isFinal(kind, status)', () => {
  it.each(statusKinds)('%s: the table names exactly its statuses', (kind) => {
    expect(Object.keys(expected[kind]).sort()).toEqual([...statusesOf[kind]].sort());
  });

  const cases = statusKinds.flatMap((kind) =>
    statusesOf[kind].map((status) => [kind, status, expected[kind][status]] as const),
  );
  it.each(cases)('%s %s: final %s', (kind, status, final) => {
    expect(isFinal(kind, status)).toBe(final);
  });

  it("another kind's status, or no status, is not final", () => {
    expect(isFinal('payin', 'completed')).toBe(false);
    expect(isFinal('payin', 'reversed')).toBe(false);
    expect(isFinal('refund', 'expired')).toBe(false);
    expect(isFinal('payout', 'success')).toBe(false);
    expect(isFinal('payout', '')).toBe(false);
  });

  it('only payins, payouts and refunds have a status kind', () => {
    expect(statusKinds.every(isStatusKind)).toBe(true);
    expect(isStatusKind('payout.batch')).toBe(false);
    expect(isStatusKind('statement')).toBe(false);
  });
});

describe('payments_transactions_finished_total counts final statuses by the same rule', () => {
  type Label = 'kind' | 'status' | 'provider';
  const count = async (labels: Partial<Record<Label, string>>): Promise<number> =>
    (await transactionsFinished.get()).values
      .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k as Label] === x))
      .reduce((n, v) => n + v.value, 0);

  beforeEach(() => transactionsFinished.reset());

  it('a completed payout counts once: payout.completed repeats the payout.updated that carried it', async () => {
    const record = { status: 'completed', mobileMoney: { provider: { name: 'MTN_CI' } } };
    observeTransactionEvent('payout.updated', { ...record, status: 'processed' });
    observeTransactionEvent('payout.updated', record);
    observeTransactionEvent('payout.completed', record);
    expect(await count({ kind: 'payout', status: 'completed', provider: 'MTN_CI' })).toBe(1);
    expect(await count({ kind: 'payout' })).toBe(1);
  });

  it('a completed payout batch is not a finished payout', async () => {
    observeTransactionEvent('payout.batch.completed', { status: 'completed' });
    expect(await count({})).toBe(0);
  });

  it('payins and refunds count at their final statuses only', async () => {
    observeTransactionEvent('payin.completed', { status: 'success' });
    observeTransactionEvent('payin.failed', { status: 'failed' });
    observeTransactionEvent('refund.processing', { status: 'processing' });
    observeTransactionEvent('refund.completed', { status: 'completed' });
    expect(await count({ kind: 'payin' })).toBe(2);
    expect(await count({ kind: 'refund', status: 'completed', provider: 'none' })).toBe(1);
    expect(await count({})).toBe(3);
  });
});
