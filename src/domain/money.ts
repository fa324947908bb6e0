// Amounts are integers in the currency's minor unit. XOF and XAF have no minor unit.
export const currencies = ['XOF', 'XAF', 'USD', 'EUR'] as const;
export type Currency = (typeof currencies)[number];

export const minorUnitDigits: Record<Currency, number> = { XOF: 0, XAF: 0, USD: 2, EUR: 2 };

/** Major units as sent by merchants (e.g. 12.5 USD) -> integer minor units (1250). */
export function toMinor(amount: number, currency: Currency): number {
  return Math.round(amount * 10 ** minorUnitDigits[currency]);
}

/** Integer minor units -> the number shown in public records. */
export function toMajor(minor: number, currency: Currency): number {
  return minor / 10 ** minorUnitDigits[currency];
}
