import {
  defaultRouteHealthSettings,
  measureOf,
  pairPublishedState,
  rankRoutes,
  routeHealthOf,
  type RouteHealth,
  type RouteMinute,
} from '../../src/operators/routes/ranking';
import { routeTermsJson } from '../../src/operators/connectors/routes';
import type { ConnectorName } from '../../src/operators/connectors/connector';

// Issue 43 §2: which route is asked first, from each route's measured success rate, its technical
// failures (elimination), its terms (cost, amounts) and a small exploration share.

const now = Date.parse('2026-11-28T10:00:30Z');
const minute = Math.floor(now / 60_000);
const settings = { ...defaultRouteHealthSettings, windowMs: 10 * 60_000 };
const zero = { success: 0, failure: 0, customer: 0, technical: 0, answers: 0, answerMs: 0 };
const at = (ago: number, counts: Partial<RouteMinute>): RouteMinute => ({
  minute: minute - ago,
  ...zero,
  ...counts,
});

const healthy = (successRate: number | null, eliminated = false): RouteHealth => ({
  successRate,
  outcomes: successRate === null ? 0 : 100,
  technical: eliminated ? 5 : 0,
  eliminated,
  answerMs: 800,
});
const rank = (
  health: Array<[ConnectorName, RouteHealth]>,
  more: Partial<Parameters<typeof rankRoutes>[0]> = {},
) =>
  rankRoutes({
    routes: ['pawapay', 'mtn'],
    amount: 10_000,
    health: new Map(health),
    terms: {},
    explorationShare: 0.05,
    random: 0.5,
    ...more,
  });

describe('a route’s health from its measures', () => {
  it('rates final outcomes in the window, leaving out the customers’ failures', () => {
    const h = routeHealthOf(
      [
        at(0, { success: 15, failure: 5, customer: 30, answers: 50, answerMs: 50_000 }),
        at(11, { failure: 100 }),
      ],
      now,
      settings,
    );
    expect(h).toEqual({ successRate: 0.75, outcomes: 20, technical: 0, eliminated: false, answerMs: 1_000 });
  });

  it('has no rate below the sample, and eliminates a route after 5 technical failures within 5 minutes', () => {
    expect(routeHealthOf([at(0, { success: 19 })], now, settings).successRate).toBeNull();
    expect(routeHealthOf([at(1, { technical: 3 }), at(3, { technical: 2 })], now, settings).eliminated).toBe(
      true,
    );
    // Failures older than the elimination window have leaked out: recovered.
    expect(routeHealthOf([at(1, { technical: 3 }), at(6, { technical: 2 })], now, settings).eliminated).toBe(
      false,
    );
  });

  it('measures a call: an answer and its time, a final outcome by whose it is, an error as technical', () => {
    const status = (outcome: 'completed' | 'failed' | 'pending', code?: string) => ({
      status: { outcome, operatorReference: 'r', ...(code ? { failure: { code, message: '' } } : {}) },
    });
    expect(measureOf(status('completed'), 900)).toMatchObject({ success: 1, answers: 1, answerMs: 900 });
    expect(measureOf(status('failed', 'INSUFFICIENT_FUNDS'), 5)).toMatchObject({ customer: 1, failure: 0 });
    expect(measureOf(status('failed', 'OPERATOR_REJECTED'), 5)).toMatchObject({ customer: 0, failure: 1 });
    expect(measureOf(status('pending'), 5)).toMatchObject({ success: 0, failure: 0, answers: 1 });
    expect(measureOf({ error: true }, 5)).toEqual({ ...zero, technical: 1 });
  });
});

