import type { Config } from '../config';
import { providerName, type Country, type OperatorCode } from '../domain/operators';
import type { RouteHealthSample } from '../infra/metrics';
import { modeOfScope } from '../domain/modes';
import type { OperatorGateway } from '../operators/gateway';
import {
  ModeGateway,
  modeOfIdFromRecords,
  scopeOfIdFromRecords,
  routeEntries,
  routeRefusals,
  RoutedGateway,
  type Operation,
  SimulatorConnector,
  type Connector,
  type ConnectorName,
  type ConnectorSet,
  type RouteTable,
} from '../operators/connectors';
import { buildMtnConnector } from '../operators/connectors/mtn/config';
import { buildPawapayConnector } from '../operators/connectors/pawapay/config';
import { buildWaveConnector } from '../operators/connectors/wave/config';
import { buildHub2Connector } from '../operators/connectors/hub2/config';
import type { Hub2Journal } from '../operators/connectors/hub2/connector';
import type { TransactionStore } from '../persistence/transactions';
import type { RefundStore } from '../persistence/refunds';
import { AskRecordingGateway, type OperatorAskIndex } from '../reconciliation';
import type { Connection } from 'mongoose';
import {
  MeasuringGateway,
  ProviderHealth,
  routeEliminationOf,
  type HealthRecorder,
} from '../operators/health';
import type { PublishedAvailability } from '../operators/connectors/connector';
import { CustomerTextGateway } from '../operators/connectors/customer-text';
import type { RoutingOptions } from '../operators/connectors/routing';
import { controlsOfRoutes, type SandboxControls } from '../operators/connectors/simulator-controls';
import { operatorRoutesJson } from '../operators/connectors/routes';

/** Every pair of the sandbox, for every operation, along its routes (SANDBOX_ROUTES). */
const sandboxRouteTables: Record<1 | 2, RouteTable> = {
  1: operatorRoutesJson.parse('{"*":"simulator"}'),
  2: operatorRoutesJson.parse('{"*":["simulator","simulator-2"]}'),
};
import { pairPublishedState, type RouteHealth } from '../operators/routes/ranking';
import type { RouteStatesOf } from '../api/routes/providers';

// The operators a process talks to: the sandbox simulator for test mode, and live mode's connectors
// by route (OPERATOR_ROUTES). Built the same way by the API (callbacks, recipient checks, provider
// states) and the worker (the activities' gateway).

export interface Operators {
  /** Test mode's first route: the sandbox simulator's root (recipient checks, statements). */
  sandbox: SimulatorConnector;
  /**
   * Test mode's gateway: every pair has two sandbox routes, `simulator` and `simulator-2`, asked in
   * that order and failed over as live routes are; ranked by no measure (docs/sandbox.md).
   */
  sandboxRoutes: RoutedGateway;
  /** The test helpers' controls over both sandbox routes. */
  sandboxControls: SandboxControls;
  /** Live mode's gateway, by operator × country × operation. */
  live: RoutedGateway;
  routes: RouteTable;
  /** The connectors whose credentials are configured (the simulator always is). */
  connectors: ConnectorSet;
}

