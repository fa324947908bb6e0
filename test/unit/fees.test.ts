import fc from 'fast-check';
import { configSchema } from '../../src/config';
import {
  computeFee,
  defaultFeeSchedule,
  feeScheduleJson,
  resolveFeeSchedule,
  splitFee,
  type FeeSchedule,
} from '../../src/domain/fees';
import { amount, country, currency, kind, operator, terms } from '../helpers/fee-arbitraries';

const schedule: fc.Arbitrary<FeeSchedule> = fc.record({
  payin: terms.map((t) => ({ ...t, rules: [] })),
  payout: fc
    .tuple(terms, fc.array(fc.tuple(terms, operator, country), { maxLength: 4 }))
    .map(([t, rules]) => ({
      ...t,
      rules: rules.map(([r, op, c]) => ({
        ...r,
        ...(op ? { operator: op } : {}),
        ...(c ? { country: c } : {}),
      })),
    })),
  refund: terms.map((t) => ({ ...t, rules: [] })),
});

describe('fees', () => {
  it('charges the documented defaults, rounded up to the minor unit', () => {
    expect(computeFee('payin', 'MTN', 'CI', 10_000, 'XOF')).toBe(150);
    expect(computeFee('payin', 'MTN', 'CI', 101, 'XOF')).toBe(2); // 1.515 -> 2
    expect(computeFee('payin', 'ORANGE', 'CM', 1, 'XAF')).toBe(1);
    expect(computeFee('payout', 'WAVE', 'CI', 25_050, 'XOF')).toBe(251); // 250.5 -> 251
    expect(computeFee('payout', null, 'CI', 12_345, 'USD')).toBe(124); // 123.45 cents -> 124
    expect(computeFee('refund', 'MTN', 'CI', 10_000, 'XOF')).toBe(0);
    expect(computeFee('payin', 'MTN', 'CI', 0, 'XOF')).toBe(0);
    expect(() => computeFee('payin', 'MTN', 'CI', 1.5, 'XOF')).toThrow(RangeError);
    expect(() => computeFee('payin', 'MTN', 'CI', -1, 'XOF')).toThrow(RangeError);
  });

  it('picks the most specific rule: operator and country, operator, country, then the default', () => {
    const s = resolveFeeSchedule(
      feeScheduleJson.parse(
        JSON.stringify({
          payin: {
            rateBps: 200,
            rules: [
              { country: 'CM', rateBps: 300 },
              { operator: 'WAVE', rateBps: 100 },
              { operator: 'WAVE', country: 'CI', rateBps: 50, fixed: { XOF: 25 }, max: { XOF: 500 } },
              { operator: 'ORANGE', rateBps: 0, min: { XAF: 75 } },
            ],
          },
        }),
      ),
    );
    expect(computeFee('payin', 'WAVE', 'CI', 10_000, 'XOF', s)).toBe(75); // 50 + 25
    expect(computeFee('payin', 'WAVE', 'CI', 1_000_000, 'XOF', s)).toBe(500); // capped by max
    expect(computeFee('payin', 'WAVE', 'CM', 10_000, 'XAF', s)).toBe(100); // operator beats country
    expect(computeFee('payin', 'MTN', 'CM', 10_000, 'XAF', s)).toBe(300);
    expect(computeFee('payin', 'ORANGE', 'CM', 10_000, 'XAF', s)).toBe(75); // minimum
    expect(computeFee('payin', 'ORANGE', 'CM', 50, 'XAF', s)).toBe(50); // never above the amount
    expect(computeFee('payin', 'MTN', 'CI', 10_000, 'XOF', s)).toBe(200);
    expect(s.payout).toEqual(defaultFeeSchedule.payout); // omitted kinds keep their defaults
  });

  it('reads FEE_SCHEDULE through the config and refuses a bad one', () => {
    const parsed = configSchema.parse({ FEE_SCHEDULE: '{"refund":{"rateBps":50}}' });
    expect(parsed.FEE_SCHEDULE).toEqual({ refund: { rateBps: 50, rules: [] } });
    expect(configSchema.parse({}).FEE_SCHEDULE).toBeUndefined();
    for (const bad of [
      '{',
      '{"payin":{"rateBps":10001}}',
      '{"payin":{"rate":1}}',
      '{"payin":{"rateBps":1.5}}',
    ])
      expect(configSchema.safeParse({ FEE_SCHEDULE: bad }).success).toBe(false);
  });

  it('is never negative, never above the amount, and an integer', () => {
    fc.assert(
      fc.property(schedule, kind, operator, country, amount, currency, (s, k, op, c, a, cur) => {
        const fee = computeFee(k, op, c, a, cur, s);
        expect(Number.isSafeInteger(fee)).toBe(true);
        expect(fee).toBeGreaterThanOrEqual(0);
        expect(fee).toBeLessThanOrEqual(a);
      }),
    );
  });

  it('rounds the rate part up to the minor unit: the smallest integer not below amount x rate', () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 10_000 }), currency, (a, bps, cur) => {
        const s = resolveFeeSchedule({ payin: { rateBps: bps, rules: [] } });
        const fee = computeFee('payin', null, null, a, cur, s);
        const exact = BigInt(a) * BigInt(bps); // fee x 10_000 must cover it by less than one unit
        expect(BigInt(fee) * 10_000n >= exact).toBe(true);
        expect((BigInt(fee) - 1n) * 10_000n < exact).toBe(true);
      }),
    );
  });

  it('is monotone in the amount', () => {
    fc.assert(
      fc.property(schedule, kind, operator, country, amount, amount, currency, (s, k, op, c, a, b, cur) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(computeFee(k, op, c, lo, cur, s)).toBeLessThanOrEqual(computeFee(k, op, c, hi, cur, s));
      }),
    );
  });

  it('splits the fee according to payFee', () => {
    // Payin of 10 000 XOF, fee 150: the merchant bears it, or the customer pays it on top.
    expect(splitFee('payin', 10_000, 150, true)).toEqual({
      chargedAmount: 10_000,
      merchantDelta: 9_850,
      netToRecipient: 9_850,
    });
    expect(splitFee('payin', 10_000, 150, false)).toEqual({
      chargedAmount: 10_150,
      merchantDelta: 10_000,
      netToRecipient: 10_000,
    });
    // Payout of 25 000 XOF, fee 250: the merchant is debited the charged amount either way.
    for (const payFee of [true, false])
      expect(splitFee('payout', 25_000, 250, payFee)).toEqual({
        chargedAmount: 25_250,
        merchantDelta: -25_250,
        netToRecipient: 25_000,
      });
    fc.assert(
      fc.property(kind, fc.integer({ min: 0, max: 1e9 }), fc.boolean(), (k, a, payFee) => {
        const fee = computeFee(k, 'MTN', 'CI', a, 'XOF');
        const split = splitFee(k, a, fee, payFee);
        // Money is conserved: what the payer gives = what the recipient gets + the fee.
        expect(split.chargedAmount).toBe(split.netToRecipient + fee);
      }),
    );
  });
});
