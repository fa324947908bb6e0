import {
  currencyByCountry,
  operatorsByCountry,
  providerName,
  type Country,
  type OperatorCode,
  type ProviderName,
} from './operators';
import { belongsToAnotherOperator } from './operator-prefixes';

// What a merchant (and the checkout page) needs to know about each provider before a payin.

export interface ProviderInfo {
  code: OperatorCode;
  name: ProviderName;
  displayName: string;
  country: Country;
  currency: string;
  available: boolean;
  /** The customer must send the OTP obtained by dialling `otpUssdCode` (Orange). */
  otpRequired: boolean;
  otpUssdCode: string | null;
  /** Code the customer dials to validate when the push does not appear on the phone. */
  ussdCode: string | null;
  /** The operator answers with a page to redirect the customer to (`paymentUrl`). */
  redirect: boolean;
  /** Whole units of `currency`. */
  minAmount: number;
  maxAmount: number;
}

const displayNames: Record<OperatorCode, string> = {
  ORANGE: 'Orange Money',
  MTN: 'MTN Mobile Money',
  MOOV: 'Moov Money',
  WAVE: 'Wave',
};

/** USSD fallback codes exist for MTN (*133#) and Moov (*155#) in Côte d'Ivoire. */
const ussdCodes: Partial<Record<ProviderName, string>> = { MTN_CI: '*133#', MOOV_CI: '*155#' };

/** One band for every provider: XOF and XAF share the same value (1 EUR = 655.957). */
/** The USSD code a customer dials to validate when the operator's push does not appear. */
export function ussdCodeOf(name: ProviderName): string | null {
  return ussdCodes[name] ?? null;
}

export const amountLimits = { min: 100, max: 1_500_000 } as const;

export function providerInfo(code: OperatorCode, country: Country): ProviderInfo {
  const name = providerName(code, country);
  return {
    code,
    name,
    displayName: displayNames[code],
    country,
    currency: currencyByCountry[country],
    available: true,
    otpRequired: code === 'ORANGE',
    otpUssdCode: code === 'ORANGE' ? '#144*82#' : null,
    ussdCode: ussdCodes[name] ?? null,
    redirect: code === 'WAVE',
    minAmount: amountLimits.min,
    maxAmount: amountLimits.max,
  };
}

export function providersOf(country: Country): ProviderInfo[] {
  return operatorsByCountry[country].map((code) => providerInfo(code, country));
}

export type PayinRuleViolation =
  | { code: 'OTP_REQUIRED'; path: 'otp' }
  | { code: 'MSISDN_PROVIDER_MISMATCH'; path: 'msisdn' }
  | { code: 'AMOUNT_OUT_OF_RANGE'; path: 'amount'; min: number; max: number };

/** The provider's own rules for a payin (shared by the direct flow and the checkout page). */
export function checkPayinForProvider(p: {
  operator: OperatorCode;
  country: Country;
  /** E.164. */
  msisdn: string;
  /** Whole units. */
  amount: number;
  otp?: string | undefined;
}): PayinRuleViolation[] {
  const info = providerInfo(p.operator, p.country);
  const out: PayinRuleViolation[] = [];
  if (info.otpRequired && !p.otp) out.push({ code: 'OTP_REQUIRED', path: 'otp' });
  if (belongsToAnotherOperator(p.msisdn, p.operator))
    out.push({ code: 'MSISDN_PROVIDER_MISMATCH', path: 'msisdn' });
  if (p.amount < info.minAmount || p.amount > info.maxAmount)
    out.push({ code: 'AMOUNT_OUT_OF_RANGE', path: 'amount', min: info.minAmount, max: info.maxAmount });
  return out;
}
