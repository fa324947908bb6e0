import { computeHealth, type HealthInput } from '../../src/operators/health/state';

const now = Date.parse('2026-11-23T12:00:30Z');
const minute = Math.floor(now / 60_000);
const base: HealthInput = {
  mode: 'live',
  nowMs: now,
  windowMs: 10 * 60_000,
  minAttempts: 5,
  minutes: [],
  published: null,
  override: null,
  routed: true,
};
const counts = (ok: number, unavailable: number, refused = 0, at = minute) => [
  { minute: at, ok, refused, unavailable },
];

describe('provider health state', () => {
  it('is operational with no data', () => {
    expect(computeHealth(base)).toMatchObject({ state: 'operational', since: null, retryAfterSeconds: null });
  });

  it('closes at half the attempts unanswered, delays at a fifth, stays operational below', () => {
    expect(computeHealth({ ...base, minutes: counts(5, 5) })).toMatchObject({
      state: 'closed',
      retryAfterSeconds: 60,
      since: new Date(minute * 60_000).toISOString(),
    });
    expect(computeHealth({ ...base, minutes: counts(8, 2) }).state).toBe('delayed');
    expect(computeHealth({ ...base, minutes: counts(9, 1) }).state).toBe('operational');
    // Refusals are answers: they do not count against availability.
    expect(computeHealth({ ...base, minutes: counts(0, 1, 9) }).state).toBe('operational');
  });

  it('says nothing below the minimum number of attempts', () => {
    expect(computeHealth({ ...base, minutes: counts(0, 4) }).state).toBe('operational');
  });

  it('forgets what is outside the window', () => {
    expect(computeHealth({ ...base, minutes: counts(0, 10, 0, minute - 11) }).state).toBe('operational');
    expect(computeHealth({ ...base, minutes: counts(0, 10, 0, minute - 9) }).state).toBe('closed');
  });

  it('takes the published availability when it is worse', () => {
    expect(computeHealth({ ...base, published: 'closed' }).state).toBe('closed');
    expect(computeHealth({ ...base, minutes: counts(0, 10), published: 'delayed' }).state).toBe('closed');
  });

  it('closes a pair that is not routed', () => {
    expect(computeHealth({ ...base, routed: false })).toMatchObject({
      state: 'closed',
      reason: 'not routed',
    });
  });

  it('lets an override win until it expires', () => {
    const override = {
      state: 'operational' as const,
      since: new Date(now - 1000).toISOString(),
      until: new Date(now + 120_000).toISOString(),
      reason: 'recovered',
    };
    expect(computeHealth({ ...base, minutes: counts(0, 10), override }).state).toBe('operational');
    const closed = { ...override, state: 'closed' as const };
    expect(computeHealth({ ...base, override: closed })).toMatchObject({
      state: 'closed',
      retryAfterSeconds: 120,
    });
    const long = { ...closed, until: new Date(now + 10 * 3600_000).toISOString() };
    expect(computeHealth({ ...base, override: long }).retryAfterSeconds).toBe(3600);
    const expired = { ...closed, until: new Date(now - 1).toISOString() };
    expect(computeHealth({ ...base, override: expired }).state).toBe('operational');
  });
});
