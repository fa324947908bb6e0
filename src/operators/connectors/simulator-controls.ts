import { z } from 'zod';
import type { Country, OperatorCode } from '../../domain/operators';
import { OperatorRejectedError, OperatorUnavailableError, type OperatorKind } from '../gateway';

// The sandbox simulator's test controls (src/simulator/sandbox-routes.ts, docs/sandbox.md), for the
// API's test helpers (POST /v1/sandbox/...). Only ids travel; errors name the route, never a body.

/** What the helpers need of the simulator's record of one transaction. */
const record = z.object({ outcome: z.enum(['pending', 'completed', 'failed']) });

export type SettleResult = 'settled' | 'already-final' | 'unknown';

/** An outage control of one sandbox route for one tenant (src/simulator/route-controls.ts). */
export interface RouteControlInput {
  operator: OperatorCode;
  country: Country;
  /** Payins, payouts, or both (absent). */
  operation?: 'payin' | 'payout';
  state: 'operational' | 'closed' | 'degraded' | 'slow';
  successRate?: number;
  delayMs?: number;
  forSeconds?: number;
}

/** A control in force, as the simulator lists it. */
export interface RouteControlInForce {
  /** 1 for the sandbox's first route, 2 for its second. */
  route: number;
  operator: OperatorCode;
  country: Country;
  operation: 'payin' | 'payout';
  state: RouteControlInput['state'];
  successRate: number;
  delayMs: number;
  until: string;
}

const controlsInForce = z.object({
  controls: z.array(
    z.object({
      pair: z.string(),
      operation: z.enum(['payin', 'payout']),
      state: z.enum(['operational', 'closed', 'degraded', 'slow']),
      successRate: z.number(),
      delayMs: z.number(),
      until: z.string(),
    }),
  ),
});

export interface SandboxControls {
  /** How many routes the sandbox has (each pair's): 1 or 2. */
  readonly routes: number;
  /** The simulator's outcome of this id, or null while it has not received the request. */
  outcome(kind: OperatorKind, id: string): Promise<'pending' | 'completed' | 'failed' | null>;
  /** Settles a pending transaction now (the operator then calls back). */
  settle(
    kind: OperatorKind,
    id: string,
    outcome: 'completed' | 'failed',
    failure?: { code: string; message: string },
  ): Promise<SettleResult>;
  /** The partner finds the funds of a collection that failed ambiguously; false: unknown id. */
  markCollected(id: string): Promise<boolean>;
  /** Sets (or, `operational`, clears) one tenant's outage control of a route (1 or 2). */
  setRouteControl(route: number, scope: string, control: RouteControlInput): Promise<void>;
  /** One tenant's outage controls in force, on every route. */
  routeControls(scope: string): Promise<RouteControlInForce[]>;
}

export function simulatorControls(opts: { baseUrl: string; timeoutMs: number }): SandboxControls {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const call = async (
    method: 'GET' | 'POST',
    where: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string }> => {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      const text = await res.text();
      if (res.status >= 500 || res.status === 429)
        throw new OperatorUnavailableError(`${where}: HTTP ${res.status}`);
      return { status: res.status, text };
    } catch (err) {
      if (err instanceof OperatorUnavailableError) throw err;
      const reason =
        (err as Error).name === 'TimeoutError' ? `no answer in ${opts.timeoutMs} ms` : 'network error';
      throw new OperatorUnavailableError(`${where}: ${reason}`);
    }
  };
  const id$ = encodeURIComponent;

  return {
    routes: 1,
    async outcome(kind, id) {
      const where = 'GET /_sandbox/transactions/{kind}/{id}';
      const res = await call('GET', where, `/_sandbox/transactions/${kind}/${id$(id)}`);
      if (res.status === 404) return null;
      if (res.status !== 200) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
      let parsed;
      try {
        parsed = record.safeParse(JSON.parse(res.text));
      } catch {
        throw new OperatorUnavailableError(`${where}: the answer is not JSON`);
      }
      if (!parsed.success) throw new OperatorUnavailableError(`${where}: unexpected answer`);
      return parsed.data.outcome;
    },

    async settle(kind, id, outcome, failure) {
      const where = 'POST /_sandbox/{kind}/{id}/settle';
      const res = await call('POST', where, `/_sandbox/${kind}/${id$(id)}/settle`, {
        outcome,
        ...(failure ? { failure } : {}),
      });
      if (res.status === 404) return 'unknown';
      if (res.status === 409) return 'already-final';
      if (res.status !== 200) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
      return 'settled';
    },

    async markCollected(id) {
      const where = 'POST /_sandbox/collections/{id}/collected';
      const res = await call('POST', where, `/_sandbox/collections/${id$(id)}/collected`, {});
      if (res.status === 404) return false;
      if (res.status !== 200) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
      return true;
    },

    async setRouteControl(route, scope, control) {
      if (route !== 1) throw new OperatorRejectedError(`sandbox route ${route} does not exist`);
      const where = 'POST /_sandbox/routes';
      const res = await call('POST', where, '/_sandbox/routes', { ...control, scope });
      if (res.status !== 200) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
    },

    async routeControls(scope) {
      const where = 'GET /_sandbox/routes';
      const res = await call('GET', where, `/_sandbox/routes?scope=${id$(scope)}`);
      if (res.status !== 200) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
      let parsed;
      try {
        parsed = controlsInForce.safeParse(JSON.parse(res.text));
      } catch {
        throw new OperatorUnavailableError(`${where}: the answer is not JSON`);
      }
      if (!parsed.success) throw new OperatorUnavailableError(`${where}: unexpected answer`);
      return parsed.data.controls.map(({ pair, ...c }) => {
        const [operator, country] = pair.split('_') as [OperatorCode, Country];
        return { route: 1, operator, country, ...c };
      });
    },
  };
}

/**
 * The test controls of the sandbox's routes together: a transaction is at one route only (never
 * two), so each control asks the first route and, where it does not know the id, the next.
 */
export function controlsOfRoutes(routes: readonly SandboxControls[]): SandboxControls {
  const first = async <T>(
    ask: (c: SandboxControls) => Promise<T>,
    unknown: (v: T) => boolean,
  ): Promise<T> => {
    let answer: T | undefined;
    for (const c of routes) {
      answer = await ask(c);
      if (!unknown(answer)) return answer;
    }
    return answer!;
  };
  return {
    routes: routes.length,
    outcome: (kind, id) =>
      first(
        (c) => c.outcome(kind, id),
        (v) => v === null,
      ),
    settle: (kind, id, outcome, failure) =>
      first(
        (c) => c.settle(kind, id, outcome, failure),
        (v) => v === 'unknown',
      ),
    markCollected: (id) =>
      first(
        (c) => c.markCollected(id),
        (v) => !v,
      ),
    // Route n is the n-th route's own route 1.
    setRouteControl: (route, scope, control) => {
      const at = routes[route - 1];
      if (!at) return Promise.reject(new OperatorRejectedError(`sandbox route ${route} does not exist`));
      return at.setRouteControl(1, scope, control);
    },
    routeControls: async (scope) =>
      (await Promise.all(routes.map((c) => c.routeControls(scope)))).flatMap((list, i) =>
        list.map((c) => ({ ...c, route: i + 1 })),
      ),
  };
}
