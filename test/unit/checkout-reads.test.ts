import { SessionCache } from '../../src/checkout/session-cache';
import { loadConfig } from '../../src/config';

// The checkout page's read cache (bounded, least recently used out, a few seconds' life) and the
// TRUST_PROXY setting that names the client address its limits are keyed on.
describe('checkout session cache', () => {
  it('serves an entry until its time is up, then reads again', () => {
    let now = 1_000;
    const cache = new SessionCache<string>(2_000, 10, () => now);
    cache.set('a', 'first');
    now += 1_999;
    expect(cache.get('a')).toBe('first');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most its bound, dropping the least recently used', () => {
    const cache = new SessionCache<number>(60_000, 3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
  });

  it('forgets an entry on demand (after a customer answer), and caches nothing with a zero life', () => {
    const cache = new SessionCache<number>(60_000, 3);
    cache.set('a', 1);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    const off = new SessionCache<number>(0, 3);
    off.set('a', 1);
    expect(off.get('a')).toBeUndefined();
  });
});

describe('TRUST_PROXY', () => {
  const trust = (value?: string) => loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;

  it('defaults to loopback proxies only and takes express forms', () => {
    expect(trust()).toEqual(['loopback']);
    expect(trust('false')).toBe(false);
    expect(trust('off')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('true')).toBe(true);
    expect(trust('10.0.0.0/8, uniquelocal,fd00::1')).toEqual(['10.0.0.0/8', 'uniquelocal', 'fd00::1']);
  });

  it('refuses what express would misread, naming the variable', () => {
    for (const bad of ['', 'yes', '10.1', '10.0.0.0/33', 'loopback,nginx'])
      expect(() => trust(bad)).toThrow(/TRUST_PROXY/);
  });
});
