import fc from 'fast-check';
import {
  computeFee,
  resolveFeeSchedule,
  splitFee,
  type FeeKindSchedule,
  type FeeRule,
  type FeeSchedule,
} from '../../src/domain/fees';
import { toMajor, toMinor, type Currency } from '../../src/domain/money';
import { type Country, type OperatorCode } from '../../src/domain/operators';
import { decideRefund, refundTypeOf } from '../../src/domain/refund';
import { amount, country, currency, kind, operator, terms } from '../helpers/fee-arbitraries';

// Properties of the money rules that test/unit/fees.test.ts does not state: clamps, rule choice
// against a reference model, rounding never rewarding split payments, amounts in major units, fee
// splits under any schedule, and the refund remainder over sequences of requests.

const rule: fc.Arbitrary<FeeRule> = fc
  .tuple(terms, operator, country)
  .map(([t, op, c]) => ({ ...t, ...(op ? { operator: op } : {}), ...(c ? { country: c } : {}) }));
const kindSchedule: fc.Arbitrary<FeeKindSchedule> = fc
  .tuple(terms, fc.array(rule, { maxLength: 6 }))
  .map(([t, rules]) => ({ ...t, rules }));
const schedule: fc.Arbitrary<FeeSchedule> = fc.record({
  payin: kindSchedule,
  payout: kindSchedule,
  refund: kindSchedule,
});

/** The documented choice, written independently: most specific match, the first one on a tie. */
function referenceTerms(s: FeeKindSchedule, op: OperatorCode | null, c: Country | null) {
  const matching = s.rules.filter(
    (r) => (!r.operator || r.operator === op) && (!r.country || r.country === c),
  );
  const score = (r: FeeRule) => (r.operator ? 2 : 0) + (r.country ? 1 : 0);
  const best = Math.max(-1, ...matching.map(score));
  return matching.find((r) => score(r) === best) ?? s;
}

/** The fee formula of docs/fees.md, on the chosen terms, in BigInt. */
function referenceFee(t: ReturnType<typeof referenceTerms>, a: number, cur: Currency): number {
  let fee = Number((BigInt(a) * BigInt(t.rateBps) + 9_999n) / 10_000n) + (t.fixed?.[cur] ?? 0);
  if (t.min?.[cur] !== undefined) fee = Math.max(fee, t.min[cur]);
  if (t.max?.[cur] !== undefined) fee = Math.min(fee, t.max[cur]);
  return Math.min(fee, a);
}

