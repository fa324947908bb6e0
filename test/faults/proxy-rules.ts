import type { Fault, FaultProxy, FaultRequest } from '../helpers/fault-proxy';
import {
  type OperatorPath,
  type BookKind,
  bookKindOf,
  pathOfBook,
  anchorOf,
  type Plan,
  operatorPathOf,
} from './plan';

// How the fault suite's plans reach the proxies: which plan a request to the operator (or a callback)
// is about, and the proxy rules that apply each plan's faults to that transaction only.

/** Finds which plan a request to the operator, or a callback, is about. */
export class PlanIndex {
  private readonly byAmount = new Map<string, Plan>();
  private readonly byId = new Map<string, Plan>();
  /** One parse per request: every rule's when() sees the same request object. */
  private readonly parsed = new WeakMap<FaultRequest, Record<string, unknown> | null>();
  private readonly idInPath = new WeakMap<FaultRequest, Plan | null>();
  private readonly requests = new WeakMap<FaultRequest, Plan | null>();
  private readonly firstAsked = new Map<Plan, number>();

  constructor(
    plans: Plan[],
    /** The simulator's record of an id, for a request seen before we learnt the id. */
    private readonly amountAtOperator: (kind: BookKind, id: string) => number | null,
  ) {
    for (const p of plans) this.byAmount.set(`${operatorPathOf(p)}:${p.amount}`, p);
  }

  learn(p: Plan, id: string): void {
    p.id = id;
    this.byId.set(`${operatorPathOf(p)}:${id}`, p);
  }

  private body(req: FaultRequest): Record<string, unknown> | null {
    if (!this.parsed.has(req)) {
      let value: Record<string, unknown> | null = null;
      try {
        const v: unknown = JSON.parse(req.body);
        if (v && typeof v === 'object' && !Array.isArray(v)) value = v as Record<string, unknown>;
      } catch {
        // not JSON
      }
      this.parsed.set(req, value);
    }
    return this.parsed.get(req) ?? null;
  }

  byOperatorId(path: OperatorPath, id: string): Plan | null {
    const known = this.byId.get(`${path}:${id}`);
    if (known) return known;
    const amount = this.amountAtOperator(bookKindOf[path], id);
    const p = amount === null ? undefined : this.byAmount.get(`${path}:${amount}`);
    if (!p) return null;
    this.learn(p, id);
    return p;
  }

  /**
   * A request asking the operator to act: POST /operators/<CODE>/<path>, told by its amount. Its
   * time is noted here, once per request (installFaults puts a rule on every such path).
   */
  ofRequest(path: OperatorPath, req: FaultRequest): Plan | null {
    if (!this.requests.has(req)) {
      const m = /^\/operators\/\w+\/(collections|disbursements|refunds)(\?|$)/.exec(req.path);
      const amount = this.body(req)?.amount;
      const plan = m && typeof amount === 'number' ? (this.byAmount.get(`${m[1]}:${amount}`) ?? null) : null;
      this.requests.set(req, plan);
      const now = Date.now();
      if (plan && (plan.askedAt === null || now - (this.firstAsked.get(plan) ?? now) < 45_000)) {
        if (!this.firstAsked.has(plan)) this.firstAsked.set(plan, now);
        plan.askedAt = now;
      }
    }
    const plan = this.requests.get(req) ?? null;
    return plan && operatorPathOf(plan) === path ? plan : null;
  }

  /** A status read or a cancellation: the id is in the path. */
  ofIdPath(path: OperatorPath, req: FaultRequest): Plan | null {
    if (!this.idInPath.has(req)) {
      const m = /^\/operators\/\w+\/(collections|disbursements|refunds)\/([^/?]+)/.exec(req.path);
      const plan = m ? this.byOperatorId(m[1] as OperatorPath, decodeURIComponent(m[2]!)) : null;
      this.idInPath.set(req, plan);
    }
    const plan = this.idInPath.get(req) ?? null;
    return plan && operatorPathOf(plan) === path ? plan : null;
  }

