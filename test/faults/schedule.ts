import fc from 'fast-check';
import type { Fault, FaultProxy, FaultRequest } from '../helpers/fault-proxy';

// What the fault suite runs: a plan per transaction (its kind, what the operator will do, and the
// faults on each step of its conversation with the operator), drawn by fast-check from a fixed
// seed, and the proxy rules that apply those faults to that transaction only.

export type OperatorPath = 'collections' | 'disbursements' | 'refunds';
export type BookKind = 'collection' | 'disbursement' | 'refund';
export const bookKindOf: Record<OperatorPath, BookKind> = {
  collections: 'collection',
  disbursements: 'disbursement',
  refunds: 'refund',
};
const pathOfBook: Record<BookKind, OperatorPath> = {
  collection: 'collections',
  disbursement: 'disbursements',
  refund: 'refunds',
};

/** One fault on one step, applied to this many matching requests of the transaction. */
export interface StepFault {
  label: string;
  fault: Fault;
  times: number;
}

/** Status reads answer `pending` (the operator's real outcome hidden) until our deadline plus this. */
export interface PendingWindow {
  label: 'reads:pending-past-deadline' | 'reads:pending-before-deadline';
  /** Milliseconds after our deadline (negative: before it). */
  afterDeadlineMs: number;
}

export interface Schedule {
  /** The request that asks the operator to act (collection, disbursement, refund). */
  request: StepFault | null;
  /** Status reads (and the answers to repeated requests, for a pending window). */
  reads: StepFault | PendingWindow | null;
  /** The operator's callbacks to the API. */
  callback: StepFault | null;
  /** Cancellations we ask for past our deadline. */
  cancel: StepFault | null;
}

export type Provider = 'MTN' | 'ORANGE' | 'MOOV' | 'WAVE';

interface PlanBase {
  /** Position in the run; also what makes the amount unique. */
  index: number;
  reference: string;
  /** Integer XOF, unique per operator path in the run: how a request is told from the others. */
  amount: number;
  schedule: Schedule;
  /** Set while running. */
  id: string | null;
  /** When it was asked of us (the customer's confirmation, for a session). */
  startedAt: number | null;
  /**
   * When the operator was asked, moved along by the retries of that first request (for 45 s at
   * most: a retry after a killed worker's activity timed out is one): about where our deadline
   * starts counting, whatever faults or kills delayed the first answer.
   */
  askedAt: number | null;
  /** When its status was first read: our workflow has its deadline by then, whatever delayed it. */
  readAt: number | null;
}

/**
 * Where a plan's deadline is counted from: its first status read, else its last first request,
 * else its creation. A worker killed around the request can hold a workflow for tens of seconds
 * before its deadline is even set; its first read comes after that, so a window counted from it
 * reaches past the real deadline (by more than planned, when the first read was late).
 */
export const anchorOf = (p: Plan): number | null => p.readAt ?? p.askedAt ?? p.startedAt;

export interface PayinPlan extends PlanBase {
  kind: 'payin';
  flow: 'direct' | 'session';
  provider: Provider;
  scenario: 'completed' | 'failed' | 'pending';
  /** A pending collection the customer approves this long after our deadline (negative: before). */
  lateApprovalMs: number | null;
  /** A clean payin that carries a refund (no fault of its own). */
  carrier: boolean;
}

export interface PayoutPlan extends PlanBase {
  kind: 'payout';
  scenario: 'completed' | 'failed' | 'pending';
  /** A pending disbursement the operator settles this long after our deadline (negative: before). */
  lateSettle: { afterDeadlineMs: number; outcome: 'completed' | 'failed' } | null;
}

export interface RefundPlan extends PlanBase {
  kind: 'refund';
  scenario: 'completed' | 'failed';
  /** The clean payin it refunds. */
  payin: PayinPlan;
}

export type Plan = PayinPlan | PayoutPlan | RefundPlan;

