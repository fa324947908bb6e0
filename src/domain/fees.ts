import { z } from 'zod';
import { jsonText } from './json-text';
import { currencies, type Currency, type MinorAmount } from './money';
import { countries, operatorCodes, type Country, type OperatorCode } from './operators';

// The fee schedule: a rate in basis points plus optional fixed, minimum and maximum amounts per
// currency, chosen per kind (payin, payout, refund) and refined by operator and/or country.
// Fees are whole minor units, rounded up, computed in integer arithmetic. See docs/fees.md.

export const feeKinds = ['payin', 'payout', 'refund'] as const;
export type FeeKind = (typeof feeKinds)[number];

const minorAmount = z.number().int().min(0).max(1_000_000_000);
const perCurrency = z.partialRecord(z.enum(currencies), minorAmount);

const feeTerms = {
  /** Basis points of the amount: 150 = 1.5 %. At most 100 %. */
  rateBps: z.number().int().min(0).max(10_000),
  /** Added after the rate, in minor units of the transaction's currency. */
  fixed: perCurrency.optional(),
  min: perCurrency.optional(),
  max: perCurrency.optional(),
};

export const feeRuleSchema = z.strictObject({
  operator: z.enum(operatorCodes).optional(),
  country: z.enum(countries).optional(),
  ...feeTerms,
});
export type FeeRule = z.infer<typeof feeRuleSchema>;

export const feeKindScheduleSchema = z.strictObject({
  ...feeTerms,
  rules: z.array(feeRuleSchema).default([]),
});
export type FeeKindSchedule = z.infer<typeof feeKindScheduleSchema>;

export const feeScheduleSchema = z.strictObject({
  payin: feeKindScheduleSchema.optional(),
  payout: feeKindScheduleSchema.optional(),
  refund: feeKindScheduleSchema.optional(),
});
export type FeeScheduleOverride = z.infer<typeof feeScheduleSchema>;
export type FeeSchedule = Record<FeeKind, FeeKindSchedule>;

/** FEE_SCHEDULE: a JSON text validated by the schedule schema (kinds it omits keep their defaults). */
export const feeScheduleJson = jsonText('not valid JSON').pipe(feeScheduleSchema);

/** Defaults: payin 1.5 %, payout 1 %, refund free; no fixed part, no minimum, no maximum. */
export const defaultFeeSchedule: FeeSchedule = {
  payin: { rateBps: 150, rules: [] },
  payout: { rateBps: 100, rules: [] },
  refund: { rateBps: 0, rules: [] },
};

export function resolveFeeSchedule(override: FeeScheduleOverride | undefined): FeeSchedule {
  return {
    payin: override?.payin ?? defaultFeeSchedule.payin,
    payout: override?.payout ?? defaultFeeSchedule.payout,
    refund: override?.refund ?? defaultFeeSchedule.refund,
  };
}

/** The most specific rule wins: operator and country, then operator, then country, then the kind's default. */
function termsFor(schedule: FeeKindSchedule, operator: OperatorCode | null, country: Country | null) {
  let best: FeeRule | null = null;
  let bestScore = -1;
  for (const rule of schedule.rules) {
    if (rule.operator && rule.operator !== operator) continue;
    if (rule.country && rule.country !== country) continue;
    const score = (rule.operator ? 2 : 0) + (rule.country ? 1 : 0);
    if (score > bestScore) [best, bestScore] = [rule, score];
  }
  return best ?? schedule;
}

/**
 * The fee for an amount in minor units: ceil(amount × rate) + fixed, clamped to [min, max], and
 * never more than the amount itself.
 * The rate part is rounded up to the currency's minor unit (1 XOF, 1 cent) with integers only.
 */
export function computeFee(
  kind: FeeKind,
  provider: OperatorCode | null,
  country: Country | null,
  amountMinor: MinorAmount,
  currency: Currency,
  schedule: FeeSchedule = defaultFeeSchedule,
): MinorAmount {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0)
    throw new RangeError(`amount must be a non-negative integer in minor units, got ${amountMinor}`);
  const terms = termsFor(schedule[kind], provider, country);
  // BigInt: amount × rate may exceed 2^53 for large USD amounts in cents.
  const proportional = (BigInt(amountMinor) * BigInt(terms.rateBps) + 9_999n) / 10_000n;
  let fee = Number(proportional) + (terms.fixed?.[currency] ?? 0);
  const min = terms.min?.[currency];
  const max = terms.max?.[currency];
  if (min !== undefined) fee = Math.max(fee, min);
  if (max !== undefined) fee = Math.min(fee, max);
  // A fee never exceeds the amount it is charged on (a fixed part or a minimum could make it).
  return Math.min(fee, amountMinor);
}

/** Who pays what, in minor units, for a fee already computed. See docs/fees.md for examples. */
export interface FeeSplit {
  /** Total debited from the payer: the customer for a payin, the merchant for a payout or refund. */
  chargedAmount: MinorAmount;
  /** Signed movement of the merchant's account: credit for a payin, debit for a payout or refund. */
  merchantDelta: MinorAmount;
  /** What the other side receives: the merchant net for a payin, the beneficiary for a payout or refund. */
  netToRecipient: MinorAmount;
}

/**
 * payFee true means the merchant bears the fee. A payin's customer then pays `amount` and the
 * merchant is credited amount − fee; with payFee false the customer pays amount + fee. Payouts and
 * refunds always cost the merchant amount + fee (the beneficiary gets `amount`), whatever payFee says.
 */
export function splitFee(kind: FeeKind, amount: MinorAmount, fee: MinorAmount, payFee: boolean): FeeSplit {
  if (kind === 'payin') {
    return payFee
      ? { chargedAmount: amount, merchantDelta: amount - fee, netToRecipient: amount - fee }
      : { chargedAmount: amount + fee, merchantDelta: amount, netToRecipient: amount };
  }
  return { chargedAmount: amount + fee, merchantDelta: -(amount + fee), netToRecipient: amount };
}
