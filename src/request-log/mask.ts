import { maskMsisdn } from '../domain/msisdn';
import { maskPhonesInText, maskText } from '../infra/log-masking';

// What the request log keeps of a body (docs/decisions/dashboard/request-log-retention-and-masking.md):
// its shape and the merchant's own references, never a phone number, a name, an email, an OTP or a
// secret in clear. Phone fields keep their country code and last four digits (what support reads
// back to a customer), names and emails their first letter, secrets nothing.

/** Bytes of one body kept at most: a bulk payout of 100 items is cut, with a note saying so. */
export const MAX_BODY_BYTES = 16 * 1024;

const phoneFields = new Set(['msisdn', 'phoneNumber', 'customerMsisdn', 'phone']);
const nameFields = new Set([
  'customerName',
  'name',
  'firstName',
  'lastName',
  'fullName',
  'accountHolderName',
]);
const emailFields = new Set(['email']);
const secretFields = new Set([
  'otp',
  'apiClient',
  'api_client',
  'secret',
  'authorization',
  'password',
  'token',
  'pin',
  'signature',
  'signingSecret',
]);
const urlFields = new Set(['url', 'paymentUrl', 'callbackUrl', 'successUrl', 'failureUrl', 'href']);
const emailPattern = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

const initial = (text: string): string => (text.trim() ? `${text.trim()[0]}***` : text);
const maskEmail = (email: string): string => {
  const [user = '', domain = ''] = email.split('@');
  return `${initial(user)}@${domain}`;
};

/** Free text: phone numbers shortened, emails reduced to their first letter, query credentials gone. */
export function maskFreeText(text: string): string {
  return maskText(text).replace(emailPattern, maskEmail);
}

function maskValue(value: unknown, field: string, depth: number): unknown {
  if (value === null || value === undefined) return value;
  if (secretFields.has(field)) return '[redacted]';
  if (typeof value === 'string') {
    if (phoneFields.has(field)) return maskMsisdn(value);
    if (nameFields.has(field)) return initial(value);
    if (emailFields.has(field)) return maskEmail(value);
    if (urlFields.has(field)) return maskText(value);
    return maskFreeText(value);
  }
  if (typeof value !== 'object') return value;
  if (depth > 8) return '[nested]';
  if (Array.isArray(value)) return value.map((v) => maskValue(v, field, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskValue(v, k, depth + 1)]),
  );
}

/** A JSON value with its personal data masked (see above). */
export function maskJson(value: unknown): unknown {
  return maskValue(value, '', 0);
}

export interface KeptBody {
  /** The masked body, as JSON text, cut at MAX_BODY_BYTES; null: none. */
  text: string | null;
  truncated: boolean;
}

/**
 * A body as the log keeps it: parsed JSON masked field by field, any other text masked as free
 * text (phone numbers inside a CSV line included), then cut.
 */
export function keepBody(body: unknown): KeptBody {
  if (body === undefined || body === null || body === '') return { text: null, truncated: false };
  let text: string;
  if (Buffer.isBuffer(body))
    text = maskPhonesInText(maskFreeText(body.subarray(0, MAX_BODY_BYTES * 2).toString('utf8')));
  else if (typeof body === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    text = parsed !== undefined ? JSON.stringify(maskJson(parsed)) : maskFreeText(body);
  } else text = JSON.stringify(maskJson(body));
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_BODY_BYTES) return { text, truncated: false };
  // Cut on a character boundary, then re-mask: a cut may split a phone number the mask would find.
  const cut = Buffer.from(text)
    .subarray(0, MAX_BODY_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: maskFreeText(cut.replace(/\d{5,}$/, '')), truncated: true };
}

// A path's segments that look like personal data (a phone number in a recipient check's path) are
// masked; its query string keeps the values of loggable parameters only (log-masking.ts).
export function maskPath(originalUrl: string): string {
  return maskText(originalUrl);
}