export const operatorPathOf = (p: Plan): OperatorPath =>
  p.kind === 'payin' ? 'collections' : p.kind === 'payout' ? 'disbursements' : 'refunds';

const none = fc.constant(null);
const step = (label: string, fault: Fault, times: fc.Arbitrary<number>): fc.Arbitrary<StepFault> =>
  times.map((t) => ({ label, fault, times: t }));
const upTo = (max: number) => fc.integer({ min: 1, max });
const noFault: Schedule = { request: null, reads: null, callback: null, cancel: null };
const notFound: Fault = {
  kind: 'error',
  status: 404,
  body: { error: 'NOT_FOUND', message: 'Unknown transaction' },
};

// Each step's menu, "no fault" weighted so that most transactions carry one or two faults.
const requestFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 8, arbitrary: none },
  { weight: 2, arbitrary: step('request:drop', { kind: 'drop' }, upTo(2)) },
  { weight: 3, arbitrary: step('request:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: 1_500, max: 4_000 })
      .chain((ms) => step('request:late-answer', { kind: 'delay', ms }, upTo(2))),
  },
  { weight: 2, arbitrary: step('request:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('request:429', { kind: 'error', status: 429 }, upTo(2)) },
  {
    weight: 2,
    arbitrary: step('request:forward-then-503', { kind: 'forward-then-error', status: 503 }, upTo(2)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(400, 403)
      .chain((status) =>
        step(
          'request:4xx-refusal',
          { kind: 'error', status, body: { error: 'INVALID_REQUEST', message: 'Refused by the operator' } },
          fc.constant(1),
        ),
      ),
  },
);

const readsFault: fc.Arbitrary<StepFault | PendingWindow | null> = fc.oneof(
  { weight: 7, arbitrary: none },
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 3_000, max: 20_000 })
      .map((ms): PendingWindow => ({ label: 'reads:pending-past-deadline', afterDeadlineMs: ms })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: -12_000, max: -2_000 })
      .map((ms): PendingWindow => ({ label: 'reads:pending-before-deadline', afterDeadlineMs: ms })),
  },
  {
    weight: 3,
    arbitrary: step(
      'reads:404',
      { kind: 'error', status: 404, body: { error: 'NOT_FOUND', message: 'Unknown transaction' } },
      upTo(3),
    ),
  },
  { weight: 2, arbitrary: step('reads:503', { kind: 'error', status: 503 }, upTo(4)) },
  { weight: 1, arbitrary: step('reads:drop', { kind: 'drop' }, upTo(2)) },
  { weight: 1, arbitrary: step('reads:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  { weight: 1, arbitrary: step('reads:late-answer', { kind: 'delay', ms: 1_500 }, upTo(2)) },
);

const callbackFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 6, arbitrary: none },
  {
    weight: 3,
    arbitrary: fc
      .record({ copies: fc.integer({ min: 1, max: 3 }), gapMs: fc.integer({ min: 0, max: 3_000 }) })
      .chain((d) => step('callback:duplicate', { kind: 'duplicate', ...d }, fc.constant(1))),
  },
  {
    // Past the simulator's 5 s callback timeout: its retry arrives first, this one late (out of order).
    weight: 3,
    arbitrary: fc
      .integer({ min: 1_000, max: 9_000 })
      .chain((ms) => step('callback:late', { kind: 'hold', ms }, upTo(2))),
  },
  { weight: 2, arbitrary: step('callback:drop', { kind: 'drop' }, upTo(3)) },
  { weight: 1, arbitrary: step('callback:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('callback:lose-answer', { kind: 'lose-answer' }, fc.constant(1)) },
);

const cancelFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 6, arbitrary: none },
  { weight: 2, arbitrary: step('cancel:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  { weight: 2, arbitrary: step('cancel:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('cancel:drop', { kind: 'drop' }, fc.constant(1)) },
);

