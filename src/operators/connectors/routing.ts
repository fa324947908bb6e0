import { LRUCache } from 'lru-cache';
import type { Country, OperatorCode } from '../../domain/operators';
import { providerName } from '../../domain/operators';
import { modeOfScope, type Mode } from '../../domain/modes';
import {
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorGateway,
  type OperatorKind,
  type OperatorStatement,
  type OperatorStatus,
  type PartnerCheckResult,
  type RefundRequest,
} from '../gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type ConnectorName,
  type ConnectorRules,
} from './connector';
import { operationOfKind, routeOf, routesOf, type Operation, type RouteTable } from './routes';
import { RouteFollower, type FailoverOptions } from '../routes/failover';
import { measureOf, rankRoutes, type Ranking, type RouteMeasures, type RouteTerms } from '../routes/ranking';
import type { RoutedKind } from '../routes/book';

/**
 * Live mode's gateway: each call goes to a connector routed for its operator × country ×
 * operation. A new request with no route is refused (nothing was done); a status read, a partner
 * check or a cancel with no route is "unavailable" (retried), never an answer: a route removed while
 * a transaction is open must not end it.
 *
 * With a route book (the worker's), a payin or payout is sent along its pair's routes and every
 * later call follows the route that took it (src/operators/routes/failover.ts); a refund goes
 * through its payin's route. Without one (the API, which only reads rules and verifies callbacks),
 * or for a transaction no route was written for, the pair's first route serves.
 */
export class RoutedGateway implements OperatorGateway {
  private readonly follower: RouteFollower | null;
  private readonly refundRoutes = new LRUCache<string, ConnectorName>({ max: 5_000 });
  /** Transactions whose final outcome this process has counted in its route's success rate. */
  private readonly finalsMeasured = new LRUCache<string, true>({ max: 20_000 });

  constructor(
    private readonly table: RouteTable,
    private readonly connectors: ReadonlyMap<ConnectorName, Connector>,
    private readonly options: RoutingOptions | null = null,
    /** The sandbox's routes each publish a statement: reconciliation reads them merged. */
    private readonly statements: 'merged' | 'none' = 'none',
  ) {
    this.follower = options ? new RouteFollower(options) : null;
  }

  /** The same routes, following each transaction in a route book (the worker's gateway). */
  withBook(options: RoutingOptions): RoutedGateway {
    return new RoutedGateway(this.table, this.connectors, options, this.statements);
  }

  /** The connector asked first for a route, or null when the route names none or its connector is not configured. */
  connectorFor(operator: OperatorCode, country: Country, operation: Operation): Connector | null {
    return this.connectorsFor(operator, country, operation)[0] ?? null;
  }

  /** Every configured connector of a route, in the order they are asked. */
  connectorsFor(operator: OperatorCode, country: Country, operation: Operation): Connector[] {
    return routesOf(this.table, operator, country, operation).flatMap((name) => {
      const c = this.connectors.get(name);
      return c ? [c] : [];
    });
  }

  /**
   * The rules a request must meet: those of every connector that may take it (a failover must not
   * meet a rule the request was not held to), none without a route (the request is refused anyway).
   */
  rulesFor(operator: OperatorCode, country: Country, operation: Operation): ConnectorRules {
    const rules: ConnectorRules = {};
    // The flags of every route (a failover must not meet one the request was not held to); a
    // route's amounts are its own (refundRulesFor), never merged.
    for (const c of this.connectorsFor(operator, country, operation))
      for (const [rule, on] of Object.entries(connectorRules(c, operator, country, operation)))
        if (on === true) (rules as Record<string, boolean>)[rule] = true;
    return rules;
  }

  /**
   * The rules of a refund of this payin: those of the connector that holds the payin (its route
   * book's word; the pair's first payin route without a book or an entry).
   */
  async refundRulesFor(payinId: string, operator: OperatorCode, country: Country): Promise<ConnectorRules> {
    const first = routeOf(this.table, operator, country, 'payin');
    const name = this.follower ? await this.follower.current('collection', payinId, first) : first;
    const c = name ? this.connectors.get(name) : undefined;
    return c ? connectorRules(c, operator, country, 'refund') : {};
  }

  private named(name: ConnectorName, where: string): Connector {
    const c = this.connectors.get(name);
    if (!c) throw new OperatorUnavailableError(`${where}: connector ${name} is not configured`);
    return c;
  }