/** Refuses to build (a message per problem) when a route names a connector it cannot use. */
export function buildOperators(
  config: Config,
  records: {
    payinOfRefund?: (refundId: string) => Promise<string | null>;
    /** The payer's number of a refund's payin (Hub2 refunds by a transfer to it); never logged. */
    payerOfRefund?: (refundId: string) => Promise<string | null>;
    /** The Hub2 connector's journal (src/persistence/hub2-journal.ts); without it, no Hub2. */
    hub2Journal?: Hub2Journal;
  } = {},
): Operators {
  const common = {
    timeoutMs: config.OPERATOR_TIMEOUT,
    callbackBaseUrl: config.OPERATOR_CALLBACK_BASE_URL ?? config.PUBLIC_BASE_URL ?? null,
  };
  const simulatorUrl = (
    config.OPERATOR_BASE_URL ?? `http://127.0.0.1:${config.EMBEDDED_SIMULATOR_PORT}`
  ).replace(/\/+$/, '');
  const sandbox = new SimulatorConnector({ baseUrl: simulatorUrl, ...common });
  const secondSandbox = new SimulatorConnector(
    { ...common, baseUrl: `${simulatorUrl}/routes/2` },
    'simulator-2',
  );
  const connectors = new Map<ConnectorName, Connector>([
    ['simulator', sandbox],
    ['simulator-2', secondSandbox],
  ]);
  // Where a session's customer returns from a provider's own page (Wave): our checkout page.
  const publicBase = config.PUBLIC_BASE_URL?.replace(/\/+$/, '');
  const live = [
    buildPawapayConnector(config, common),
    buildMtnConnector(config, common),
    buildWaveConnector(config, {
      ...common,
      ...(publicBase?.startsWith('https://')
        ? { checkoutPage: (id: string) => `${publicBase}/checkout/${id}` }
        : {}),
      ...(records.payinOfRefund ? { refundOrigin: records.payinOfRefund } : {}),
    }),
    records.hub2Journal
      ? buildHub2Connector(config, {
          ...common,
          journal: records.hub2Journal,
          ...(records.payerOfRefund ? { payerOfRefund: records.payerOfRefund } : {}),
        })
      : null,
  ];
  for (const c of live) if (c) connectors.set(c.name, c);
  const routes: RouteTable = config.OPERATOR_ROUTES ?? new Map();
  const refused = routeRefusals(routes, connectors, config.NODE_ENV === 'production');
  // A send that read the route book just before a fence still reaches the first route within an
  // operator call's timeout: the fence must outlast it (docs/decisions/operators/failover-never-twice.md).
  if (config.OPERATOR_FAILOVER_FENCE <= 2 * config.OPERATOR_TIMEOUT)
    refused.push('OPERATOR_FAILOVER_FENCE: must be more than twice OPERATOR_TIMEOUT');
  if (refused.length > 0)
    throw new Error(`Invalid operator routes:\n${refused.map((r) => `  ${r}`).join('\n')}`);
  return {
    sandbox,
    sandboxRoutes: new RoutedGateway(
      sandboxRouteTables[config.SANDBOX_ROUTES === 1 ? 1 : 2],
      new Map<ConnectorName, Connector>([
        ['simulator', sandbox],
        ['simulator-2', secondSandbox],
      ]),
      null,
      'merged',
    ),
    sandboxControls: controlsOfRoutes([sandbox.controls, secondSandbox.controls]),
    live: new RoutedGateway(routes, connectors),
    routes,
    connectors,
  };
}

/**
 * The activities' gateway: by the transaction's mode, then (live) by route. Only the sandbox's asks
 * are indexed for reconciliation, which reads the sandbox's books: live connectors publish none.
 */
