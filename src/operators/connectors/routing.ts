import type { Country, OperatorCode } from '../../domain/operators';
import { providerName } from '../../domain/operators';
import type { Mode } from '../../domain/modes';
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
import { operationOfKind, routeOf, type Operation, type RouteTable } from './routes';

/**
 * Live mode's gateway: each call goes to the connector routed for its operator × country ×
 * operation. A new request with no route is refused (nothing was done); a status read, a partner
 * check or a cancel with no route is "unavailable" (retried), never an answer: a route removed while
 * a transaction is open must not end it.
 */
export class RoutedGateway implements OperatorGateway {
  constructor(
    private readonly table: RouteTable,
    private readonly connectors: ReadonlyMap<ConnectorName, Connector>,
  ) {}

  /** The connector of a route, or null when the route names none or its connector is not configured. */
  connectorFor(operator: OperatorCode, country: Country, operation: Operation): Connector | null {
    const name = routeOf(this.table, operator, country, operation);
    return name ? (this.connectors.get(name) ?? null) : null;
  }

  /** The rules of the connector routed for a request (none without a route: the request is refused anyway). */
  rulesFor(operator: OperatorCode, country: Country, operation: Operation): ConnectorRules {
    return this.connectorFor(operator, country, operation)?.rules ?? {};
  }

  private forRequest(operator: OperatorCode, country: Country, operation: Operation): Connector {
    const c = this.connectorFor(operator, country, operation);
    if (!c)
      throw new OperatorRejectedError(`no live route for ${providerName(operator, country)} ${operation}`);
    return c;
  }

  private forRead(operator: OperatorCode, country: Country, operation: Operation): Connector {
    const c = this.connectorFor(operator, country, operation);
    if (!c)
      throw new OperatorUnavailableError(`no live route for ${providerName(operator, country)} ${operation}`);
    return c;
  }

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    return this.forRequest(req.operator, req.country, 'payin').requestCollection(req);
  }
  async collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.forRead(operator, country, 'payin').collectionStatus(id, operator, country);
  }
  async partnerCheck(id: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return this.forRead(operator, country, 'payin').partnerCheck(id, operator, country);
  }
  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    return this.forRequest(req.operator, req.country, 'payout').disburse(req);
  }
  async disbursementStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.forRead(operator, country, 'payout').disbursementStatus(id, operator, country);
  }
  async refund(req: RefundRequest): Promise<OperatorStatus> {
    return this.forRequest(req.operator, req.country, 'refund').refund(req);
  }
  async refundStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.forRead(operator, country, 'refund').refundStatus(id, operator, country);
  }
  async cancel(
    kind: OperatorKind,
    id: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    return this.forRead(operator, country, operationOfKind[kind]).cancel(kind, id, operator, country);
  }
  /** Live statements: none of the connectors publishes one (docs/operators.md, reconciliation). */
  statement(operator: OperatorCode, _date: string): Promise<OperatorStatement> {
    return Promise.reject(new StatementsNotOfferedError(`no statement API for ${operator} in live mode`));
  }
}

/** The mode of the transaction or refund an operator id belongs to. */
export type ModeOfId = (kind: OperatorKind, id: string) => Promise<Mode>;

/**
 * The gateway the activities use: test-mode transactions go to the sandbox simulator, live ones to
 * their routed connector. The mode is the transaction's own (from its record, read once per id and
 * process): the workflows and activities stay as they are.
 */
export class ModeGateway implements OperatorGateway {
  constructor(
    private readonly sandbox: OperatorGateway,
    private readonly live: OperatorGateway,
    private readonly modeOf: ModeOfId,
  ) {}

  private async of(kind: OperatorKind, id: string): Promise<OperatorGateway> {
    return (await this.modeOf(kind, id)) === 'live' ? this.live : this.sandbox;
  }

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    return (await this.of('collection', req.transactionId)).requestCollection(req);
  }
  async collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return (await this.of('collection', id)).collectionStatus(id, operator, country);
  }
  async partnerCheck(id: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return (await this.of('collection', id)).partnerCheck(id, operator, country);
  }
  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    return (await this.of('disbursement', req.transactionId)).disburse(req);
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
 * Resolves an id's mode from its record, remembering it (a record's mode never changes). A record
 * not found yet is "unavailable": it is stored before its workflow starts, so this is a lagging read.
 */
export function modeOfIdFromRecords(read: {
  transactionScope(id: string): Promise<string | null>;
  refundScope(id: string): Promise<string | null>;
  modeOfScope(scope: string): Mode;
}): ModeOfId {
  const known = new Map<string, Mode>();
  return async (kind, id) => {
    const cached = known.get(id);
    if (cached) return cached;
    const scope = kind === 'refund' ? await read.refundScope(id) : await read.transactionScope(id);
    if (scope === null) throw new OperatorUnavailableError(`no record of ${kind} ${id} yet`);
    const mode = read.modeOfScope(scope);
    if (known.size >= 50_000) known.delete(known.keys().next().value!);
    known.set(id, mode);
    return mode;
  };
}
