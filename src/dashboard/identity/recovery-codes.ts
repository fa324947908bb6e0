import { createHash, randomInt } from 'node:crypto';
import type { TokenUses } from './tokens';

// TOTP recovery codes (docs/decisions/dashboard/totp-recovery-codes.md): ten per set, made when
// TOTP is turned on and when the member asks for a new set, shown once. The member record keeps
// their SHA-256 (salted by the member id) only. Each works once in place of a TOTP code: its use is
// an insert under `recovery:<member>:<hash>` in the single-use collection (tokens.ts), so of two
// sign-ins racing with one code, one wins (no compare-and-set: FerretDB's updates are not atomic).

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32, lower case: no i, l, o, u; 16 characters, 80 bits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A new code, as shown: `xxxx-xxxx-xxxx-xxxx`. */
export function newRecoveryCode(): string {
  const chars = Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]!);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

/** What the member typed, in the alphabet: case, spaces and dashes ignored, o/i/l read as 0/1/1. */
export function normalizeRecoveryCode(typed: string): string | null {
  const s = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return /^[0-9a-hjkmnp-tv-z]{16}$/.test(s) ? s : null;
}

export const hashRecoveryCode = (memberId: string, code: string): string =>
  createHash('sha256')
    .update(`recovery:${memberId}:${normalizeRecoveryCode(code) ?? code}`, 'utf8')
    .digest('hex');

/** Whether a second factor typed at sign-in looks like a recovery code rather than a TOTP code. */
export const looksLikeRecoveryCode = (typed: string): boolean => normalizeRecoveryCode(typed) !== null;

export class RecoveryCodes {
  constructor(private readonly uses: TokenUses) {}

  /** A new set for the member: the codes (shown once) and their hashes (stored). */
  generate(memberId: string): { codes: string[]; hashes: string[] } {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    return { codes, hashes: codes.map((c) => hashRecoveryCode(memberId, c)) };
  }

  /** True for the one use of a code of the member's current set; false otherwise. */
  async consume(member: { _id: string; recoveryCodes: string[] }, typed: string): Promise<boolean> {
    if (normalizeRecoveryCode(typed) === null) return false;
    const hash = hashRecoveryCode(member._id, typed);
    // A member stored before recovery codes existed has no field: no codes.
    if (!(member.recoveryCodes ?? []).includes(hash)) return false;
    return this.uses.consume(`recovery:${member._id}:${hash}`);
  }

  /** How many codes of the member's current set are still unused. */
  async remaining(member: { _id: string; recoveryCodes: string[] }): Promise<number> {
    const hashes = member.recoveryCodes ?? [];
    if (hashes.length === 0) return 0;
    return hashes.length - (await this.uses.countUsed(hashes.map((h) => `recovery:${member._id}:${h}`)));
  }
}
