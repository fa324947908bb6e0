import {
  hashRecoveryCode,
  looksLikeRecoveryCode,
  newRecoveryCode,
  normalizeRecoveryCode,
} from '../../src/dashboard/identity/recovery-codes';
import { deviceOf, publicSessionId } from '../../src/dashboard/access/sessions';

// Recovery codes as shown and as typed back (docs/decisions/dashboard/totp-recovery-codes.md), and
// the list of one's sessions: a device reading of the User-Agent, an id that is not the stored one.

describe('recovery codes', () => {
  it('are 16 characters of Crockford base32 in four groups, all different', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const c of codes) expect(c).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('are read back whatever the case, spaces and dashes, with o, i and l read as digits', () => {
    const code = 'ab01-cd23-ef45-gh67';
    expect(normalizeRecoveryCode(' AB01 CD23-EF45GH67 ')).toBe('ab01cd23ef45gh67');
    expect(normalizeRecoveryCode('abo1-cd23-ef45-gh67')).toBe('ab01cd23ef45gh67');
    expect(normalizeRecoveryCode('ab0l-cd23-ef45-gh67')).toBe('ab01cd23ef45gh67');
    expect(hashRecoveryCode('mem_1', 'AB01CD23EF45GH67')).toBe(hashRecoveryCode('mem_1', code));
    // Salted by the member: the same code of another member is another hash.
    expect(hashRecoveryCode('mem_2', code)).not.toBe(hashRecoveryCode('mem_1', code));
  });

  it('are told from a 6-digit TOTP code', () => {
    expect(looksLikeRecoveryCode('123456')).toBe(false);
    expect(looksLikeRecoveryCode('ab01-cd23-ef45-gh67')).toBe(true);
    expect(looksLikeRecoveryCode('ab01-cd23-ef45-gh6')).toBe(false);
    expect(looksLikeRecoveryCode('ab01-cd23-ef45-gh6u')).toBe(false);
  });
});

describe("one's sessions", () => {
  it('names the browser and the system of a User-Agent', () => {
    expect(
      deviceOf(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0',
      ),
    ).toBe('Edge on Windows');
    expect(
      deviceOf(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iOS');
    expect(deviceOf('Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0')).toBe(
      'Firefox on Linux',
    );
    expect(deviceOf('curl/8.5.0')).toBe('curl/8.5.0');
    expect(deviceOf('')).toBe('Unknown device');
  });

  it('shows an id derived from the stored one, never the stored one', () => {
    const stored = 'a'.repeat(64);
    expect(publicSessionId(stored)).toMatch(/^ses_[0-9a-f]{24}$/);
    expect(publicSessionId(stored)).not.toContain(stored.slice(0, 24));
    expect(publicSessionId(stored)).toBe(publicSessionId(stored));
  });
});