  /** A callback names its kind and our id in its body. */
  ofCallback(req: FaultRequest): Plan | null {
    const b = this.body(req);
    const kind = b?.kind as BookKind | undefined;
    if (!kind || !(kind in pathOfBook) || typeof b?.id !== 'string') return null;
    return this.byOperatorId(pathOfBook[kind], b.id);
  }
}

/**
 * Installs every plan's faults: on `operator` (gateway -> simulator) the request, reads and cancel
 * faults; on `callbacks` (simulator -> API) the callback faults. `deadlineMs` is our deadline for
 * the plan's kind (a pending window ends relative to it).
 */
export function installFaults(
  plans: Plan[],
  index: PlanIndex,
  proxies: { operator: FaultProxy; callbacks: FaultProxy },
  deadlineMs: (p: Plan) => number,
): void {
  const createPath = (path: OperatorPath) => new RegExp(`^/operators/\\w+/${path}(\\?|$)`);
  const readPath = (path: OperatorPath) => new RegExp(`^/operators/\\w+/${path}/[^/?]+(\\?|$)`);
  const cancelPath = (path: OperatorPath) => new RegExp(`^/operators/\\w+/${path}/[^/?]+/cancel(\\?|$)`);
  // First, rules that never apply: they note when each transaction was first asked and first read
  // (where pending windows and late moves are counted from, see anchorOf).
  for (const path of ['collections', 'disbursements', 'refunds'] as const) {
    proxies.operator.add({
      method: 'POST',
      path: createPath(path),
      when: (req) => {
        index.ofRequest(path, req);
        return false;
      },
      fault: { kind: 'drop' },
      times: Infinity,
    });
    proxies.operator.add({
      method: 'GET',
      path: readPath(path),
      when: (req) => {
        const p = index.ofIdPath(path, req);
        if (p && p.readAt === null) p.readAt = Date.now();
        return false;
      },
      fault: { kind: 'drop' },
      times: Infinity,
    });
  }
  // The request's own faults first (each spent after its times), then pending windows: while one
  // is open, every status answer of its transaction says pending, a repeated request's too.
  for (const p of plans) {
    const path = operatorPathOf(p);
    const request = p.schedule.request;
    if (request)
      proxies.operator.add({
        method: 'POST',
        path: createPath(path),
        when: (req) => index.ofRequest(path, req) === p,
        fault: request.fault,
        times: request.times,
      });
  }
  for (const p of plans) {
    const w = p.schedule.reads;
    if (!w || 'fault' in w) continue;
    const path = operatorPathOf(p);
    const open = () => {
      const anchor = anchorOf(p);
      return anchor === null || Date.now() < anchor + deadlineMs(p) + w.afterDeadlineMs;
    };
    const fault: Fault = { kind: 'rewrite', patch: { outcome: 'pending', failure: null } };
    proxies.operator.add({
      method: 'GET',
      path: readPath(path),
      when: (req) => index.ofIdPath(path, req) === p && open(),
      fault,
      times: Infinity,
    });
    proxies.operator.add({
      method: 'POST',
      path: createPath(path),
      when: (req) => index.ofRequest(path, req) === p && open(),
      fault,
      times: Infinity,
    });
  }
  for (const p of plans) {
    const path = operatorPathOf(p);
    const { reads, callback, cancel } = p.schedule;
    if (reads && 'fault' in reads)
      proxies.operator.add({
        method: 'GET',
        path: readPath(path),
        when: (req) => index.ofIdPath(path, req) === p,
        fault: reads.fault,
        times: reads.times,
      });
    if (cancel)
      proxies.operator.add({
        method: 'POST',
        path: cancelPath(path),
        when: (req) => index.ofIdPath(path, req) === p,
        fault: cancel.fault,
        times: cancel.times,
      });
    if (callback)
      proxies.callbacks.add({
        method: 'POST',
        path: '/operator-callbacks/',
        when: (req) => index.ofCallback(req) === p,
        fault: callback.fault,
        times: callback.times,
      });
  }
}
