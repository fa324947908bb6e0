import type { Connector, ConnectorName } from './connector';

export type { Connector, ConnectorName, ConnectorRules, RefundRulesOf, RulesOf } from './connector';
export { RoutedGateway, ModeGateway, modeOfIdFromRecords, scopeOfIdFromRecords } from './routing';
export { routeOf, routeEntries, routeRefusals, operations, type Operation, type RouteTable } from './routes';
export { SimulatorConnector } from './simulator';

/** The connectors whose credentials are configured, by name. */
export type ConnectorSet = ReadonlyMap<ConnectorName, Connector>;
