import type { Router } from 'express';
import type { InternalAccess } from '../../infra/metrics-server';
import { newRouter, route } from '../routing';

export interface HealthChecks {
  mongo(): Promise<boolean>;
  temporal(): Promise<boolean>;
}

/** Concurrent readiness probes share one check of the dependencies made within this long. */
const probeReuseMs = 1_000;

/**
 * Liveness says the process serves; readiness says its dependencies answer. Which dependency
 * fails is for ops only (a loopback caller or METRICS_TOKEN): others get the status alone, and
 * cannot make this process ping MongoDB and Temporal more than once a second.
 */
export function healthRoutes(checks: HealthChecks, internal: InternalAccess): Router {
  const router = newRouter();
  let last: { at: number; result: Promise<{ mongo: boolean; temporal: boolean }> } | null = null;
  const probe = () => {
    const now = Date.now();
    if (!last || now - last.at >= probeReuseMs) {
      const result = Promise.all([checks.mongo(), checks.temporal()]).then(([mongo, temporal]) => ({
        mongo,
        temporal,
      }));
      last = { at: now, result };
    }
    return last.result;
  };
  route(router, 'GET /health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  route(router, 'GET /health/ready', async (req, res) => {
    const result = await probe();
    const ready = result.mongo && result.temporal;
    const status = ready ? 'ready' : 'unavailable';
    res.status(ready ? 200 : 503).json(internal(req) ? { status, checks: result } : { status });
  });
  return router;
}
