import { createHmac, timingSafeEqual } from 'node:crypto';

// Operator callbacks are signed like Stripe's webhooks: `X-Operator-Signature: t=<unix>,v1=<hex>`,
// where v1 = HMAC-SHA256(secret, `${t}.${rawBody}`). The timestamp bounds replays to the tolerance.

export const signatureHeader = 'x-operator-signature';
export const signatureToleranceSec = 300;

function mac(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export function signCallback(secret: string, body: string, nowSec = Math.floor(Date.now() / 1000)): string {
  return `t=${nowSec},v1=${mac(secret, nowSec, body)}`;
}

/** True when the header carries a v1 signature of exactly this body, made within the tolerance. */
export function verifyCallbackSignature(
  secret: string,
  body: string | Buffer,
  header: string | undefined,
  nowSec = Math.floor(Date.now() / 1000),
  toleranceSec = signatureToleranceSec,
): boolean {
  return verifiedCallbackTimestamp(secret, body, header, nowSec, toleranceSec) !== null;
}

/**
 * The signed timestamp (unix seconds) when the header carries a v1 signature of exactly this body
 * made within the tolerance; null otherwise. The timestamp and body are what the signature covers,
 * so together they name one signed callback (the header's other parts can be altered freely).
 */
export function verifiedCallbackTimestamp(
  secret: string,
  body: string | Buffer,
  header: string | undefined,
  nowSec = Math.floor(Date.now() / 1000),
  toleranceSec = signatureToleranceSec,
): number | null {
  if (!header) return null;
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/.test(v)) candidates.push(v);
  }
  if (timestamp === null || candidates.length === 0) return null;
  if (Math.abs(nowSec - timestamp) > toleranceSec) return null;
  const expected = Buffer.from(mac(secret, timestamp, body), 'hex');
  // Every candidate is compared in constant time; several v1 values allow a secret rotation.
  const valid = candidates
    .map((c) => timingSafeEqual(expected, Buffer.from(c, 'hex')))
    .reduce((a, b) => a || b, false);
  return valid ? timestamp : null;
}
