import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
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

/** The HMAC key of a secret: the base64 after `whsec_` (a bare base64 secret is accepted too). */
function secretKey(secret: string | Uint8Array): Buffer {
  if (typeof secret !== 'string') return Buffer.from(secret);
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** The `v1,<base64>` signature of a message (for tests and for signing your own forwards). */
export function signWebhook(
  secret: string | Uint8Array,
  msgId: string,
  timestamp: number,
  payload: string | Buffer,
): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${msgId}.${timestamp}.`)
    .update(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Verifies a webhook on its raw body and answers the typed event. `secrets` is one `whsec_…` or
 * several (during a rotation, any one matching is enough). Throws WebhookVerificationError when
 * a header is missing, the timestamp is outside the tolerance or no signature matches.
 */
export function verifyWebhook(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secrets: string | Uint8Array | (string | Uint8Array)[],
  options: VerifyOptions = {},
): WebhookEvent {
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
  const list = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0 || list.some((s) => !s || s.length === 0))
    throw new WebhookVerificationError('A webhook secret is empty');
  const matched = list.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, msgId, timestamp, payload).slice(3), 'base64');
    return given.some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected));
  });
  if (!matched) throw new WebhookVerificationError('No matching signature found');

  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}
