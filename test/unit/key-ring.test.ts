import { KeyRingError, parseKeyRing } from '../../src/security/key-ring';
import { fingerprintOf, fingerprintsDiffer } from '../../src/security/request-fingerprint';

describe('key ring (AES-256-GCM under named keys)', () => {
  const old = parseKeyRing(`k1:${'01'.repeat(32)}`);
  const rotated = parseKeyRing(`k2:${'02'.repeat(32)},k1:${'01'.repeat(32)}`);

  it('seals with the newest key and opens with any key of the ring', () => {
    const before = old.sealString('+2250700000000');
    expect(before).not.toContain('2250700000000');
    const after = rotated.sealString('+2250700000000');
    expect(after.split('.')[1]).toBe('k2');
    expect(rotated.openString(before)).toBe('+2250700000000');
    expect(rotated.openString(after)).toBe('+2250700000000');
    expect(() => old.openString(after)).toThrow(/no key "k2"/);
  });

  it('refuses an altered box, another context, and malformed input', () => {
    const sealed = rotated.sealString('123456', 'otp:pr_1');
    expect(rotated.openString(sealed, 'otp:pr_1')).toBe('123456');
    expect(() => rotated.openString(sealed, 'otp:pr_2')).toThrow(KeyRingError);
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64url');
    data[0] = data[0]! ^ 1;
    expect(() =>
      rotated.openString([...parts.slice(0, 3), data.toString('base64url')].join('.'), 'otp:pr_1'),
    ).toThrow(/failed authentication/);
    expect(() => rotated.openString('plain')).toThrow(/not a sealed string/);
  });

  it('validates key specs', () => {
    expect(() => parseKeyRing('')).toThrow(/at least one key/);
    expect(() => parseKeyRing('nokid')).toThrow(/<kid>:<key>/);
    expect(() => parseKeyRing('k:abcd')).toThrow(/32 bytes/);
    expect(() => parseKeyRing(`k:${'00'.repeat(32)},k:${'11'.repeat(32)}`)).toThrow(/twice/);
    expect(() => parseKeyRing(`bad id:${'00'.repeat(32)}`)).toThrow(/key id/);
  });
});

describe('request fingerprints', () => {
  const ring = parseKeyRing(`k2:${'02'.repeat(32)},k1:${'01'.repeat(32)}`);
  it('are keyed MACs that compare only under the same key', () => {
    const a = fingerprintOf('POST\n/v1/direct/payin\n{"msisdn":"+2250700000000"}', ring);
    expect(a).toMatch(/^k2\.[0-9a-f]{64}$/);
    expect(fingerprintOf('same', ring, 'k1')).not.toBe(fingerprintOf('same', ring));
    expect(fingerprintsDiffer(a, fingerprintOf('other', ring))).toBe(true);
    expect(fingerprintsDiffer(a, a)).toBe(false);
    // Under different keys, or one unkeyed (stored before): not comparable, taken as the same request.
    expect(fingerprintsDiffer(fingerprintOf('x', ring, 'k1'), fingerprintOf('y', ring))).toBe(false);
    expect(fingerprintsDiffer(fingerprintOf('x'), a)).toBe(false);
    expect(fingerprintsDiffer(null, a)).toBe(false);
  });
});
