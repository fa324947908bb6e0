import type { RequestHandler } from 'express';
import { ApiProblem } from '../contract/problems';
import { RETRY_AFTER_SECONDS } from '../persistence/unavailable';

// While MongoDB is known to be down, answer 503 at once instead of letting each request wait for
// the driver's server selection or mongoose's command buffer (seconds each, requests piling up).

export interface DatabaseGuardOptions {
  /** False while the driver knows the server is unreachable. */
  isConnected(): boolean;
  /** A cheap command: server selection makes the driver re-check the server now, not at its next heartbeat. */
  probe(): Promise<unknown>;
  /** At most one probe per this many ms. */
  probeEveryMs?: number;
}

export function databaseGuard(opts: DatabaseGuardOptions): RequestHandler {
  const probeEveryMs = opts.probeEveryMs ?? 1_000;
  let lastProbe = 0;
  const unavailable = new ApiProblem('SERVICE_UNAVAILABLE', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
  return (_req, _res, next) => {
    if (opts.isConnected()) return next();
    if (Date.now() - lastProbe >= probeEveryMs) {
      lastProbe = Date.now();
      opts.probe().catch(() => undefined);
    }
    next(unavailable);
  };
}