describe('ranking a pair’s routes', () => {
  it('asks the configured first when nothing is measured, and says which reason', () => {
    expect(rank([])).toMatchObject({ order: ['pawapay', 'mtn'], reason: 'ranked-first' });
    expect(
      rankRoutes({
        routes: ['mtn'],
        amount: 1,
        health: new Map(),
        terms: {},
        explorationShare: 0.5,
        random: 0,
      }),
    ).toMatchObject({
      order: ['mtn'],
      reason: 'only-route',
    });
  });

  it('puts the higher success rate first, and writes every input', () => {
    const r = rank([
      ['pawapay', healthy(0.8)],
      ['mtn', healthy(0.95)],
    ]);
    expect(r.order).toEqual(['mtn', 'pawapay']);
    expect(r.inputs).toEqual([
      {
        connector: 'pawapay',
        successRate: 0.8,
        outcomes: 100,
        eliminated: false,
        cost: 0,
        takesAmount: true,
        published: null,
      },
      {
        connector: 'mtn',
        successRate: 0.95,
        outcomes: 100,
        eliminated: false,
        cost: 0,
        takesAmount: true,
        published: null,
      },
    ]);
  });

  it('between equal rates, the cheaper route (expected value) goes first', () => {
    const terms = { pawapay: { costPercent: 2 }, mtn: { costFixed: 50 } };
    const r = rank(
      [
        ['pawapay', healthy(0.9)],
        ['mtn', healthy(0.9)],
      ],
      { terms },
    );
    expect(r.order).toEqual(['mtn', 'pawapay']);
    expect(r.inputs.map((i) => i.cost)).toEqual([200, 50]);
  });

  it('asks an eliminated route last, a route that cannot take the amount never', () => {
    expect(rank([['pawapay', healthy(0.99, true)]]).order).toEqual(['mtn', 'pawapay']);
    expect(rank([], { terms: { pawapay: { max: 5_000 } } }).order).toEqual(['mtn']);
    expect(rank([], { terms: { pawapay: { min: 20_000 }, mtn: { max: 5_000 } } }).order).toEqual([
      'pawapay',
      'mtn',
    ]);
  });

  it("follows what a route's provider publishes: closed is asked last, delayed after the operational", () => {
    const h: Array<[ConnectorName, RouteHealth]> = [
      ['pawapay', healthy(0.99)],
      ['mtn', healthy(0.8)],
    ];
    expect(rank(h, { published: new Map([['pawapay', 'closed']]) }).order).toEqual(['mtn', 'pawapay']);
    expect(rank(h, { published: new Map([['pawapay', 'delayed']]) }).order).toEqual(['mtn', 'pawapay']);
    expect(rank(h, { published: new Map([['pawapay', 'operational']]) }).order).toEqual(['pawapay', 'mtn']);
    expect(rank(h, { published: new Map([['pawapay', 'closed']]) }).inputs[0]).toMatchObject({
      published: 'closed',
    });
  });

  it('gives a route without a rate yet the best measured rate, so a new route is not starved', () => {
    expect(rank([['pawapay', healthy(0.7)]]).order).toEqual(['pawapay', 'mtn']);
    expect(
      rank([
        ['pawapay', healthy(0.7)],
        ['mtn', healthy(null)],
      ]).order,
    ).toEqual(['pawapay', 'mtn']);
  });

  it('explores the next route in a small share of transactions, an eliminated one included (a recovery probe)', () => {
    const h: Array<[ConnectorName, RouteHealth]> = [
      ['mtn', healthy(0.9, true)],
      ['pawapay', healthy(0.9)],
    ];
    expect(rank(h, { random: 0.01 })).toMatchObject({ order: ['mtn', 'pawapay'], reason: 'exploration' });
    expect(rank(h, { random: 0.06 })).toMatchObject({ order: ['pawapay', 'mtn'], reason: 'ranked-first' });
  });
});

describe('OPERATOR_ROUTE_TERMS', () => {
  it('reads each connector’s terms and refuses what is not one', () => {
    expect(routeTermsJson.parse('{"pawapay":{"costPercent":1.5,"max":1000000}}')).toEqual({
      pawapay: { costPercent: 1.5, max: 1_000_000 },
    });
    expect(routeTermsJson.safeParse('{"paypal":{}}').success).toBe(false);
    expect(routeTermsJson.safeParse('{"mtn":{"fee":1}}').success).toBe(false);
    expect(routeTermsJson.safeParse('not json').success).toBe(false);
  });
});

describe('a pair’s published state from its routes’ (provider health: payins refused, payouts held)', () => {
  const two = ['pawapay', 'mtn'] as const;
  type State = 'operational' | 'delayed' | 'closed';
  // One operational route takes the payout; it is held only when every route is delayed or closed.
  it.each<[string, readonly ConnectorName[], Array<[ConnectorName, State]>, State | null]>([
    ['one route says nothing (operational)', two, [['pawapay', 'delayed']], 'operational'],
    [
      'one route closed, the other operational',
      two,
      [
        ['pawapay', 'closed'],
        ['mtn', 'operational'],
      ],
      'operational',
    ],
    [
      'both delayed',
      two,
      [
        ['pawapay', 'delayed'],
        ['mtn', 'delayed'],
      ],
      'delayed',
    ],
    [
      'one closed, one delayed',
      two,
      [
        ['pawapay', 'closed'],
        ['mtn', 'delayed'],
      ],
      'delayed',
    ],
    [
      'both closed',
      two,
      [
        ['pawapay', 'closed'],
        ['mtn', 'closed'],
      ],
      'closed',
    ],
    ['the only route’s own state', ['pawapay'], [['pawapay', 'delayed']], 'delayed'],
    ['no route publishes', two, [], null],
    ['a provider’s word on a route the pair does not have', ['mtn'], [['pawapay', 'closed']], null],
  ])('%s', (_case, routes, published, expected) => {
    expect(pairPublishedState(routes, new Map(published))).toBe(expected);
  });
});
