import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Connection } from 'mongoose';
import type { Mode } from '../../domain/modes';
import { providerName, type Country, type OperatorCode, type ProviderName } from '../../domain/operators';
import type { PublishedAvailability } from '../connectors/connector';
import type { HealthRecorder } from './measure';
import { healthKey, HealthStore, routeKey, type HealthSnapshot } from './store';
import {
  defaultRouteHealthSettings,
  routeHealthOf,
  type RouteHealthSettings,
  type RouteMeasures,
  type RouteMinute,
} from '../routes/ranking';
import { computeHealth, worse, type HealthOperation, type HealthState } from './state';

export { MeasuringGateway, type HealthRecorder } from './measure';
export { healthConfigShape } from './config';
export { HealthStore } from './store';
export * from './state';

// Each provider's state per mode and operation (operational | delayed | closed), read by the payin
// services (closed: refused with PROVIDER_UNAVAILABLE), the payout activities (held while not
// operational), GET /v1/providers and the checkout page. One per process.

export interface ProviderStateAnswer {
  state: HealthState;
  since: string | null;
  retryAfterSeconds: number | null;
}

/** What callers need: the state of one provider × operation in one mode. */
export interface ProviderStateReader {
  stateOf(
    mode: Mode,
    operator: OperatorCode,
    country: Country,
    operation: HealthOperation,
  ): Promise<ProviderStateAnswer>;
}

export interface ProviderHealthOptions {
  windowMs: number;
  minAttempts: number;
  cacheMs: number;
  /** Whether a provider × operation can be served in that mode at all (a live pair needs a route). */
  routed: (mode: Mode, operator: OperatorCode, country: Country, operation: HealthOperation) => boolean;
  /** Providers' own published availability (live mode), e.g. pawaPay's. */
  published?: () => Promise<PublishedAvailability[]>;
  /** Live routes' measures (issue 43 §2); absent, the defaults of `defaultRouteHealthSettings`. */
  routes?: Partial<Omit<RouteHealthSettings, 'windowMs'>>;
  now?: () => number;
  processId?: string;
}

