import { createHash } from 'node:crypto';
import type { KeyRing } from './key-ring';

// A request's fingerprint tells a same-key retry from another request (idempotency). Bodies hold
// phone numbers and OTPs, which a plain hash would let anyone reading the database guess offline;
// so it is keyed: `<kid>.<HMAC>` under DATA_ENCRYPTION_KEYS.

const purpose = 'request-fingerprint/v1';

export function fingerprintOf(text: string, keys?: KeyRing, kid?: string): string {
  if (!keys) return createHash('sha256').update(text).digest('hex');
  const { kid: used, hex } = keys.mac(text, purpose, kid);
  return `${used}.${hex}`;
}

/** The key id a fingerprint was made with; null for an unkeyed one (stored before keys existed). */
export function fingerprintKid(fingerprint: string): string | null {
  const dot = fingerprint.indexOf('.');
  return dot > 0 ? fingerprint.slice(0, dot) : null;
}

/**
 * Whether two fingerprints show two different requests. Made under different keys (a rotation in
 * between, or one stored before keys) they cannot be compared: taken as the same request, as a
 * record stored before fingerprints existed is.
 */
export function fingerprintsDiffer(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  if (fingerprintKid(a) !== fingerprintKid(b)) return false;
  return a !== b;
}
