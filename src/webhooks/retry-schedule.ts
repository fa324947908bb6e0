// Workflow-safe (pure): when the delivery workflow tries again after a failed attempt.
// 11 attempts over about three days: immediately, then after 5s, 1m, 5m, 30m, 2h, 5h, 10h, 12h,
// 16h and 24h (cumulative ~2.9 days), each delay with ±20% jitter so that retries of many
// deliveries to one recovering merchant do not arrive together.

const s = 1000;
const m = 60 * s;
const h = 60 * m;
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * s,
  1 * m,
  5 * m,
  30 * m,
  2 * h,
  5 * h,
  10 * h,
  12 * h,
  16 * h,
  24 * h,
];
/** A Retry-After longer than this is capped, so one answer cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER_MS = 24 * h;

/**
 * The delay after failed attempt number `attempt` (1-based), or null when the schedule is spent.
 * `random` is in [0, 1). A Retry-After is honoured: never retry before it.
 */
export function nextRetryDelayMs(
  attempt: number,
  retryAfterMs: number | null,
  random: number,
): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.8 + 0.4 * random));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}
