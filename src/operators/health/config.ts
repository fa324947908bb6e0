import { z } from 'zod';

// Settings of the provider states (src/operators/health), spread into src/config.ts.
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h)$/, 'a duration such as 30s, 10m or 1h')
  .transform((text) => {
    const [, n, unit] = /^(\d+)(ms|s|m|h)$/.exec(text)!;
    return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  });

export const healthConfigShape = {
  /** Sliding window over which a provider's measured outcomes decide its state (at most 1h). */
  PROVIDER_HEALTH_WINDOW: duration.prefault('10m'),
  /** Fewer attempts than this in the window: the measure says nothing (operational). */
  PROVIDER_HEALTH_MIN_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** How long a process reuses the states it read (measures, overrides, published availability). */
  PROVIDER_HEALTH_CACHE: duration.prefault('5s'),
};
