import argon2 from 'argon2';

// argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane): a few tens of
// milliseconds here, affordable per sign-in, costly per guess.
const options = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, options);

// An unknown address is checked against this hash, so it takes as long as a wrong password.
let dummy: Promise<string> | null = null;

/** Verifies `password` against `hash`, or against a dummy hash (always false) when there is none. */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    dummy ??= hashPassword('dummy password, never matches');
    await argon2.verify(await dummy, password).catch(() => false);
    return false;
  }
  return argon2.verify(hash, password).catch(() => false);
}
