import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Country } from './operators';

/**
 * The national numbers libphonenumber-js (metadata "max") holds valid, per country: its patterns,
 * written out so the OpenAPI document can state the rule `normalizeMsisdn` applies.
 * test/unit/msisdn-pattern.test.ts checks they agree; update both when the library's metadata moves.
 */
export const validNationalNumbers = {
  // Fixed lines 2…, mobiles 01 / 05 / 07 (10 digits since 2021).
  CI: String.raw`2(?:[15]\d{3}|7(?:2(?:0[23]|1[2357]|2[245]|3[45]|4[3-5])|3(?:06|1[69]|[2-6]7)))\d{5}|0[157]\d{8}`,
  // Fixed lines 222 / 233, mobiles 242-243 / 6…, toll-free 88.
  CM: String.raw`2(?:22|33)\d{6}|(?:24[23]|6(?:[25-9]\d|4[0-2]))\d{6}|88\d{6,7}`,
} as const satisfies Record<Country, string>;

/** A number valid in CI or CM, as a JSON Schema (ECMA) pattern; `plus` "optional" for query strings. */
export function validNumberPattern(plus: 'required' | 'optional' = 'required'): string {
  return String.raw`^\+${plus === 'optional' ? '?' : ''}(?:225(?:${validNationalNumbers.CI})|237(?:${validNationalNumbers.CM}))$`;
}

/** E.164 form of a number that is valid in the given country, or null. */
export function normalizeMsisdn(msisdn: string, country: Country): string | null {
  const parsed = parsePhoneNumberFromString(msisdn);
  if (!parsed || parsed.country !== country || !parsed.isValid()) return null;
  return parsed.number;
}

/** Separators customers type between digit groups: spaces (also non-breaking), dots, dashes, brackets. */
const typedSeparators = /[\s.()-]/g;

/**
 * What a customer types in the country of the payment, held to E.164, or null: the national format
 * (`07 00 00 00 01` in CI, `6 71 23 45 67` in CM), with or without the country code (`+225`,
 * `00225`, `225`), separators and all. A number of another country is null, as in normalizeMsisdn.
 */
export function normalizeTypedMsisdn(typed: string, country: Country): string | null {
  const parsed = parsePhoneNumberFromString(typed.replace(typedSeparators, ''), country);
  if (!parsed || parsed.country !== country || !parsed.isValid()) return null;
  return parsed.number;
}

/** 2250700000001 -> +225******0001: enough for support, not enough to call. */
export function maskMsisdn(msisdn: string): string {
  return msisdn.length <= 8 ? '****' : `${msisdn.slice(0, 4)}******${msisdn.slice(-4)}`;
}
