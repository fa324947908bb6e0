import { z } from 'zod';
import { configDocs } from '../../infra/config-docs';
import { duration } from '../../infra/duration';

// Settings of the provider states (src/operators/health), spread into src/config.ts.

export const healthConfigShape = {
  PROVIDER_HEALTH_WINDOW: duration.prefault('10m').register(configDocs, {
    group: 'health',
    description:
      "The sliding window of measured live outcomes a provider's state (operational, delayed, closed) is computed over, at most 1 hour (docs/provider-health.md).",
  }),
  PROVIDER_HEALTH_MIN_ATTEMPTS: z.coerce.number().int().min(1).default(5).register(configDocs, {
    group: 'health',
    description: 'Fewer attempts than this in the window give no verdict (operational).',
  }),
  ROUTE_ELIMINATION_FAILURES: z.coerce.number().int().min(1).default(5).register(configDocs, {
    group: 'health',
    description:
      'A live route with this many technical failures (no answer, 5xx, a refusal of the request) within `ROUTE_ELIMINATION_WINDOW` is asked last until they leak out of it (docs/decisions/operators/route-ranking.md).',
  }),
  ROUTE_ELIMINATION_WINDOW: duration.prefault('5m').register(configDocs, {
    group: 'health',
    description:
      "The leaky bucket's window of a route's technical failures: how long an eliminated route stays eliminated after its last failure.",
  }),
  PROVIDER_HEALTH_CACHE: duration.prefault('5s').register(configDocs, {
    group: 'health',
    description:
      'How long a process reuses the states it read (measures, overrides, published availability).',
  }),
};
