import type { Mode } from '../../domain/modes';

// A provider's state for one operation, from what we measured over a sliding window, what the
// provider publishes, and what ops forced. Pure: the store feeds it, tests drive it directly.

export const healthStates = ['operational', 'delayed', 'closed'] as const;
export type HealthState = (typeof healthStates)[number];
export const healthOperations = ['payin', 'payout', 'refund'] as const;
export type HealthOperation = (typeof healthOperations)[number];
/** ok: an answer (even a failure); refused: the provider refused the request; unavailable: no answer. */
export type MeasuredOutcome = 'ok' | 'refused' | 'unavailable';

export interface Counts {
  ok: number;
  refused: number;
  unavailable: number;
}

/** One minute of outcomes (all processes summed or not: the computation adds them up). */
export interface MinuteCounts extends Counts {
  /** Unix minute (Math.floor(ms / 60000)). */
  minute: number;
}

export interface HealthOverride {
  state: HealthState;
  /** ISO time it stops applying. */
  until: string;
  /** ISO time it was set. */
  since: string;
  reason: string;
}

export interface HealthInput {
  mode: Mode;
  nowMs: number;
  windowMs: number;
  minAttempts: number;
  minutes: readonly MinuteCounts[];
  published: HealthState | null;
  override: HealthOverride | null;
  /** A live pair with no route cannot be served at all. */
  routed: boolean;
}

export interface HealthAnswer {
  state: HealthState;
  since: string | null;
  retryAfterSeconds: number | null;
  reason: string;
}

const rank: Record<HealthState, number> = { operational: 0, delayed: 1, closed: 2 };
export const worse = (a: HealthState, b: HealthState): HealthState => (rank[a] >= rank[b] ? a : b);

export const DEFAULT_RETRY_AFTER_SECONDS = 60;
const MAX_RETRY_AFTER_SECONDS = 3600;

const answer = (state: HealthState, since: string | null, reason: string): HealthAnswer => ({
  state,
  since: state === 'operational' ? null : since,
  retryAfterSeconds: state === 'operational' ? null : DEFAULT_RETRY_AFTER_SECONDS,
  reason,
});

export function computeHealth(input: HealthInput): HealthAnswer {
  const { override, nowMs } = input;
  // Ops know something we cannot measure (an announced outage, a recovery): theirs wins until it expires.
  if (override && Date.parse(override.until) > nowMs) {
    const remaining = Math.ceil((Date.parse(override.until) - nowMs) / 1000);
    return {
      state: override.state,
      since: override.since,
      retryAfterSeconds:
        override.state === 'operational' ? null : Math.max(1, Math.min(remaining, MAX_RETRY_AFTER_SECONDS)),
      reason: `override: ${override.reason}`,
    };
  }
  if (!input.routed) return answer('closed', null, 'not routed');

  const fromMinute = Math.floor((nowMs - input.windowMs) / 60_000);
  const inWindow = input.minutes.filter((m) => m.minute >= fromMinute).sort((a, b) => a.minute - b.minute);
  const total = { ok: 0, refused: 0, unavailable: 0 };
  for (const m of inWindow) {
    total.ok += m.ok;
    total.refused += m.refused;
    total.unavailable += m.unavailable;
  }
  const attempts = total.ok + total.refused + total.unavailable;
  let measured: HealthState = 'operational';
  if (attempts > 0 && attempts >= input.minAttempts) {
    const share = total.unavailable / attempts;
    measured = share >= 0.5 ? 'closed' : share >= 0.2 ? 'delayed' : 'operational';
  }
  const firstTrouble = inWindow.find((m) => m.unavailable > 0);
  const measuredSince = firstTrouble ? new Date(firstTrouble.minute * 60_000).toISOString() : null;
  const published = input.published ?? 'operational';
  if (rank[published] > rank[measured]) return answer(published, null, 'published by the provider');
  return answer(
    measured,
    measuredSince,
    measured === 'operational'
      ? 'operational'
      : `${total.unavailable} of ${attempts} attempts unanswered in the window`,
  );
}