export class ProviderHealth implements ProviderStateReader {
  readonly store: HealthStore;
  private readonly now: () => number;
  private snapshot: { at: number; data: Promise<HealthSnapshot> } | null = null;
  private publishedCache: { at: number; data: Promise<Map<string, HealthState>> } | null = null;
  private routeSnapshot: { at: number; data: Promise<Map<string, RouteMinute[]>> } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    conn: Connection,
    private readonly opts: ProviderHealthOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.store = new HealthStore(
      conn,
      opts.processId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      this.now,
    );
  }

  readonly recorder: HealthRecorder = {
    record: (mode, operator, country, operation, outcome) =>
      this.store.record(mode, providerName(operator, country), operation, outcome),
  };

  /**
   * Live routes' measures: recorded per call by the routed gateway, read by its ranking from one
   * snapshot of every process's buckets per `cacheMs` (no store read per transaction beyond that).
   */
  readonly routes: RouteMeasures = {
    record: (operator, country, operation, route, measure) =>
      this.store.recordRoute(providerName(operator, country), operation, route, measure),
    health: async (operator, country, operation, routes) => {
      const settings: RouteHealthSettings = {
        ...defaultRouteHealthSettings,
        ...this.opts.routes,
        windowMs: this.opts.windowMs,
      };
      const now = this.now();
      if (!this.routeSnapshot || now - this.routeSnapshot.at >= this.opts.cacheMs) {
        const span = Math.max(settings.windowMs, settings.eliminationWindowMs);
        const data = this.store.readRoutes(Math.floor((now - span) / 60_000));
        this.routeSnapshot = { at: now, data };
        data.catch(() => {
          if (this.routeSnapshot?.data === data) this.routeSnapshot = null;
        });
      }
      const minutes = await this.routeSnapshot.data;
      const provider = providerName(operator, country);
      return new Map(
        routes.map((r) => [
          r,
          routeHealthOf(minutes.get(routeKey(provider, operation, r)) ?? [], now, settings),
        ]),
      );
    },
  };

  /** Flushes measures every 10 s (off the request path), until stop(). */
  start(onError: (err: unknown) => void = () => {}): this {
    this.timer ??= setInterval(() => void this.store.flush().catch(onError), 10_000);
    this.timer.unref();
    return this;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.store.flush().catch(() => {});
  }

  /** Writes measures now and forgets the cached read (tests, and after an override). */
  async refresh(): Promise<void> {
    await this.store.flush();
    this.snapshot = null;
    this.routeSnapshot = null;
  }

  private read(): Promise<HealthSnapshot> {
    const now = this.now();
    if (!this.snapshot || now - this.snapshot.at >= this.opts.cacheMs) {
      const data = this.store.read(Math.floor((now - this.opts.windowMs) / 60_000));
      this.snapshot = { at: now, data };
      // A failed read is not cached: the next call tries again.
      data.catch(() => {
        if (this.snapshot?.data === data) this.snapshot = null;
      });
    }
    return this.snapshot.data;
  }

  private publishedStates(): Promise<Map<string, HealthState>> {
    const source = this.opts.published;
    if (!source) return Promise.resolve(new Map<string, HealthState>());
    const now = this.now();
    if (!this.publishedCache || now - this.publishedCache.at >= Math.max(this.opts.cacheMs, 30_000)) {
      const data = source()
        .then((list) => {
          const map = new Map<string, HealthState>();
          for (const a of list) {
            const key = healthKey('live', providerName(a.operator, a.country), a.operation);
            map.set(key, worse(map.get(key) ?? 'operational', a.status));
          }
          return map;
        })
        // A provider that cannot say leaves the measure alone.
        .catch(() => new Map<string, HealthState>());
      this.publishedCache = { at: now, data };
    }
    return this.publishedCache.data;
  }

  async stateOf(
    mode: Mode,
    operator: OperatorCode,
    country: Country,
    operation: HealthOperation,
  ): Promise<ProviderStateAnswer> {
    const { state, since, retryAfterSeconds } = await this.explain(mode, operator, country, operation);
    return { state, since, retryAfterSeconds };
  }

  /** The state with the reason behind it (the CLI's table). */
  async explain(mode: Mode, operator: OperatorCode, country: Country, operation: HealthOperation) {
    const key = healthKey(mode, providerName(operator, country), operation);
    const [snapshot, published] = await Promise.all([
      this.read(),
      mode === 'live' ? this.publishedStates() : Promise.resolve(new Map<string, HealthState>()),
    ]);
    return computeHealth({
      mode,
      nowMs: this.now(),
      windowMs: this.opts.windowMs,
      minAttempts: this.opts.minAttempts,
      minutes: snapshot.minutes.get(key) ?? [],
      published: published.get(key) ?? null,
      override: snapshot.overrides.get(key) ?? null,
      routed: this.opts.routed(mode, operator, country, operation),
    });
  }

  async setOverride(
    mode: Mode,
    provider: ProviderName,
    operation: HealthOperation,
    state: HealthState,
    forMs: number,
    reason: string,
  ): Promise<{ until: string }> {
    const now = this.now();
    const until = new Date(now + forMs).toISOString();
    await this.store.setOverride(mode, provider, operation, {
      state,
      until,
      since: new Date(now).toISOString(),
      reason,
    });
    this.snapshot = null;
    return { until };
  }

  async clearOverride(mode: Mode, provider: ProviderName, operation: HealthOperation): Promise<boolean> {
    const cleared = await this.store.clearOverride(mode, provider, operation);
    this.snapshot = null;
    return cleared;
  }
}
export { refuseClosedPayin, refuseWhenAllClosed, type PayinStateReader } from './guard';

/** Settings as `healthConfigShape` parses them; absent ones take its defaults. */
export interface HealthSettings {
  PROVIDER_HEALTH_WINDOW?: number;
  ROUTE_ELIMINATION_FAILURES?: number;
  ROUTE_ELIMINATION_WINDOW?: number;
  PROVIDER_HEALTH_MIN_ATTEMPTS?: number;
  PROVIDER_HEALTH_CACHE?: number;
}

/** The process's provider states, from the settings (until src/config.ts carries them, the defaults). */
export function buildProviderHealth(
  conn: Connection,
  config: object,
  more: Partial<ProviderHealthOptions> = {},
): ProviderHealth {
  const s = config as HealthSettings;
  return new ProviderHealth(conn, {
    windowMs: Math.min(s.PROVIDER_HEALTH_WINDOW ?? 10 * 60_000, 60 * 60_000),
    minAttempts: s.PROVIDER_HEALTH_MIN_ATTEMPTS ?? 5,
    cacheMs: s.PROVIDER_HEALTH_CACHE ?? 5_000,
    routes: routeEliminationOf(s),
    routed: () => true,
    ...more,
  });
}

/** The routes' elimination settings from the configuration (the defaults where absent). */
export function routeEliminationOf(s: HealthSettings): Partial<Omit<RouteHealthSettings, 'windowMs'>> {
  return {
    ...(s.ROUTE_ELIMINATION_FAILURES ? { eliminationFailures: s.ROUTE_ELIMINATION_FAILURES } : {}),
    ...(s.ROUTE_ELIMINATION_WINDOW ? { eliminationWindowMs: s.ROUTE_ELIMINATION_WINDOW } : {}),
  };
}
