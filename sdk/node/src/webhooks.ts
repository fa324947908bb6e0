import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidWebhookSecretError, WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

// Standard Webhooks verification (https://www.standardwebhooks.com/): the signature is
// base64(HMAC-SHA256(secret, "{webhook-id}.{webhook-timestamp}.{body}")), sent as "v1,<sig>" and
// space-separated when several secrets sign (rotation). node:crypto does it in a few lines, so the
// SDK needs no library for it.

export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyOptions {
  /** Accepted clock difference, in seconds, either way (default 300: five minutes). */
  toleranceSeconds?: number;
  /** The present time in Unix seconds (tests). */
  now?: number;
}

export const defaultToleranceSeconds = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard Webhooks: a symmetric secret is 24 to 64 random bytes (192 to 512 bits). */
const webhookSecretMinBytes = 24;
const webhookSecretMaxBytes = 64;
const strictBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const expected = `expected "whsec_" followed by the base64 of ${webhookSecretMinBytes} to ${webhookSecretMaxBytes} bytes`;

/**
 * The HMAC key of a secret: the base64 after `whsec_` (a bare base64 secret is accepted too), or raw
 * bytes. Refuses, as the PHP and Python SDKs do, a secret that is empty, `whsec_` alone, not strict
 * base64 (Buffer.from would skip what is not base64 and sign with what is left, even nothing), or
 * not 24 to 64 bytes: with an empty key anyone can sign. The message never quotes the secret.
 */
function secretKey(secret: string | Uint8Array): Buffer {
  let key: Buffer;
  if (typeof secret === 'string') {
    const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
    if (encoded === '')
      throw new InvalidWebhookSecretError(`The webhook secret is empty (is it set?); ${expected}`);
    if (!strictBase64.test(encoded))
      throw new InvalidWebhookSecretError(`The webhook secret is not valid base64; ${expected}`);
    key = Buffer.from(encoded, 'base64');
  } else if (secret instanceof Uint8Array) key = Buffer.from(secret);
  else throw new InvalidWebhookSecretError(`The webhook secret is not a string; ${expected}`);
  if (key.length < webhookSecretMinBytes || key.length > webhookSecretMaxBytes)
    throw new InvalidWebhookSecretError(`The webhook secret decodes to ${key.length} bytes; ${expected}`);
  return key;
}

/** The HMAC keys of one or several secrets; refuses an empty list and any invalid secret. */
function secretKeys(secrets: string | Uint8Array | (string | Uint8Array)[]): Buffer[] {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0) throw new InvalidWebhookSecretError(`No webhook secret given; ${expected}`);
  return list.map(secretKey);
}

function sign(key: Buffer, msgId: string, timestamp: number, payload: string | Buffer): Buffer {
  return createHmac('sha256', key)
    .update(`${msgId}.${timestamp}.`)
    .update(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload)
    .digest();
}

/** The `v1,<base64>` signature of a message (for tests and for signing your own forwards). */
export function signWebhook(
  secret: string | Uint8Array,
  msgId: string,
  timestamp: number,
  payload: string | Buffer,
): string {
  return `v1,${sign(secretKey(secret), msgId, timestamp, payload).toString('base64')}`;
}

/**
 * Verifies a webhook on its raw body and answers the typed event. `secrets` is one `whsec_…` or
 * several (during a rotation, any one matching is enough). Throws WebhookVerificationError when
 * a header is missing, the timestamp is outside the tolerance or no signature matches, and
 * InvalidWebhookSecretError, before looking at the request, when a secret is empty or malformed.
 */
export function verifyWebhook(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secrets: string | Uint8Array | (string | Uint8Array)[],
  options: VerifyOptions = {},
): WebhookEvent {
  const keys = secretKeys(secrets);
  const msgId = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!msgId || !timestampHeader || !signatureHeader)
    throw new WebhookVerificationError('Missing required headers');
  if (!/^\d+$/.test(timestampHeader)) throw new WebhookVerificationError('Invalid Signature Headers');
  const timestamp = Number(timestampHeader);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? defaultToleranceSeconds;
  if (timestamp < now - tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (timestamp > now + tolerance) throw new WebhookVerificationError('Message timestamp too new');

  const given = signatureHeader
    .split(' ')
    .map((part) => part.split(','))
    .filter(([version, sig]) => version === 'v1' && sig)
    .map(([, sig]) => Buffer.from(sig as string, 'base64'));
  const matched = keys.some((key) => {
    const mac = sign(key, msgId, timestamp, payload);
    return given.some((sig) => sig.length === mac.length && timingSafeEqual(sig, mac));
  });
  if (!matched) throw new WebhookVerificationError('No matching signature found');

  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}
