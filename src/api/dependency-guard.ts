import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiProblem } from '../contract/problems';
import { isDependencyUnavailable, RETRY_AFTER_SECONDS } from '../persistence/unavailable';

// While MongoDB is known to be down, answer 503 at once instead of letting each request wait for
// the driver's server selection or mongoose's command buffer (seconds each, requests piling up).
// The driver alone learns of an outage late: a write on a socket the server closed fails with
// Node's EPIPE, which the driver does not count against the server, and its monitor looks every
// 10 s. So a request that met an unreachable database has a ping confirm it, and the outage is
// known until a ping answers again.

export interface DatabaseGuardOptions {
  /** False while the driver knows the server is unreachable. */
  isConnected(): boolean;
  /** A cheap command, true when it answers: its server selection makes the driver re-check now. */
  probe(): Promise<boolean>;
  /** At most one probe per this many ms. */
  probeEveryMs?: number;
}

export class DatabaseWatch {
  private readonly probeEveryMs: number;
  private lastProbe = 0;
  /** A ping failed and none has answered since. */
  private failedPing = false;

  constructor(private readonly opts: DatabaseGuardOptions) {
    this.probeEveryMs = opts.probeEveryMs ?? 1_000;
  }

  isDown(): boolean {
    return this.failedPing || !this.opts.isConnected();
  }

  /** Pings now unless a ping started within probeEveryMs; its answer sets or clears the outage. */
  recheck(): void {
    if (Date.now() - this.lastProbe < this.probeEveryMs) return;
    this.lastProbe = Date.now();
    void this.ping();
  }

  /** Readiness: false at once while the outage is known (a probe's deadline is shorter than the driver's wait). */
  async answers(): Promise<boolean> {
    if (!this.isDown()) return this.ping();
    this.recheck();
    return false;
  }

  /** Before the routes: 503 with Retry-After while the outage is known. */
  guard(): RequestHandler {
    const unavailable = new ApiProblem('SERVICE_UNAVAILABLE', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
    return (_req, _res, next) => {
      if (!this.isDown()) return next();
      this.recheck();
      next(unavailable);
    };
  }

  /** Before the error handler: a request that met an unreachable dependency has a ping check MongoDB. */
  listen(): ErrorRequestHandler {
    return (err: unknown, _req, _res, next) => {
      if (isDependencyUnavailable(err)) this.recheck();
      next(err);
    };
  }

  private async ping(): Promise<boolean> {
    const ok = await this.opts.probe().catch(() => false);
    this.failedPing = !ok;
    return ok;
  }
}
