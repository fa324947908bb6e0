// The balance history reads each entry's reason back into words and a link (the API gives the
// reason as text only): every reason the ledger's writers compose must read back, so a template
// changed there fails here instead of showing as "Other movement" on the page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  byDay,
  localDay,
  movementOf,
  periodStart,
  type Entry,
} from '../../dashboard/src/pages/balance-history-model';

const writers = ['src/ledger/postings.ts', 'src/services/payout-batch-service.ts'];
// A reference as the API allows them (letters, digits and . _ : -).
const sample = 'ref-1.a:b_C';

describe('balance history', () => {
  it("reads back every reason the ledger's writers compose", () => {
    const templates = writers.flatMap((file) =>
      [...readFileSync(join(__dirname, '../..', file), 'utf8').matchAll(/reason: `([^`]*)`/g)].map(
        (m) => m[1]!,
      ),
    );
    const read = templates.map((template) => {
      const reason = template.replace(/\$\{[^}]*\}/g, sample);
      const m = movementOf({ reason, transactionId: 'pr_1' });
      return { template, kind: m.kind, reference: m.reference };
    });
    expect(read.map((r) => r.kind).sort()).toEqual(
      [
        'bulk-hold',
        'bulk-release',
        'payin',
        'payin-fee',
        'payout',
        'payout-fee',
        'payout-reversal',
        'refund',
        'refund-fee',
        'refund-reversal',
      ].sort(),
    );
    expect(read.filter((r) => r.reference !== sample)).toEqual([]);
  });

  it("links the transaction's page when the entry names one", () => {
    expect(movementOf({ reason: 'payin order-1', transactionId: 'pr_1' })).toEqual({
      kind: 'payin',
      reference: 'order-1',
      payment: null,
      link: '/transactions/payin/order-1',
    });
    expect(movementOf({ reason: 'payout reversal sup-7', transactionId: 'pr_2' }).link).toBe(
      '/transactions/payout/sup-7',
    );
    // A refund's page is by its own id; the words name the payment it refunds.
    expect(movementOf({ reason: 'refund rf-9 of payin order-1', transactionId: 'rf_3' })).toEqual({
      kind: 'refund',
      reference: 'rf-9',
      payment: 'order-1',
      link: '/transactions/refund/rf_3',
    });
    expect(movementOf({ reason: 'bulk payout pb_1: hold', transactionId: null }).link).toBeNull();
    // Funding and other reasons are shown as written, without a page.
    expect(movementOf({ reason: 'test funding', transactionId: null })).toEqual({
      kind: null,
      reference: null,
      payment: null,
      link: null,
    });
  });

  it("groups by day, newest first, a day's closing balance carried to the page it goes on on", () => {
    const entry = (id: string, createdAt: string, balanceAfter: number): Entry => ({
      id,
      accountId: 'acc_1',
      amount: 100,
      balanceAfter,
      createdAt,
      currency: 'XOF',
      direction: 'credit',
      reason: 'payin x',
      transactionId: 'pr_1',
    });
    const first = [
      entry('a', '2026-11-28T15:00:00', 900),
      entry('b', '2026-11-28T09:00:00', 800),
      entry('c', '2026-11-27T16:00:00', 700),
    ].map((e) => ({ ...e, createdAt: new Date(e.createdAt).toISOString() }));
    const days = byDay(first);
    expect(days.map((d) => [d.day, d.closing, d.entries.length, d.continued])).toEqual([
      ['2026-11-28', 900, 2, false],
      ['2026-11-27', 700, 1, false],
    ]);
    // The next page starts with more of 27 November: its closing balance is the one shown before.
    const next = [entry('d', new Date('2026-11-27T10:00:00').toISOString(), 600)];
    expect(byDay(next, { day: '2026-11-27', closing: 700 })).toEqual([
      { day: '2026-11-27', closing: 700, continued: true, entries: next },
    ]);
    expect(localDay(new Date(2026, 0, 5, 23, 59).toISOString())).toBe('2026-01-05');
  });

  it('starts the shortcuts at local midnights', () => {
    const now = new Date(2026, 10, 28, 15, 30);
    expect(periodStart('all', now)).toBeUndefined();
    expect(periodStart('today', now)).toBe(new Date(2026, 10, 28).toISOString());
    expect(periodStart('week', now)).toBe(new Date(2026, 10, 22).toISOString());
    expect(periodStart('month', now)).toBe(new Date(2026, 10, 1).toISOString());
  });
});