  /** The routes a new request may take, refused when there is none. */
  private routesForRequest(operator: OperatorCode, country: Country, operation: Operation): ConnectorName[] {
    const names = this.connectorsFor(operator, country, operation).map((c) => c.name);
    if (names.length === 0)
      throw new OperatorRejectedError(`no live route for ${providerName(operator, country)} ${operation}`);
    return names;
  }

  /** The connector a transaction is at (its route book's word), for a read, a check or a cancel. */
  private async at(
    kind: RoutedKind,
    id: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<Connector> {
    const where = `${providerName(operator, country)} ${operationOfKind[kind]}`;
    const first = routeOf(this.table, operator, country, operationOfKind[kind]);
    const name = this.follower ? await this.follower.current(kind, id, first) : first;
    if (!name) throw new OperatorUnavailableError(`no live route for ${where}`);
    return this.named(name, where);
  }

  /** Sends a payin's or payout's request along its routes (its first only, without a route book). */
  private async request(
    kind: RoutedKind,
    req: { transactionId: string; operator: OperatorCode; country: Country; amount: number },
    mayFailOver: boolean,
    send: (c: Connector) => Promise<OperatorStatus>,
    read: (c: Connector) => Promise<OperatorStatus>,
  ): Promise<OperatorStatus> {
    const { operator, country, amount } = req;
    const operation = operationOfKind[kind];
    const routes = this.routesForRequest(operator, country, operation);
    const where = `${providerName(operator, country)} ${operation}`;
    if (!this.follower) return send(this.named(routes[0]!, where));
    const measured = (name: ConnectorName, call: (c: Connector) => Promise<OperatorStatus>) =>
      this.measured(operator, country, operation, name, req.transactionId, () =>
        call(this.named(name, where)),
      );
    return this.follower.send(
      kind,
      req.transactionId,
      () => this.choose(operator, country, operation, amount, routes),
      mayFailOver,
      {
        send: (name) => measured(name, send),
        read: (name) => measured(name, read),
      },
    );
  }

  /** The pair's routes ranked by their measured health and terms (their configured order without measures). */
  private async choose(
    operator: OperatorCode,
    country: Country,
    operation: Operation,
    amount: number,
    routes: ConnectorName[],
  ): Promise<Ranking> {
    const o = this.options;
    const [health, published] = await Promise.all([
      o?.measures ? o.measures.health(operator, country, operation, routes) : new Map(),
      // A provider that cannot say leaves the ranking to our measures.
      (o?.published?.(operator, country, operation) ?? Promise.resolve(new Map())).catch(() => new Map()),
    ]);
    return rankRoutes({
      routes,
      amount,
      health,
      published,
      terms: o?.terms ?? {},
      explorationShare: o?.explorationShare ?? 0,
      random: (o?.random ?? Math.random)(),
    });
  }

  /**
   * A call to one route about transaction `id`, measured for its health (never changing what the
   * caller sees): its answer time, a technical failure, and the transaction's final outcome once per
   * process (a final status read again counts as an answer only).
   */
  private async measured(
    operator: OperatorCode,
    country: Country,
    operation: Operation,
    route: ConnectorName,
    id: string,
    call: () => Promise<OperatorStatus>,
  ): Promise<OperatorStatus> {
    const measures = this.options?.measures;
    if (!measures) return call();
    const started = Date.now();
    const note = (result: Parameters<typeof measureOf>[0]) => {
      try {
        const measure = measureOf(result, Date.now() - started);
        const final = measure.success + measure.failure + measure.customer > 0;
        if (final && this.finalsMeasured.has(id)) measure.success = measure.failure = measure.customer = 0;
        else if (final) this.finalsMeasured.set(id, true);
        measures.record(operator, country, operation, route, measure);
      } catch {
        // Measuring must never change what the activity sees.
      }
    };
    try {
      const status = await call();
      note({ status });
      return status;
    } catch (err) {
      note({ error: true });
      throw err;
    }
  }

  /**
   * The connector that collected a refund's payin (the pair's first refund route when unknown). A
   * refunded payin's route is settled, so each process keeps it per refund: the refund's status
   * reads ask the store nothing.
   */
  private async refundRoute(
    refundId: string,
    payinId: string | null,
    operator: OperatorCode,
    country: Country,
  ): Promise<Connector> {
    const where = `${providerName(operator, country)} refund`;
    const first = routeOf(this.table, operator, country, 'refund');
    let name = this.refundRoutes.get(refundId) ?? null;
    if (!name && this.follower) {
      const payin = payinId ?? (await this.options?.payinOfRefund?.(refundId)) ?? null;
      name = payin ? await this.follower.current('collection', payin, first) : null;
      if (name) this.refundRoutes.set(refundId, name);
    }
    name ??= first;
    if (!name) throw new OperatorUnavailableError(`no live route for ${where}`);
    return this.named(name, where);
  }

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    // A payin whose OTP was given is not asked again elsewhere: the OTP was the first route's.
    return this.request(
      'collection',
      req,
      req.otp === undefined,
      (c) => c.requestCollection(req),
      (c) => c.collectionStatus(req.transactionId, req.operator, req.country),
    );
  }
  /** A status read at the route a transaction is at, measured: its final outcome is the route's. */
  private async statusAt(
    kind: RoutedKind,
    id: string,
    operator: OperatorCode,
    country: Country,
    read: (c: Connector) => Promise<OperatorStatus>,
  ): Promise<OperatorStatus> {
    const c = await this.at(kind, id, operator, country);
    return this.measured(operator, country, operationOfKind[kind], c.name, id, () => read(c));
  }
  async collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.statusAt('collection', id, operator, country, (c) =>
      c.collectionStatus(id, operator, country),
    );
  }
  async partnerCheck(id: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return (await this.at('collection', id, operator, country)).partnerCheck(id, operator, country);
  }
  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    return this.request(
      'disbursement',
      req,
      true,
      (c) => c.disburse(req),
      (c) => c.disbursementStatus(req.transactionId, req.operator, req.country),
    );
  }
  async disbursementStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.statusAt('disbursement', id, operator, country, (c) =>
      c.disbursementStatus(id, operator, country),
    );
  }
  async refund(req: RefundRequest): Promise<OperatorStatus> {
    if (!this.follower && !routeOf(this.table, req.operator, req.country, 'refund'))
      throw new OperatorRejectedError(`no live route for ${providerName(req.operator, req.country)} refund`);
    return (await this.refundRoute(req.refundId, req.transactionId, req.operator, req.country)).refund(req);
  }
  async refundStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return (await this.refundRoute(id, null, operator, country)).refundStatus(id, operator, country);
  }
  async cancel(
    kind: OperatorKind,
    id: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    const c =
      kind === 'refund'
        ? await this.refundRoute(id, null, operator, country)
        : await this.at(kind, id, operator, country);
    return c.cancel(kind, id, operator, country);
  }
  /**
   * Live statements: none of the connectors publishes one (docs/operators.md, reconciliation). The
   * sandbox's: each route's books of the day, one statement (a transaction is at one route only).
   */
  async statement(operator: OperatorCode, date: string): Promise<OperatorStatement> {
    if (this.statements === 'none')
      throw new StatementsNotOfferedError(`no statement API for ${operator} in live mode`);
    const all = await Promise.all([...this.connectors.values()].map((c) => c.statement(operator, date)));
    return {
      operator,
      date,
      generatedAt:
        all
          .map((s) => s.generatedAt)
          .sort()
          .at(-1) ?? new Date().toISOString(),
      entries: all.flatMap((s) => s.entries),
    };
  }
}

