import { loadConfig, parseDuration, ConfigError } from '../../src/config';

describe('configuration', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'payments',
      PAYIN_EXPIRY: 900_000,
    });
    expect(c.REFUND_WINDOW).toBe(7 * 86_400_000);
  });

  it('names each bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc', PAYIN_EXPIRY: 'soon', MONGODB_URI: 'not a url' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: 'abc', PAYIN_EXPIRY: 'soon' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT:/);
      expect((err as Error).message).toMatch(/PAYIN_EXPIRY: a duration/);
    }
  });

  it('parses durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('48h')).toBe(172_800_000);
    expect(() => parseDuration('2 days')).toThrow();
  });
});