export function buildOperatorGateway(
  operators: Operators,
  records: {
    transactions: TransactionStore;
    refunds: RefundStore;
    asks: OperatorAskIndex;
    /** Which route took each live payin and payout, and how routes are chosen; omitted, each pair's first route serves. */
    routes?: Omit<RoutingOptions, 'payinOfRefund'>;
    /** The merchant's name (by scope), which live customers read with the reference. */
    merchantName?: (scope: string) => Promise<string | null>;
  },
  /**
   * Provider states' measures (src/operators/health); omitted, nothing is measured. Only live mode
   * is measured: test mode's timeouts and failures are merchants' chosen scenarios, and must not
   * hold other merchants' test payouts (ops can still force a test-mode state).
   */
  recorder?: HealthRecorder,
): OperatorGateway {
  const scopes = {
    // The scope is fixed at creation: one document read, no version probe.
    transactionScope: (id: string) => records.transactions.merchantOf(id),
    refundScope: (id: string) => records.refunds.merchantOf(id),
  };
  // One remembered read of each id's tenant, for its mode and for the sandbox's per-merchant controls.
  const scopeOf = scopeOfIdFromRecords(scopes);
  const modeOf = modeOfIdFromRecords({ ...scopes, modeOfScope }, scopeOf);
  const payinOfRefund = async (refundId: string) =>
    (await records.refunds.findById(refundId))?.payinId ?? null;
  // Test mode follows its routes in the same route book; no measure ranks them (a merchant's
  // outage controls must not move another merchant's test traffic), and no exploration. With one
  // sandbox route (SANDBOX_ROUTES=1; every pair has the same routes) there is nothing to follow:
  // no book is read or written.
  const sandboxFollowed =
    records.routes && operators.sandboxRoutes.connectorsFor('MTN', 'CI', 'payin').length > 1;
  const sandbox =
    records.routes && sandboxFollowed
      ? operators.sandboxRoutes.withBook({
          book: records.routes.book,
          fenceMs: records.routes.fenceMs,
          ...(records.routes.now ? { now: records.routes.now } : {}),
          payinOfRefund,
        })
      : operators.sandboxRoutes;
  const routed = records.routes
    ? operators.live.withBook({ ...records.routes, payinOfRefund })
    : operators.live;
  const measured: OperatorGateway = recorder ? new MeasuringGateway(routed, 'live', recorder) : routed;
  // What a live customer sees of a payment: the merchant's name and reference, never our ids. Read
  // outside the measures: provider health times the provider, not our own records.
  const live = new CustomerTextGateway(measured, async (kind, id) => {
    const tx =
      kind === 'refund'
        ? await records.transactions.findById((await records.refunds.findById(id))?.payinId ?? '')
        : await records.transactions.findById(id);
    if (!tx) return null;
    return { merchant: (await records.merchantName?.(tx.merchantId)) ?? null, reference: tx.reference };
  });
  return new ModeGateway(new AskRecordingGateway(sandbox, records.asks), live, modeOf, scopeOf);
}

/**
 * One per process (API and worker): provider states from measures, overrides and what providers
 * publish. A live pair with no route is closed; test mode is always routed (the sandbox).
 */
type RoutePublished = PublishedAvailability & { route: ConnectorName };

/**
 * Every live connector's published availability, each tagged with its route: asked at most every
 * 30 s per process (off a transaction's path but for the first), an unreachable one saying nothing;
 * one cache per process, for the ranking and for provider health.
 */
const publishedOf = new WeakMap<Operators, () => Promise<RoutePublished[]>>();
function publishedRoutes(operators: Operators): () => Promise<RoutePublished[]> {
  const known = publishedOf.get(operators);
  if (known) return known;
  const publishers = [...operators.connectors.values()].filter((c) => typeof c.availability === 'function');
  let cache: { at: number; data: Promise<RoutePublished[]> } | null = null;
  const read = () => {
    if (!cache || Date.now() - cache.at >= 30_000) {
      const data = Promise.all(
        publishers.map(async (c) =>
          (await (c.availability?.() ?? Promise.resolve([])).catch((): PublishedAvailability[] => [])).map(
            (a) => ({ ...a, route: c.name }),
          ),
        ),
      ).then((lists) => lists.flat());
      cache = { at: Date.now(), data };
    }
    return cache.data;
  };
  publishedOf.set(operators, read);
  return read;
}

/** Each route's published state of a pair, for the ranking. */
export function publishedByRoute(operators: Operators): NonNullable<RoutingOptions['published']> {
  const published = publishedRoutes(operators);
  return async (operator, country, operation) =>
    new Map(
      (await published())
        .filter((a) => a.operator === operator && a.country === country && a.operation === operation)
        .map((a) => [a.route, a.status]),
    );
}

/**
 * Each live pair's published state, for provider health (payins refused, payouts held): the best of
 * its routes' (src/operators/routes/ranking.ts, pairPublishedState). A provider's word on a pair it
 * does not serve here counts for nothing.
 */
