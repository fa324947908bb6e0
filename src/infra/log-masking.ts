import { maskMsisdn } from '../domain/msisdn';

// Phone numbers are personal data: a log keeps their country code and last four digits only.

const phoneFields = new Set(['msisdn', 'phoneNumber', 'customerMsisdn', 'phone']);
// A query string may carry the plus percent-encoded (%2B): masked too.
const e164 = /(?:\+|%2[bB]|\b)\d{9,15}\b/g;

export function maskPhonesInText(text: string): string {
  return text.replace(e164, (m) => maskMsisdn(m));
}

/** pino's redact censor: phone fields masked, everything else (secrets, OTPs, credentials) removed. */
export function censor(value: unknown, path: string[]): unknown {
  const field = path[path.length - 1] ?? '';
  if (phoneFields.has(field)) return typeof value === 'string' ? maskMsisdn(value) : '[redacted]';
  return '[redacted]';
}

const secretFields = ['otp', 'apiClient', 'secret', 'authorization', 'password', 'token'];
/** Redact paths up to three levels deep (pino's wildcards match one level each). */
export const redactPaths = [...secretFields, ...phoneFields].flatMap((f) => [
  f,
  `*.${f}`,
  `*.*.${f}`,
  `*.*.*.${f}`,
]);