/** How the worker's live gateway follows and chooses routes (src/operators/routes/). */
export interface RoutingOptions extends FailoverOptions {
  /** The payin a refund reverses: the refund goes through the route that collected it. */
  payinOfRefund?: (refundId: string) => Promise<string | null>;
  /** Each route's measured health; absent, routes are asked in their configured order. */
  measures?: RouteMeasures;
  /** Each route's state as its provider publishes it (pawaPay's availability), where it does. */
  published?: (
    operator: OperatorCode,
    country: Country,
    operation: Operation,
  ) => Promise<ReadonlyMap<ConnectorName, 'operational' | 'delayed' | 'closed'>>;
  /** OPERATOR_ROUTE_TERMS: each connector's cost and the amounts it takes. */
  terms?: Partial<Record<ConnectorName, RouteTerms>>;
  /** Share of transactions that explore the next route (0 to 1). */
  explorationShare?: number;
  random?: () => number;
}

/** The mode of the transaction or refund an operator id belongs to. */
export type ModeOfId = (kind: OperatorKind, id: string) => Promise<Mode>;

/**
 * The gateway the activities use: test-mode transactions go to the sandbox simulator, live ones to
 * their routed connector. The mode is the transaction's own (from its record, read once per id and
 * process): the workflows and activities stay as they are.
 */
