import { isCustomerFailure } from '../../domain/failures';
import type { Country, OperatorCode } from '../../domain/operators';
import type { OperatorStatus } from '../gateway';
import type { ConnectorName } from '../connectors/connector';

// Which of a pair's routes is asked first, from what our own traffic measured of each (issue 43
// §2). Pure: the route health store feeds it, tests drive it directly. Every decision is written
// with its inputs in the route book, so it can be explained afterwards.

/** Why a route took a transaction (docs/decisions/operators/failover-never-twice.md). */
export type RouteReason = 'only-route' | 'ranked-first' | 'exploration' | 'failover';

/** One minute of one route's measures, summed over every process. */
export interface RouteMinute {
  minute: number;
  /** Final answers: completed, failed by the route, failed by the customer (not the route's fault). */
  success: number;
  failure: number;
  customer: number;
  /** Technical failures: no answer, a 5xx, a refusal of the request, a connection refused. */
  technical: number;
  /** Answers (any) and the milliseconds they took, summed. */
  answers: number;
  answerMs: number;
}

export type RouteMeasure = Omit<RouteMinute, 'minute'>;

/** What one call to a route measured (a customer's failure counts for nobody's rate). */
export function measureOf(
  result: { status: OperatorStatus } | { error: true },
  tookMs: number,
): RouteMeasure {
  const zero: RouteMeasure = { success: 0, failure: 0, customer: 0, technical: 0, answers: 0, answerMs: 0 };
  if ('error' in result) return { ...zero, technical: 1 };
  const answered = { ...zero, answers: 1, answerMs: tookMs };
  const { outcome, failure } = result.status;
  if (outcome === 'completed') return { ...answered, success: 1 };
  if (outcome === 'failed')
    return isCustomerFailure(failure?.code ?? '')
      ? { ...answered, customer: 1 }
      : { ...answered, failure: 1 };
  return answered;
}

export interface RouteHealthSettings {
  /** Final outcomes within this window make the success rate. */
  windowMs: number;
  /** Fewer final outcomes than this: no rate yet (the route keeps its configured rank). */
  minOutcomes: number;
  /** This many technical failures within `eliminationWindowMs` eliminate the route (a leaky bucket). */
  eliminationFailures: number;
  eliminationWindowMs: number;
}

/** 5 technical failures within 5 minutes eliminate a route; 20 final outcomes make a rate. */
export const defaultRouteHealthSettings: Omit<RouteHealthSettings, 'windowMs'> = {
  minOutcomes: 20,
  eliminationFailures: 5,
  eliminationWindowMs: 5 * 60_000,
};

/** Where the routed gateway records each call to a route, and reads each route's health. */
export interface RouteMeasures {
  record(
    operator: OperatorCode,
    country: Country,
    operation: 'payin' | 'payout' | 'refund',
    route: ConnectorName,
    measure: RouteMeasure,
  ): void;
  health(
    operator: OperatorCode,
    country: Country,
    operation: 'payin' | 'payout' | 'refund',
    routes: readonly ConnectorName[],
  ): Promise<ReadonlyMap<ConnectorName, RouteHealth>>;
}

export interface RouteHealth {
  /** Completed over completed and failed by the route, in the window; null below the sample. */
  successRate: number | null;
  outcomes: number;
  /** Technical failures in the elimination window. */
  technical: number;
  eliminated: boolean;
  /** Mean answer time in the window; null without answers. */
  answerMs: number | null;
}

export function routeHealthOf(
  minutes: readonly RouteMinute[],
  nowMs: number,
  s: RouteHealthSettings,
): RouteHealth {
  const nowMinute = Math.floor(nowMs / 60_000);
  const inWindow = (m: RouteMinute, ms: number) => m.minute > nowMinute - Math.ceil(ms / 60_000);
  let success = 0;
  let failure = 0;
  let answers = 0;
  let answerMs = 0;
  let technical = 0;
  for (const m of minutes) {
    if (inWindow(m, s.windowMs)) {
      success += m.success;
      failure += m.failure;
      answers += m.answers;
      answerMs += m.answerMs;
    }
    if (inWindow(m, s.eliminationWindowMs)) technical += m.technical;
  }
  const outcomes = success + failure;
  return {
    successRate: outcomes >= s.minOutcomes ? success / outcomes : null,
    outcomes,
    technical,
    eliminated: technical >= s.eliminationFailures,
    answerMs: answers > 0 ? Math.round(answerMs / answers) : null,
  };
}

/** A route's terms (OPERATOR_ROUTE_TERMS): what it costs us per transaction, and the amounts it takes. */
export interface RouteTerms {
  /** Percent of the amount. */
  costPercent?: number;
  /** Minor units per transaction. */
  costFixed?: number;
  /** Amounts it takes, minor units, inclusive. */
  min?: number;
  max?: number;
}

