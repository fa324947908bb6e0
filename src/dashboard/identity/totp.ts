import { generateSecret, generateURI, verifySync } from 'otplib';
import QRCode from 'qrcode';

// RFC 6238 codes (30 s, 6 digits, SHA-1: what every authenticator app reads) through otplib.

export const newTotpSecret = (): string => generateSecret();

/** The otpauth:// URL and its QR code (an SVG data URL: the page's CSP allows img-src data:). */
export async function totpEnrolment(
  secret: string,
  email: string,
  issuer: string,
): Promise<{ otpauthUrl: string; qrCode: string }> {
  const otpauthUrl = generateURI({ secret, label: email, issuer });
  const svg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1 });
  return { otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** One step either side is accepted: a phone's clock a few seconds off still signs in. */
export function totpValid(secret: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  try {
    return verifySync({ secret, token: code, epochTolerance: 30 }).valid;
  } catch {
    return false;
  }
}
