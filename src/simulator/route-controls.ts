import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { countries, operatorCodes } from '../domain/operators';
import type { Books } from './books';
import { sandboxScope } from '../operators/wire';
import { badRequest, kindsByPath, parseBody } from './route-helpers';

// Outage injection for one sandbox route (docs/sandbox.md, "Two routes per pair"): for a while, the
// route takes no new transaction (`closed`), takes only a share of them (`degraded`), or answers
// slowly (`slow`). A refused request is answered 503 before anything is taken, so the service's
// failover can prove, by a status read answering 404, that this route holds nothing. A transaction
// the route already holds is always answered: an outage never loses what it took.
// A control may be scoped to one tenant (a merchant's test mode, set through the API's test helper
// POST /v1/sandbox/routes): it then acts on that tenant's new requests only (their `sandboxScope`),
// and before a control of the whole route.

export const routeControlStates = ['operational', 'closed', 'degraded', 'slow'] as const;

export const routeControlBody = z.strictObject({
  operator: z.enum(operatorCodes),
  country: z.enum(countries),
  /** Payins, payouts, or both (absent). */
  operation: z.enum(['payin', 'payout']).optional(),
  state: z.enum(routeControlStates),
  /** `degraded`: the share of new requests taken, 0 to 1. */
  successRate: z.number().min(0).max(1).optional(),
  /** `slow`: added to every answer of the pair. */
  delayMs: z.number().int().min(0).max(30_000).optional(),
  /** How long the control lasts (10 minutes by default, a day at most). */
  forSeconds: z.number().int().min(1).max(86_400).optional(),
  /** One tenant's new requests only (absent: every request to the route). */
  scope: sandboxScope,
});
export type RouteControlBody = z.infer<typeof routeControlBody>;

interface Control {
  state: (typeof routeControlStates)[number];
  successRate: number;
  delayMs: number;
  until: number;
}

const operationOfPath: Record<string, 'payin' | 'payout' | undefined> = {
  collections: 'payin',
  disbursements: 'payout',
};

export class RouteControls {
  private readonly controls = new Map<string, Control>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  set(body: RouteControlBody): void {
    for (const operation of body.operation ? [body.operation] : (['payin', 'payout'] as const)) {
      const key = `${body.scope ?? ''}|${body.operator}_${body.country}:${operation}`;
      if (body.state === 'operational') {
        this.controls.delete(key);
        continue;
      }
      this.controls.set(key, {
        state: body.state,
        successRate: body.state === 'closed' ? 0 : body.state === 'degraded' ? (body.successRate ?? 0.5) : 1,
        delayMs: body.state === 'slow' ? (body.delayMs ?? 3_000) : 0,
        until: this.now() + (body.forSeconds ?? 600) * 1000,
      });
    }
  }

  /** The controls in force (of one tenant, or of the whole route: `scope` null), for the GET. */
  list(scope: string | null = null): Array<{
    pair: string;
    operation: 'payin' | 'payout';
    state: string;
    successRate: number;
    delayMs: number;
    until: string;
  }> {
    return [...this.controls.entries()]
      .filter(([key, c]) => c.until > this.now() && key.startsWith(`${scope ?? ''}|`))
      .map(([key, c]) => {
        const [pair, operation] = key.slice(key.indexOf('|') + 1).split(':') as [string, 'payin' | 'payout'];
        return { pair, operation, ...c, until: new Date(c.until).toISOString() };
      });
  }

  /** The tenant's own control of the pair, else the route's. */
  private of(code: string, country: unknown, operation: 'payin' | 'payout', scope: unknown): Control | null {
    const pair = `${code}_${String(country)}:${operation}`;
    for (const key of typeof scope === 'string' && scope ? [`${scope}|${pair}`, `|${pair}`] : [`|${pair}`]) {
      const c = this.controls.get(key);
      if (c && c.until > this.now()) return c;
    }
    return null;
  }

  /** Express middleware before the route's operator API: refuses or slows as the controls say. */
  middleware(books: Books) {
    return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      const [, area, code, what, id] = req.path.split('/');
      const operation = operationOfPath[what ?? ''];
      if (area !== 'operators' || !code || !operation) return next();
      const body = req.body as
        { country?: unknown; transactionId?: unknown; sandboxScope?: unknown } | undefined;
      const send = req.method === 'POST' && !id;
      const control = this.of(
        code,
        send ? body?.country : req.query.country,
        operation,
        send ? body?.sandboxScope : null,
      );
      if (!control) return next();
      if (control.delayMs > 0) await new Promise((r) => setTimeout(r, control.delayMs));
      const isNew =
        send &&
        !books.get(kindsByPath[what!]!, typeof body?.transactionId === 'string' ? body.transactionId : '');
      if (isNew && this.random() >= control.successRate) {
        res
          .status(503)
          .json({ error: 'ROUTE_UNAVAILABLE', message: `This route is ${control.state} (sandbox control)` });
        return;
      }
      next();
    };
  }

  /** POST /_sandbox/routes (set or clear a control), GET /_sandbox/routes (those in force). */
  mount(router: Router): void {
    router.post('/_sandbox/routes', (req, res) => {
      const body = parseBody(routeControlBody, req, res);
      if (!body) return;
      if (body.state !== 'degraded' && body.successRate !== undefined)
        return badRequest(res, 'successRate is for the state degraded');
      this.set(body);
      res.json({ controls: this.list(body.scope ?? null) });
    });
    router.get('/_sandbox/routes', (req, res) => {
      const scope = sandboxScope.safeParse(req.query.scope);
      if (!scope.success) return badRequest(res, 'scope is a tenant key');
      res.json({ controls: this.list(scope.data ?? null) });
    });
  }
}