/** One route as the decision saw it: written with the transaction. */
export interface RankingInput {
  connector: ConnectorName;
  successRate: number | null;
  outcomes: number;
  eliminated: boolean;
  /** What the transaction would cost through it, minor units. */
  cost: number;
  /** False: it cannot take the amount. */
  takesAmount: boolean;
  /** What the route's provider publishes of it (pawaPay's availability), where it publishes. */
  published: 'operational' | 'delayed' | 'closed' | null;
}

export interface Ranking {
  /** The routes in the order they are asked; the first takes the transaction. */
  order: ConnectorName[];
  reason: Exclude<RouteReason, 'failover'>;
  inputs: RankingInput[];
}

export interface RankingRequest {
  /** The pair's routes, in their configured order. */
  routes: readonly ConnectorName[];
  amount: number;
  health: ReadonlyMap<ConnectorName, RouteHealth>;
  /** Each route's published state, where its provider publishes one. */
  published?: ReadonlyMap<ConnectorName, 'operational' | 'delayed' | 'closed'>;
  terms: Readonly<Partial<Record<ConnectorName, RouteTerms>>>;
  /** Share of transactions sent to a route other than the best, so a recovered route is noticed. */
  explorationShare: number;
  /** A number in [0, 1): below `explorationShare`, this transaction explores. */
  random: number;
}

/**
 * Eligible routes (they take the amount, are not eliminated and not closed by their provider's
 * word), operational before delayed, by success rate, then by expected
 * value (rate × (amount − cost)), then in their configured order; a route without a rate yet ranks
 * as if its rate were the best measured, so a new route is not starved. A small share explores: the
 * next route (an eliminated one included, as a recovery probe) goes first. With no eligible route,
 * the routes that take the amount in their configured order: our measures never stop a payment on
 * their own.
 */
export function rankRoutes(r: RankingRequest): Ranking {
  const inputs: RankingInput[] = r.routes.map((connector) => {
    const h = r.health.get(connector);
    const t = r.terms[connector] ?? {};
    const cost = Math.round((r.amount * (t.costPercent ?? 0)) / 100 + (t.costFixed ?? 0));
    return {
      connector,
      successRate: h?.successRate ?? null,
      outcomes: h?.outcomes ?? 0,
      eliminated: h?.eliminated ?? false,
      cost,
      takesAmount: (t.min === undefined || r.amount >= t.min) && (t.max === undefined || r.amount <= t.max),
      published: r.published?.get(connector) ?? null,
    };
  });
  const takers = inputs.filter((i) => i.takesAmount);
  // Eliminated by our measures or closed by its provider's word: asked last.
  const out = (i: RankingInput) => i.eliminated || i.published === 'closed';
  const eligible = takers.filter((i) => !out(i));
  const best = Math.max(0, ...eligible.map((i) => i.successRate ?? 0));
  const rate = (i: RankingInput) => i.successRate ?? best;
  const value = (i: RankingInput) => rate(i) * (r.amount - i.cost);
  const delayed = (i: RankingInput) => (i.published === 'delayed' ? 1 : 0);
  const ranked = [...eligible].sort(
    (a, b) =>
      delayed(a) - delayed(b) ||
      rate(b) - rate(a) ||
      value(b) - value(a) ||
      r.routes.indexOf(a.connector) - r.routes.indexOf(b.connector),
  );
  const rest = takers.filter(out);
  const order = (ranked.length > 0 ? [...ranked, ...rest] : takers).map((i) => i.connector);
  if (order.length === 0)
    return { order: [...r.routes], reason: r.routes.length > 1 ? 'ranked-first' : 'only-route', inputs };
  if (order.length > 1 && r.random < r.explorationShare) {
    const [first, second, ...others] = order;
    return { order: [second!, first!, ...others], reason: 'exploration', inputs };
  }
  return { order, reason: order.length > 1 ? 'ranked-first' : 'only-route', inputs };
}

type Published = 'operational' | 'delayed' | 'closed';
const publishedOrder: readonly Published[] = ['operational', 'delayed', 'closed'];

/**
 * A pair's state as its providers publish it: the best of its routes', a route whose provider says
 * nothing counting as operational (a payment fails over to it). So a payout is held only when every
 * route is delayed or closed, as one route's provider would hold it (pawaPay's enqueued payouts);
 * null when no route of the pair publishes.
 */
export function pairPublishedState(
  routes: readonly ConnectorName[],
  published: ReadonlyMap<ConnectorName, Published>,
): Published | null {
  if (!routes.some((r) => published.has(r))) return null;
  const ranks = routes.map((r) => publishedOrder.indexOf(published.get(r) ?? 'operational'));
  return publishedOrder[Math.min(...ranks)]!;
}
