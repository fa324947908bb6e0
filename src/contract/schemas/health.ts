import { z } from 'zod';

// GET /health/live and GET /health/ready.
export const liveness = z.object({ status: z.literal('ok') });
export const readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  /** Only to a loopback caller or one presenting METRICS_TOKEN. */
  checks: z.object({ mongo: z.boolean(), temporal: z.boolean() }).optional(),
});
