import { authenticator } from 'otplib';
import QRCode from 'qrcode';

// RFC 6238 codes (30 s, 6 digits, SHA-1: what every authenticator app reads) through otplib. One
// step either side is accepted: a phone's clock a few seconds off still signs in.
const totp = authenticator.clone({ window: 1 });

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

export function totpValid(secret: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  try {
    return totp.check(code, secret);
  } catch {
    return false;
  }
}

/** The code of now (tests, and nothing else: the server never needs to produce one). */
export const totpCode = (secret: string): string => totp.generate(secret);
