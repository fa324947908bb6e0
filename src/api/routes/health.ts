import { Router } from 'express';

export interface HealthChecks {
  mongo(): Promise<boolean>;
  temporal(): Promise<boolean>;
}

/** Liveness says the process serves; readiness says its dependencies answer. */
export function healthRoutes(checks: HealthChecks): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/health/ready', async (_req, res) => {
    const [mongo, temporal] = await Promise.all([checks.mongo(), checks.temporal()]);
    const ready = mongo && temporal;
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'unavailable', checks: { mongo, temporal } });
  });
  return router;
}
