import { parseDuration } from '../../src/infra/duration';
import { loadConfig } from '../../src/config';

// One duration syntax for every setting and command (src/infra/duration.ts): a whole number and
// ms, s, m, h or d, where d is 24 hours (docs/decisions/operations/durations.md).

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['0ms', 0],
    ['30s', 30_000],
    ['15m', 900_000],
    ['48h', 172_800_000],
    ['7d', 604_800_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['2 days', '1.5h', '10', 'h', '-1s', '1w', '1D', ' 1h'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });

  it('reads d as 24 hours in every setting, provider health included', () => {
    const c = loadConfig({ REFUND_WINDOW: '2d', PROVIDER_HEALTH_CACHE: '1d', PROVIDER_HEALTH_WINDOW: '1d' });
    expect(c.REFUND_WINDOW).toBe(2 * 86_400_000);
    expect(c.PROVIDER_HEALTH_CACHE).toBe(86_400_000);
    expect(c.PROVIDER_HEALTH_WINDOW).toBe(86_400_000);
  });

  it('names the accepted forms when a setting is not a duration', () => {
    expect(() => loadConfig({ PROVIDER_HEALTH_CACHE: '5 seconds' })).toThrow(
      /PROVIDER_HEALTH_CACHE: a duration such as 500ms, 30s, 15m, 48h or 7d/,
    );
  });
});
