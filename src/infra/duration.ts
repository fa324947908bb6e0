import { z } from 'zod';

// The one way a duration is written, in the environment and on the command line: a whole number
// and a unit. `d` is 24 hours exactly, not a calendar day (docs/decisions/operations/durations.md).

const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const pattern = /^(\d+)(ms|s|m|h|d)$/;

/** What a bad value's message asks for. */
export const durationHint = 'a duration such as 500ms, 30s, 15m, 48h or 7d';

/** "48h" -> milliseconds; anything else throws. */
export function parseDuration(text: string): number {
  const m = pattern.exec(text);
  if (!m) throw new Error(`not a duration: ${text} (${durationHint})`);
  return Number(m[1]) * unitMs[m[2] as keyof typeof unitMs];
}

/** A duration setting, parsed to milliseconds. */
export const duration = z.string().regex(pattern, durationHint).transform(parseDuration);
