import { minorUnitDigits, type Currency } from '../domain/money';

/**
 * "5000" XOF -> 5000, "12.5" USD -> 1250. Exact decimal parsing (no floating point), refusing
 * more decimals than the currency has rather than rounding an operator's typo away.
 */
export function parseMajorAmount(text: string, currency: Currency): number {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`amount must be a positive number, got "${text}"`);
  const digits = minorUnitDigits[currency];
  const fraction = m[2] ?? '';
  if (fraction.replace(/0+$/, '').length > digits) {
    throw new Error(
      digits === 0
        ? `${currency} has no minor unit: the amount must be a whole number, got "${text}"`
        : `${currency} has ${digits} decimals at most, got "${text}"`,
    );
  }
  const minor = Number(m[1]! + fraction.padEnd(digits, '0').slice(0, digits));
  if (!Number.isSafeInteger(minor) || minor <= 0)
    throw new Error(`amount must be positive and not huge, got "${text}"`);
  return minor;
}
