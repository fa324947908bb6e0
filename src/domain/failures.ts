// Operator failure codes. A definitive failure means the customer was not debited (declined,
// wrong OTP, no funds...). Any other failure is ambiguous (timeouts, operator errors, a transaction
// the operator does not know): the customer may have been debited, so the payin goes through the
// partner check for up to 48 hours.
export const definitiveFailureCodes = [
  'PAYER_DECLINED',
  'DECLINED_BY_CUSTOMER',
  'INSUFFICIENT_FUNDS',
  'OTP_REQUIRED',
  'OTP_INVALID',
  // The stored OTP expired before the operator was asked (src/persistence/otp-store.ts).
  'OTP_EXPIRED',
  'INVALID_MSISDN',
  'INVALID_REQUEST',
  // The operator refused our request with a 4xx, or confirmed our cancellation: nothing moved.
  'OPERATOR_REJECTED',
  'CANCELLED',
] as const;

export function isAmbiguousFailure(code: string): boolean {
  return !(definitiveFailureCodes as readonly string[]).includes(code);
}

/**
 * Failures that are the customer's (or the number's), not the route's: a route's success rate
 * leaves them out, and they never move a transaction to another route (issue 43 §2).
 */
export const customerFailureCodes = [
  'PAYER_DECLINED',
  'DECLINED_BY_CUSTOMER',
  'APPROVAL_REJECTED',
  'INSUFFICIENT_FUNDS',
  'OTP_REQUIRED',
  'OTP_INVALID',
  'OTP_EXPIRED',
  'INVALID_MSISDN',
  'PAYER_NOT_FOUND',
  'PAYEE_NOT_FOUND',
  'PAYEE_REJECTED',
  'PAYER_LIMIT_REACHED',
  'PAYEE_LIMIT_REACHED',
  // The customer let the prompt time out, or we cancelled at the deadline.
  'EXPIRED',
  'CANCELLED',
] as const;

export function isCustomerFailure(code: string): boolean {
  return (customerFailureCodes as readonly string[]).includes(code);
}
