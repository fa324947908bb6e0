import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Country } from './operators';

/** E.164 form of a number that is valid in the given country, or null. */
export function normalizeMsisdn(msisdn: string, country: Country): string | null {
  const parsed = parsePhoneNumberFromString(msisdn);
  if (!parsed || parsed.country !== country || !parsed.isValid()) return null;
  return parsed.number;
}

/** 2250700000001 -> +225******0001: enough for support, not enough to call. */
export function maskMsisdn(msisdn: string): string {
  return msisdn.length <= 8 ? '****' : `${msisdn.slice(0, 4)}******${msisdn.slice(-4)}`;
}
