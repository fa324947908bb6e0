import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { countries, type Country, type OperatorCode } from './operators';

// Which network a mobile number belongs to, from its national prefix (numbering plans of ARTCI,
// Côte d'Ivoire, since the 2021 move to 10 digits, and of ART, Cameroon). Wave is a wallet on any
// network, so it has no prefix. Carriers we do not offer are named so a mismatch can still be told.
export type Carrier = OperatorCode | 'NEXTTEL' | 'CAMTEL';

interface PrefixRule {
  /** Leading digits of the national significant number. */
  prefix: string;
  carrier: Carrier;
}

/** Longest prefix wins; the table is the documentation (docs/operators.md copies it). */
export const prefixTable: Record<Country, readonly PrefixRule[]> = {
  // 10-digit national numbers: 01 Moov Africa, 05 MTN, 07 Orange.
  CI: [
    { prefix: '01', carrier: 'MOOV' },
    { prefix: '05', carrier: 'MTN' },
    { prefix: '07', carrier: 'ORANGE' },
  ],
  // 9-digit national numbers starting with 6.
  CM: [
    ...['650', '651', '652', '653', '654', '67', '680', '681', '682', '683', '684'].map((prefix) => ({
      prefix,
      carrier: 'MTN' as const,
    })),
    ...['655', '656', '657', '658', '659', '686', '687', '688', '689', '69'].map((prefix) => ({
      prefix,
      carrier: 'ORANGE' as const,
    })),
    { prefix: '66', carrier: 'NEXTTEL' },
    { prefix: '62', carrier: 'CAMTEL' },
  ],
};

export interface Prediction {
  /** E.164. */
  msisdn: string;
  country: Country;
  /** The network the prefix belongs to, or null when the prefix is not in the table. */
  carrier: Carrier | null;
}

/** Country and network of a number valid in CI or CM; null for anything else. */
export function predictCarrier(msisdn: string): Prediction | null {
  const parsed = parsePhoneNumberFromString(msisdn);
  if (!parsed?.isValid()) return null;
  const country = countries.find((c) => c === parsed.country);
  if (!country) return null;
  const national = String(parsed.nationalNumber);
  let best: PrefixRule | undefined;
  for (const rule of prefixTable[country]) {
    if (national.startsWith(rule.prefix) && rule.prefix.length > (best?.prefix.length ?? 0)) best = rule;
  }
  return { msisdn: parsed.number, country, carrier: best?.carrier ?? null };
}

/**
 * True when the number clearly belongs to another network than `operator`. Wave accepts any number;
 * an unknown prefix is given the benefit of the doubt (the operator itself will refuse it).
 */
export function belongsToAnotherOperator(msisdn: string, operator: OperatorCode): boolean {
  if (operator === 'WAVE') return false;
  const carrier = predictCarrier(msisdn)?.carrier ?? null;
  return carrier !== null && carrier !== operator;
}