export class ModeGateway implements OperatorGateway {
  /**
   * `scopeOf`: the tenant of an id, given to the sandbox with each new request, so a merchant's own
   * outage controls act on its own test traffic only. Omitted, sandbox requests carry no tenant.
   */
  constructor(
    private readonly sandbox: OperatorGateway,
    private readonly live: OperatorGateway,
    private readonly modeOf: ModeOfId,
    private readonly scopeOf?: ScopeOfId,
  ) {}

  private byMode(mode: Mode): OperatorGateway {
    return mode === 'live' ? this.live : this.sandbox;
  }

  private async of(kind: OperatorKind, id: string): Promise<OperatorGateway> {
    return this.byMode(await this.modeOf(kind, id));
  }

  /**
   * A new request with its tenant when it goes to the sandbox. A request that carries its tenant
   * (`scope`) is routed by it, and the tenant is remembered for the id's status reads.
   */
  private async scoped<R extends { sandboxScope?: string; scope?: string }>(
    kind: OperatorKind,
    id: string,
    req: R,
  ): Promise<{ gateway: OperatorGateway; req: R }> {
    if (req.scope) this.scopeOf?.remember?.(id, req.scope);
    const gateway = req.scope ? this.byMode(modeOfScope(req.scope)) : await this.of(kind, id);
    if (gateway !== this.sandbox || !this.scopeOf) return { gateway, req };
    return { gateway, req: { ...req, sandboxScope: req.scope ?? (await this.scopeOf(kind, id)) } };
  }

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    const to = await this.scoped('collection', req.transactionId, req);
    return to.gateway.requestCollection(to.req);
  }
  async collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return (await this.of('collection', id)).collectionStatus(id, operator, country);
  }
  async partnerCheck(id: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return (await this.of('collection', id)).partnerCheck(id, operator, country);
  }
  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    const to = await this.scoped('disbursement', req.transactionId, req);
    return to.gateway.disburse(to.req);
  }
  async disbursementStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return (await this.of('disbursement', id)).disbursementStatus(id, operator, country);
  }
  async refund(req: RefundRequest): Promise<OperatorStatus> {
    return (await this.of('refund', req.refundId)).refund(req);
  }
  async refundStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return (await this.of('refund', id)).refundStatus(id, operator, country);
  }
  async cancel(
    kind: OperatorKind,
    id: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    return (await this.of(kind, id)).cancel(kind, id, operator, country);
  }
  /** Reconciliation reads the sandbox's books; live connectors publish none (see RoutedGateway). */
  statement(operator: OperatorCode, date: string): Promise<OperatorStatement> {
    return this.sandbox.statement(operator, date);
  }
}

/**
 * The tenant (scope) an id belongs to; `remember` takes one a request carried (CollectionRequest's
 * `scope`), so the id's later status reads in this process read no record either.
 */
export type ScopeOfId = ((kind: OperatorKind, id: string) => Promise<string>) & {
  remember?(id: string, scope: string): void;
};

/**
 * Resolves an id's tenant from its record, remembering it (a record's tenant never changes). A
 * record not found yet is "unavailable": it is stored before its workflow starts, so this is a
 * lagging read.
 */
export function scopeOfIdFromRecords(read: {
  transactionScope(id: string): Promise<string | null>;
  refundScope(id: string): Promise<string | null>;
}): ScopeOfId {
  const known = new Map<string, string>();
  const remember = (id: string, scope: string) => {
    if (known.has(id)) return;
    if (known.size >= 50_000) known.delete(known.keys().next().value!);
    known.set(id, scope);
  };
  const scopeOf: ScopeOfId = async (kind, id) => {
    const cached = known.get(id);
    if (cached) return cached;
    const scope = kind === 'refund' ? await read.refundScope(id) : await read.transactionScope(id);
    if (scope === null) throw new OperatorUnavailableError(`no record of ${kind} ${id} yet`);
    remember(id, scope);
    return scope;
  };
  scopeOf.remember = remember;
  return scopeOf;
}

/** Resolves an id's mode from its record's tenant (remembered: see scopeOfIdFromRecords). */
export function modeOfIdFromRecords(
  read: Parameters<typeof scopeOfIdFromRecords>[0] & { modeOfScope(scope: string): Mode },
  scopeOf: ScopeOfId = scopeOfIdFromRecords(read),
): ModeOfId {
  return async (kind, id) => read.modeOfScope(await scopeOf(kind, id));
}

/** A connector's rules for one pair and operation. */
function connectorRules(
  c: Connector,
  operator: OperatorCode,
  country: Country,
  operation: Operation,
): ConnectorRules {
  return c.rulesFor?.(operator, country, operation) ?? c.rules ?? {};
}
