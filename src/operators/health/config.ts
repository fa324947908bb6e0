import { z } from 'zod';
import { duration } from '../../infra/duration';

// Settings of the provider states (src/operators/health), spread into src/config.ts.

export const healthConfigShape = {
  /** Sliding window over which a provider's measured outcomes decide its state (at most 1h). */
  PROVIDER_HEALTH_WINDOW: duration.prefault('10m'),
  /** Fewer attempts than this in the window: the measure says nothing (operational). */
  PROVIDER_HEALTH_MIN_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** How long a process reuses the states it read (measures, overrides, published availability). */
  PROVIDER_HEALTH_CACHE: duration.prefault('5s'),
};
