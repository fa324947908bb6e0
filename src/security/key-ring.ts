import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

// AES-256-GCM under named keys. The first key of a ring seals; every key of the ring opens, so a
// key can be rotated in (put first) while what the old one sealed still opens until it is dropped.

export interface SealedBox {
  /** Id of the key that sealed it. */
  kid: string;
  /** 12 random bytes. */
  iv: Buffer;
  /** Ciphertext followed by the 16-byte GCM tag. */
  data: Buffer;
}

export class KeyRingError extends Error {}

export class KeyRing {
  readonly current: string;
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(entries: ReadonlyArray<readonly [kid: string, key: Buffer]>) {
    if (entries.length === 0) throw new KeyRingError('a key ring needs at least one key');
    const keys = new Map<string, Buffer>();
    for (const [kid, key] of entries) {
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid))
        throw new KeyRingError(`key id "${kid}": 1-32 of A-Z a-z 0-9 _ -`);
      if (key.length !== 32)
        throw new KeyRingError(`key "${kid}": 32 bytes (64 hex or 44 base64 characters)`);
      if (keys.has(kid)) throw new KeyRingError(`key id "${kid}" appears twice`);
      keys.set(kid, key);
    }
    this.keys = keys;
    this.current = entries[0]![0];
  }

  get kids(): string[] {
    return [...this.keys.keys()];
  }

  has(kid: string): boolean {
    return this.keys.has(kid);
  }

  /** SHA-256 of each key (hex): compares keys (e.g. against published ones) without exposing them. */
  fingerprints(): string[] {
    return [...this.keys.values()].map((key) => createHash('sha256').update(key).digest('hex'));
  }

  /**
   * HMAC-SHA256 of `data` under a key derived (HKDF) from ring key `kid` for `purpose`: a digest of
   * data with little entropy (phone numbers, OTPs) that nobody without the key can test guesses on.
   */
  mac(data: string, purpose: string, kid: string = this.current): { kid: string; hex: string } {
    const key = this.keys.get(kid);
    if (!key) throw new KeyRingError(`no key "${kid}" in the ring`);
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));
    return { kid, hex: createHmac('sha256', derived).update(data, 'utf8').digest('hex') };
  }

  /** `aad` binds the box to its context (e.g. a document id): opening it elsewhere fails. */
  seal(plain: Uint8Array, aad?: Uint8Array): SealedBox {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.current)!, iv);
    if (aad) cipher.setAAD(aad);
    const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { kid: this.current, iv, data };
  }

  /** Throws a KeyRingError for an unknown key id or a box that was altered or sealed with another aad. */
  open(box: SealedBox, aad?: Uint8Array): Buffer {
    const key = this.keys.get(box.kid);
    if (!key) throw new KeyRingError(`no key "${box.kid}" in the ring (dropped too early?)`);
    if (box.iv.length !== 12 || box.data.length < 16) throw new KeyRingError('not a sealed box');
    const decipher = createDecipheriv('aes-256-gcm', key, box.iv);
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(box.data.subarray(box.data.length - 16));
    try {
      return Buffer.concat([decipher.update(box.data.subarray(0, box.data.length - 16)), decipher.final()]);
    } catch {
      throw new KeyRingError('a sealed box failed authentication (altered, or the wrong key or context)');
    }
  }

  /** A string for a database field: `v1.<kid>.<iv>.<data>` (base64url). */
  sealString(plain: string, aad?: string): string {
    const box = this.seal(
      Buffer.from(plain, 'utf8'),
      aad === undefined ? undefined : Buffer.from(aad, 'utf8'),
    );
    return `v1.${box.kid}.${box.iv.toString('base64url')}.${box.data.toString('base64url')}`;
  }

  openString(sealed: string, aad?: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') throw new KeyRingError('not a sealed string');
    const box = {
      kid: parts[1]!,
      iv: Buffer.from(parts[2]!, 'base64url'),
      data: Buffer.from(parts[3]!, 'base64url'),
    };
    return this.open(box, aad === undefined ? undefined : Buffer.from(aad, 'utf8')).toString('utf8');
  }
}

export function isSealedString(value: string): boolean {
  return /^v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

/**
 * `kid:key` entries separated by commas or new lines, newest first; a key is 32 bytes as 64 hex
 * characters or base64. Blank lines and `#` comments are ignored (key files).
 */
export function parseKeyRing(spec: string): KeyRing {
  const entries = spec
    .split(/[,\n]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.length > 0)
    .map((line): [string, Buffer] => {
      const at = line.indexOf(':');
      if (at <= 0) throw new KeyRingError('each key is "<kid>:<key>"');
      const kid = line.slice(0, at).trim();
      const text = line.slice(at + 1).trim();
      const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
      return [kid, key];
    });
  return new KeyRing(entries);
}

/** A ring from `<NAME>` or the file named by `<NAME>_FILE` (the file wins); undefined if neither is set. */
export function keyRingSpec(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = env[`${name}_FILE`];
  if (file) return readFileSync(file, 'utf8');
  return env[name];
}