describe('money rules (properties)', () => {
  it('computes the fee of the most specific matching rule, as a reference model does', () => {
    fc.assert(
      fc.property(schedule, kind, operator, country, amount, currency, (s, k, op, c, a, cur) => {
        expect(computeFee(k, op, c, a, cur, s)).toBe(referenceFee(referenceTerms(s[k], op, c), a, cur));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the fee within its clamps: at least min (or the whole amount), at most max', () => {
    fc.assert(
      fc.property(terms, amount, currency, (t, a, cur) => {
        const s = resolveFeeSchedule({ payout: { ...t, rules: [] } });
        const fee = computeFee('payout', null, null, a, cur, s);
        const min = t.min?.[cur];
        const max = t.max?.[cur];
        if (max !== undefined) expect(fee).toBeLessThanOrEqual(max);
        if (min !== undefined && (max === undefined || min <= max))
          expect(fee).toBeGreaterThanOrEqual(Math.min(min, a));
        // Without a fixed part, a minimum or a maximum the fee is the rate part alone.
        if (!t.fixed?.[cur] && min === undefined && max === undefined)
          expect(fee).toBe(Math.min(Number((BigInt(a) * BigInt(t.rateBps) + 9_999n) / 10_000n), a));
      }),
    );
  });

  it('never lets a payer lower the rate part by splitting a payment in two (rounding up)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 10_000 }),
        currency,
        (a, b, bps, cur) => {
          const s = resolveFeeSchedule({ payin: { rateBps: bps, rules: [] } });
          const fee = (x: number) => computeFee('payin', null, null, x, cur, s);
          expect(fee(a) + fee(b)).toBeGreaterThanOrEqual(fee(a + b));
          // ... and rounding never costs more than one minor unit per payment.
          expect(fee(a) + fee(b) - fee(a + b)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('converts minor units to the public major amount and back without loss', () => {
    fc.assert(
      fc.property(currency, fc.integer({ min: 0, max: 1e13 }), (cur, minor) => {
        expect(toMinor(toMajor(minor, cur), cur)).toBe(minor);
      }),
    );
    // Whole-unit currencies have no decimals to lose.
    expect(toMinor(5_000, 'XOF')).toBe(5_000);
    expect(toMinor(123.45, 'USD')).toBe(12_345);
  });

  it('conserves money in every fee split, whatever the schedule and who bears the fee', () => {
    fc.assert(
      fc.property(
        schedule,
        kind,
        operator,
        country,
        amount,
        currency,
        fc.boolean(),
        (s, k, op, c, a, cur, p) => {
          const fee = computeFee(k, op, c, a, cur, s);
          const split = splitFee(k, a, fee, p);
          expect(split.chargedAmount).toBe(split.netToRecipient + fee);
          if (k === 'payin') {
            // The merchant is credited what the customer paid, less the fee.
            expect(split.merchantDelta).toBe(split.chargedAmount - fee);
            expect(split.merchantDelta).toBeGreaterThanOrEqual(0);
          } else {
            // A payout or refund costs the merchant exactly what is charged.
            expect(0 - split.merchantDelta).toBe(split.chargedAmount);
          }
        },
      ),
    );
  });

  describe('refund remainder', () => {
    // A payin of `original` minor units, then a sequence of refund requests (an amount, or none
    // for "the rest"), each accepted one committed, some of them later failing (released).
    const request = fc.record({
      amount: fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: null }),
      failsLater: fc.boolean(),
    });

    it('never commits more than the original, and refuses exactly what exceeds the remainder', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 10_000 }),
          fc.array(request, { maxLength: 25 }),
          (original, requests) => {
            let committed = 0;
            for (const r of requests) {
              const remaining = original - committed;
              const d = decideRefund({ refundable: true, originalAmount: original, committed }, r.amount);
              if (d.ok) {
                expect(d.amount).toBeGreaterThan(0);
                expect(d.amount).toBeLessThanOrEqual(remaining);
                // No amount asked: the whole remainder.
                if (r.amount === null) expect(d.amount).toBe(remaining);
                else expect(d.amount).toBe(r.amount);
                expect(refundTypeOf(d.amount, original)).toBe(d.amount === original ? 'full' : 'partial');
                committed += d.amount;
                // A refund that fails gives its amount back to the remainder.
                if (r.failsLater) committed -= d.amount;
              } else if (remaining <= 0) {
                expect(d.refusal).toBe(
                  r.amount !== null && r.amount > original ? 'INVALID_AMOUNT' : 'REFUND_NOT_ALLOWED',
                );
              } else {
                expect(d.refusal).toBe('INVALID_AMOUNT');
                expect(r.amount).not.toBeNull();
                expect(r.amount!).toBeGreaterThan(remaining);
              }
              expect(committed).toBeGreaterThanOrEqual(0);
              expect(committed).toBeLessThanOrEqual(original);
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it('refuses everything once the payin is not refundable', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 10_000 }),
          fc.integer({ min: 0, max: 10_000 }),
          fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: null }),
          (original, committed, requested) => {
            const d = decideRefund({ refundable: false, originalAmount: original, committed }, requested);
            expect(d).toEqual({ ok: false, refusal: 'REFUND_NOT_ALLOWED' });
          },
        ),
      );
    });

    it('lets partial refunds add up to exactly the original, and not one unit more', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 20 }), (parts) => {
          const original = parts.reduce((a, b) => a + b, 0);
          let committed = 0;
          for (const p of parts) {
            const d = decideRefund({ refundable: true, originalAmount: original, committed }, p);
            expect(d).toEqual({ ok: true, amount: p });
            committed += p;
          }
          expect(committed).toBe(original);
          expect(decideRefund({ refundable: true, originalAmount: original, committed }, 1)).toEqual({
            ok: false,
            refusal: 'REFUND_NOT_ALLOWED',
          });
        }),
      );
    });
  });
});