const schedule: fc.Arbitrary<Schedule> = fc.record({
  request: requestFault,
  reads: readsFault,
  callback: callbackFault,
  cancel: cancelFault,
});

type Drawn =
  | {
      kind: 'payin';
      flow: 'direct' | 'session';
      provider: Provider;
      scenario: PayinPlan['scenario'];
      late: number | null;
      schedule: Schedule;
    }
  | { kind: 'payout'; scenario: PayoutPlan['scenario']; late: PayoutPlan['lateSettle']; schedule: Schedule }
  | { kind: 'refund'; scenario: RefundPlan['scenario']; schedule: Schedule };

const payinScenario = fc.oneof(
  { weight: 11, arbitrary: fc.constant('completed' as const) },
  { weight: 4, arbitrary: fc.constant('failed' as const) },
  { weight: 5, arbitrary: fc.constant('pending' as const) },
);
const drawn: fc.Arbitrary<Drawn> = fc.oneof(
  {
    weight: 45,
    arbitrary: fc.record({
      kind: fc.constant('payin' as const),
      flow: fc.constant('direct' as const),
      provider: fc.oneof(
        { weight: 6, arbitrary: fc.constant('MTN' as const) },
        { weight: 2, arbitrary: fc.constant('ORANGE' as const) },
        { weight: 1, arbitrary: fc.constant('MOOV' as const) },
        { weight: 2, arbitrary: fc.constant('WAVE' as const) },
      ),
      scenario: payinScenario,
      // Half the pending ones are approved by the customer around or after our deadline.
      late: fc.option(fc.integer({ min: -4_000, max: 10_000 }), { freq: 2 }),
      schedule,
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('payin' as const),
      flow: fc.constant('session' as const),
      provider: fc.constant('MTN' as const),
      scenario: payinScenario,
      late: fc.option(fc.integer({ min: -4_000, max: 10_000 }), { freq: 2 }),
      schedule,
    }),
  },
  {
    weight: 25,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      scenario: fc.oneof(
        { weight: 6, arbitrary: fc.constant('completed' as const) },
        { weight: 3, arbitrary: fc.constant('failed' as const) },
        { weight: 2, arbitrary: fc.constant('pending' as const) },
      ),
      late: fc.option(
        fc.record({
          afterDeadlineMs: fc.integer({ min: -5_000, max: 12_000 }),
          outcome: fc.oneof(
            { weight: 3, arbitrary: fc.constant('completed' as const) },
            { weight: 1, arbitrary: fc.constant('failed' as const) },
          ),
        }),
        { freq: 4 },
      ),
      schedule,
    }),
  },
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      scenario: fc.oneof(
        { weight: 3, arbitrary: fc.constant('completed' as const) },
        { weight: 1, arbitrary: fc.constant('failed' as const) },
      ),
      schedule,
    }),
  },
);

/** The cases issue 15 names, first in every run of 5 items or more, so that even the short run has each. */
const sentinels: Drawn[] = [
  // A refund the operator made, every answer to its request lost (503 after forwarding).
  {
    kind: 'refund',
    scenario: 'completed',
    schedule: {
      ...noFault,
      request: {
        label: 'request:forward-then-503',
        fault: { kind: 'forward-then-error', status: 503 },
        times: 8,
      },
    },
  },
  // A payout the operator paid but reported pending until after our deadline.
  {
    kind: 'payout',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:pending-past-deadline', afterDeadlineMs: 15_000 } },
  },
  // A payout the operator accepted and paid, then answered 404 on status reads for a while.
  {
    kind: 'payout',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:404', fault: notFound, times: 6 } },
  },
  // A payin still pending at our deadline, approved by the customer after it.
  { kind: 'payin', flow: 'direct', provider: 'MTN', scenario: 'pending', late: 5_000, schedule: noFault },
  // A payin completed at once, reported pending across our deadline.
  {
    kind: 'payin',
    flow: 'direct',
    provider: 'MTN',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:pending-past-deadline', afterDeadlineMs: 15_000 } },
  },
];