export function publishedByPair(operators: Operators): () => Promise<PublishedAvailability[]> {
  const published = publishedRoutes(operators);
  return async () => {
    const pairs = new Map<
      string,
      {
        pair: Omit<PublishedAvailability, 'status'>;
        states: Map<ConnectorName, PublishedAvailability['status']>;
      }
    >();
    for (const { route, status, ...pair } of await published()) {
      const key = `${pair.operator}_${pair.country}:${pair.operation}`;
      const entry = pairs.get(key) ?? { pair, states: new Map() };
      entry.states.set(route, status);
      pairs.set(key, entry);
    }
    return [...pairs.values()].flatMap(({ pair, states }) => {
      const serving = operators.live
        .connectorsFor(pair.operator, pair.country, pair.operation)
        .map((c) => c.name);
      const status = pairPublishedState(serving, states);
      return status ? [{ ...pair, status }] : [];
    });
  };
}

/**
 * Every route of a provider × operation in a mode, with what the ranking reads of it (GET
 * /v1/providers, the dashboard, /metrics): live routes measured; the sandbox's, which no measure
 * ranks, as they are asked.
 */
export function routeStatesOf(health: ProviderHealth, operators: Operators): RouteStatesOf {
  const published = publishedByRoute(operators);
  return async (mode, operator, country, operation) => {
    const gateway = mode === 'live' ? operators.live : operators.sandboxRoutes;
    const names = gateway.connectorsFor(operator, country, operation).map((c) => c.name);
    const [measured, states]: [
      ReadonlyMap<ConnectorName, RouteHealth>,
      ReadonlyMap<ConnectorName, PublishedAvailability['status']>,
    ] =
      mode === 'live'
        ? await Promise.all([
            health.routes.health(operator, country, operation, names),
            published(operator, country, operation),
          ])
        : [new Map(), new Map()];
    return names.map((connector) => {
      const h = measured.get(connector);
      return {
        connector,
        successRate: h?.successRate ?? null,
        answerSeconds: h?.answerMs == null ? null : Math.round(h.answerMs) / 1000,
        eliminated: h?.eliminated ?? false,
        published: states.get(connector) ?? null,
      };
    });
  };
}

/** /metrics' route series: every live route of a pair with several, as the ranking sees it. */
export function routeHealthSamples(
  health: ProviderHealth,
  operators: Operators,
): () => Promise<RouteHealthSample[]> {
  const statesOf = routeStatesOf(health, operators);
  return async () => {
    const pairs = new Map<string, { operator: OperatorCode; country: Country; operation: Operation }>();
    for (const e of routeEntries(operators.routes))
      if (e.operation !== 'refund') pairs.set(`${e.operator}_${e.country}:${e.operation}`, e);
    const samples: RouteHealthSample[] = [];
    for (const { operator, country, operation } of pairs.values())
      for (const r of await statesOf('live', operator, country, operation))
        samples.push({
          provider: providerName(operator, country),
          operation,
          connector: r.connector,
          successRate: r.successRate,
          answerMs: r.answerSeconds === null ? null : r.answerSeconds * 1000,
          eliminated: r.eliminated,
        });
    return samples;
  };
}

export function providerHealthOf(mongo: Connection, config: Config, operators: Operators): ProviderHealth {
  const publishers = [...operators.connectors.values()].filter(
    (c) => 'availability' in c && typeof c.availability === 'function',
  );
  return new ProviderHealth(mongo, {
    windowMs: config.PROVIDER_HEALTH_WINDOW,
    minAttempts: config.PROVIDER_HEALTH_MIN_ATTEMPTS,
    cacheMs: config.PROVIDER_HEALTH_CACHE,
    routes: routeEliminationOf(config),
    routed: (mode, operator, country, operation) =>
      mode === 'test' || operators.live.connectorFor(operator, country, operation) !== null,
    ...(publishers.length > 0 ? { published: publishedByPair(operators) } : {}),
  });
}
