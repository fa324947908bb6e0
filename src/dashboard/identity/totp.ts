import { authenticator } from 'otplib';
import QRCode from 'qrcode';

// RFC 6238 codes (30 s, 6 digits, SHA-1: what every authenticator app reads) through otplib. One
// step either side is accepted: a phone's clock a few seconds off still signs in.
const STEP_SECONDS = 30;
const totp = authenticator.clone({ window: 1, step: STEP_SECONDS });

/** 20 random bytes, base32 (what authenticator apps expect). */
export const newTotpSecret = (): string => totp.generateSecret(20);

/** The otpauth:// URL and its QR code (an SVG data URL: the page's CSP allows img-src data:). */
export async function totpEnrolment(
  secret: string,
  email: string,
  issuer: string,
): Promise<{ otpauthUrl: string; qrCode: string }> {
  const otpauthUrl = totp.keyuri(email, issuer, secret);
  const svg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1 });
  return { otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/**
 * The 30-second step a valid code belongs to, or null. RFC 6238 §5.2: a code is accepted once, so
 * callers consume this step per member (single use is an insert under a unique key).
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const delta = totp.clone({ epoch: now }).checkDelta(code, secret);
    return delta === null ? null : Math.floor(now / 1000 / STEP_SECONDS) + delta;
  } catch {
    return null;
  }
}

/** The code of a moment (tests, and nothing else: the server never needs to produce one). */
export const totpCode = (secret: string, at = Date.now()): string =>
  totp.clone({ epoch: at }).generate(secret);
