import { maskMsisdn } from '../domain/msisdn';

// Phone numbers are personal data: a log keeps their country code and last four digits only.
// A URL's query may hold a credential (a statement link's `signature`, MTN's callback `sig`, a
// websocket `token`): a log keeps the values of the parameters named below only.

const phoneFields = new Set(['msisdn', 'phoneNumber', 'customerMsisdn', 'phone']);
// A query string may carry the plus percent-encoded (%2B): masked too.
const e164 = /(?:\+|%2[bB]|\b)\d{9,15}\b/g;

export function maskPhonesInText(text: string): string {
  return text.replace(e164, (m) => maskMsisdn(m));
}

/**
 * The query parameters whose values a log keeps: the API's own filters, paging and dates, and the
 * kind and reference of an MTN callback. Any other value is, or may be, a credential or personal
 * data (a link's signature, a callback's sig, a token, a merchant's metadata): an allow-list, so a
 * parameter added later is redacted until someone decides it may be logged.
 */
export const loggableQueryParams: ReadonlySet<string> = new Set([
  'limit',
  'cursor',
  'type',
  'status',
  'provider',
  'country',
  'from',
  'to',
  'reference',
  'eventId',
  'delivered',
  'expires',
  'lang',
  'kind',
  'ref',
  // A phone number: kept for the phone mask (maskPhonesInText) to shorten.
  'msisdn',
]);

// `?name=value` or `&name=value` anywhere in a text (a URL alone, or a URL quoted in a message).
const queryPair = /([?&])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g;

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Every query value of `text` whose parameter is not loggable becomes `[redacted]`. */
export function redactQueryValues(text: string): string {
  return text.replace(queryPair, (pair, sep: string, name: string, value: string) =>
    value === '' || loggableQueryParams.has(paramName(name)) ? pair : `${sep}${name}=[redacted]`,
  );
}

// A dashboard link's token is its path's last segment (/dashboard/invitations/<token>,
// /dashboard/api/invitations/<token>/accept, /dashboard/reset-password/<token>): a credential.
const linkToken = /(\/dashboard(?:\/api)?\/(?:invitations|reset-password)\/)[A-Za-z0-9_-]{16,}/g;

/** A path with the dashboard's link tokens replaced by `[redacted]`. */
export function redactLinkTokens(text: string): string {
  return text.replace(linkToken, '$1[redacted]');
}

/** What a log may keep of a free text or a URL: query credentials removed, phone numbers masked. */
export function maskText(text: string): string {
  return maskPhonesInText(redactLinkTokens(redactQueryValues(text)));
}

// Fields that hold a URL or a request target: logged with their query credentials removed.
const urlFields = new Set(['url', 'originalUrl', 'path', 'href', 'callbackUrl']);

/**
 * pino's redact censor: phone fields masked, URL fields without their query credentials,
 * everything else (secrets, OTPs, credentials) removed.
 */
export function censor(value: unknown, path: string[]): unknown {
  const field = path[path.length - 1] ?? '';
  if (phoneFields.has(field)) return typeof value === 'string' ? maskMsisdn(value) : '[redacted]';
  if (urlFields.has(field)) return typeof value === 'string' ? maskText(value) : value;
  return '[redacted]';
}

const secretFields = ['otp', 'apiClient', 'secret', 'authorization', 'password', 'token'];
/** Redact paths up to three levels deep (pino's wildcards match one level each). */
export const redactPaths = [...secretFields, ...phoneFields, ...urlFields].flatMap((f) => [
  f,
  `*.${f}`,
  `*.*.${f}`,
  `*.*.*.${f}`,
]);