/**
 * `count` planned items (a refund item brings its clean carrier payin along), reproducible from
 * `seed`: the sentinels above, then fast-check's draws. Amounts are unique per operator path: payins and payouts 10,000 + 10 i, carriers
 * 500,000 + 10 i, refunds 10,005 + 10 i (a refund never exceeds its carrier).
 */
export function drawPlans(count: number, seed: number): Plan[] {
  const first = count >= sentinels.length ? sentinels : [];
  const items = [...first, ...fc.sample(drawn, { seed, numRuns: count - first.length })];
  const plans: Plan[] = [];
  items.forEach((d, i) => {
    const base = { index: i, id: null, startedAt: null, askedAt: null, readAt: null };
    if (d.kind === 'payin')
      plans.push({
        ...base,
        kind: 'payin',
        reference: `fault-${i}-${d.flow}`,
        amount: 10_000 + 10 * i,
        flow: d.flow,
        provider: d.provider,
        scenario: d.scenario,
        lateApprovalMs: d.scenario === 'pending' ? d.late : null,
        carrier: false,
        schedule: d.schedule,
      });
    else if (d.kind === 'payout')
      plans.push({
        ...base,
        kind: 'payout',
        reference: `fault-${i}-payout`,
        amount: 10_000 + 10 * i,
        scenario: d.scenario,
        lateSettle: d.scenario === 'pending' ? d.late : null,
        schedule: d.schedule,
      });
    else {
      const payin: PayinPlan = {
        ...base,
        kind: 'payin',
        reference: `fault-${i}-carrier`,
        amount: 500_000 + 10 * i,
        flow: 'direct',
        provider: 'MTN',
        scenario: 'completed',
        lateApprovalMs: null,
        carrier: true,
        schedule: noFault,
      };
      plans.push(payin, {
        ...base,
        kind: 'refund',
        reference: `fault-${i}-refund`,
        amount: 10_005 + 10 * i,
        scenario: d.scenario,
        payin,
        schedule: d.schedule,
      });
    }
  });
  return plans;
}

/** Gaps between worker kills (ms), reproducible from the seed. */
export function drawKillGaps(kills: number, seed: number): number[] {
  return fc.sample(fc.integer({ min: 5_000, max: 20_000 }), { seed: seed + 1, numRuns: kills });
}

/** The labels of a plan's faults (its "fault schedule"), late operator moves included. */
export function faultLabels(p: Plan): string[] {
  const s = p.schedule;
  const labels = [s.request, s.reads, s.callback, s.cancel].filter((f) => f !== null).map((f) => f.label);
  if (p.kind === 'payin' && p.lateApprovalMs !== null) labels.push('operator:late-approval');
  if (p.kind === 'payout' && p.lateSettle) labels.push(`operator:late-${p.lateSettle.outcome}`);
  return labels;
}

export function describeSchedule(p: Plan): string {
  const parts: string[] = [];
  const s = p.schedule;
  for (const f of [s.request, s.reads, s.callback, s.cancel]) {
    if (!f) continue;
    if ('fault' in f) {
      const { kind, ...rest } = f.fault;
      const args = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      parts.push(`${f.label} (${kind}${args} x${f.times})`);
    } else parts.push(`${f.label} (${f.afterDeadlineMs} ms after the deadline)`);
  }
  if (p.kind === 'payin' && p.lateApprovalMs !== null)
    parts.push(`operator:late-approval (${p.lateApprovalMs} ms after the deadline)`);
  if (p.kind === 'payout' && p.lateSettle)
    parts.push(
      `operator:late-${p.lateSettle.outcome} (${p.lateSettle.afterDeadlineMs} ms after the deadline)`,
    );
  return parts.length ? parts.join('; ') : 'no fault';
}

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
