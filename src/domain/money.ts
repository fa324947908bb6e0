// Amounts are integers in the currency's minor unit. XOF and XAF have no minor unit.
export const currencies = ['XOF', 'XAF', 'USD', 'EUR'] as const;
export type Currency = (typeof currencies)[number];

export const minorUnitDigits: Record<Currency, number> = { XOF: 0, XAF: 0, USD: 2, EUR: 2 };

// Two units, two types: an amount in minor units (what the ledger, fees and records hold) and one in
// major units (what merchants send and public records show) do not mix, so a MajorAmount passed
// where a MinorAmount is expected does not compile, and toMinor/toMajor are the only ways across.
// The brand is optional ("flavoured"): a plain number (a database read, a parsed request, a sum)
// is still accepted on either side, so only values whose unit is known are checked; a required
// brand would need a cast at every read and literal, and each cast is where a mix-up would hide.

declare const unit: unique symbol;
/** Integer minor units (1250 for 12.50 USD, 500 for 500 XOF). */
export type MinorAmount = number & { readonly [unit]?: 'minor' };
/** Major units as merchants send and read them (12.5 USD). */
export type MajorAmount = number & { readonly [unit]?: 'major' };

/** Major units as sent by merchants (e.g. 12.5 USD) -> integer minor units (1250). */
export function toMinor(amount: MajorAmount, currency: Currency): MinorAmount {
  return Math.round(amount * 10 ** minorUnitDigits[currency]);
}

/** Integer minor units -> the number shown in public records. */
export function toMajor(minor: MinorAmount, currency: Currency): MajorAmount {
  return minor / 10 ** minorUnitDigits[currency];
}
