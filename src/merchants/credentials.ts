import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Credential material. The api_key is a public identifier with a recognisable prefix; the
// api_client is a 32-byte random secret. Because the secret is uniformly random (256 bits) and
// never chosen by a person, a single SHA-256 is enough to store it: nothing can be guessed or
// precomputed, so a slow password hash (scrypt, argon2) would only add cost to every request.

export type KeyMode = 'live' | 'test';

/** `mk_live_...` / `mk_test_...`: recognisable in logs and by secret scanners, never secret itself. */
export function newApiKey(mode: KeyMode): string {
  return `mk_${mode}_${randomBytes(12).toString('hex')}`;
}

/** `sk_live_...` / `sk_test_...` followed by 32 random bytes, base64url. */
export function newSecret(mode: KeyMode): string {
  return `sk_${mode}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Shape check before any database read: rejects garbage keys without touching MongoDB. */
export function looksLikeApiKey(apiKey: string): boolean {
  return /^mk_(live|test)_[0-9a-f]{24}$/.test(apiKey);
}
