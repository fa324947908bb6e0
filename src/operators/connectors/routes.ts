import { z } from 'zod';
import { jsonText } from '../../domain/json-text';
import {
  countries,
  operatorsByCountry,
  providerName,
  type Country,
  type OperatorCode,
  type ProviderName,
} from '../../domain/operators';
import { connectorNames, type ConnectorName } from './connector';
import type { OperatorKind } from '../gateway';

// Which connectors serve each operator × country × operation in live mode (test mode always goes to
// the sandbox simulator), in the order they are asked. Configured by OPERATOR_ROUTES, JSON whose
// keys are provider names (`MTN_CI`) or `*` (every provider not named), and whose values are a
// connector name or a list of them (the first is asked first; the next takes a transaction only
// when the first certainly did not: docs/decisions/operators/failover-never-twice.md), or one
// value per operation: {"*":"pawapay","MTN_CI":["mtn","pawapay"],"MTN_CM":{"payin":"mtn","payout":"pawapay"}}.

export const operations = ['payin', 'payout', 'refund'] as const;
export type Operation = (typeof operations)[number];

export const operationOfKind: Record<OperatorKind, Operation> = {
  collection: 'payin',
  disbursement: 'payout',
  refund: 'refund',
};

/** Each route's connectors, in the order they are asked (never empty). */
export type RouteTable = ReadonlyMap<`${ProviderName}:${Operation}`, readonly ConnectorName[]>;

const connector = z.enum(connectorNames);
/** One connector, or several in the order they are asked (each once). */
const connectors = z.union([
  connector.transform((c) => [c]),
  z
    .array(connector)
    .min(1)
    .refine((list) => new Set(list).size === list.length, 'each connector at most once'),
]);
const routeValue = z.union([
  connectors,
  z.strictObject({
    payin: connectors.optional(),
    payout: connectors.optional(),
    refund: connectors.optional(),
  }),
]);
const providerNames = countries.flatMap((c) => operatorsByCountry[c].map((o) => providerName(o, c)));
const routeKey = z.union([z.literal('*'), z.enum(providerNames as [ProviderName, ...ProviderName[]])], {
  error: `a provider name (${providerNames.join(', ')}) or *`,
});

/** OPERATOR_ROUTES as text → the route of every offered operator × country × operation it names. */
export const operatorRoutesJson = jsonText('JSON such as {"*":"pawapay","MTN_CI":["mtn","pawapay"]}')
  .pipe(z.partialRecord(routeKey, routeValue))
  .transform((spec): RouteTable => {
    const table = new Map<`${ProviderName}:${Operation}`, readonly ConnectorName[]>();
    for (const name of providerNames) {
      const value = spec[name] ?? spec['*'];
      if (value === undefined) continue;
      for (const op of operations) {
        const chosen = Array.isArray(value) ? value : value[op];
        if (chosen) table.set(`${name}:${op}`, chosen);
      }
    }
    return table;
  });

/** OPERATOR_ROUTE_TERMS as text → each connector's cost and the amounts it takes (minor units). */
export const routeTermsJson = jsonText('JSON such as {"pawapay":{"costPercent":1.5}}').pipe(
  z.partialRecord(
    connector,
    z.strictObject({
      costPercent: z.number().min(0).max(100).optional(),
      costFixed: z.number().int().min(0).optional(),
      min: z.number().int().min(0).optional(),
      max: z.number().int().positive().optional(),
    }),
  ),
);

/** The connectors of one operator × country × operation, in the order they are asked (empty: none). */
export function routesOf(
  table: RouteTable,
  operator: OperatorCode,
  country: Country,
  operation: Operation,
): readonly ConnectorName[] {
  return table.get(`${providerName(operator, country)}:${operation}`) ?? [];
}

/** The connector asked first for one operator × country × operation, or null when none is routed. */
export function routeOf(
  table: RouteTable,
  operator: OperatorCode,
  country: Country,
  operation: Operation,
): ConnectorName | null {
  return routesOf(table, operator, country, operation)[0] ?? null;
}

/** Every route (one per connector of each operator × country × operation), for GET /v1/providers and the start-up checks. */
export function routeEntries(table: RouteTable): Array<{
  operator: OperatorCode;
  country: Country;
  operation: Operation;
  connector: ConnectorName;
  /** 1 for the connector asked first. */
  rank: number;
}> {
  return [...table].flatMap(([key, names]) => {
    const [name, operation] = key.split(':') as [ProviderName, Operation];
    const [operator, country] = name.split('_') as [OperatorCode, Country];
    return names.map((connectorName, i) => ({
      operator,
      country,
      operation,
      connector: connectorName,
      rank: i + 1,
    }));
  });
}

/**
 * What stops a process from starting with these routes: a connector routed but not configured (its
 * credentials unset), a connector routed to a pair it does not serve, or (in production) the sandbox
 * simulator serving live money.
 */
export function routeRefusals(
  table: RouteTable,
  configured: ReadonlyMap<
    ConnectorName,
    { serves: ReadonlyArray<{ operator: OperatorCode; country: Country }>; sessionRefusal?: string | null }
  >,
  production: boolean,
): string[] {
  const refusals = new Set<string>();
  for (const { operator, country, operation, connector: name } of routeEntries(table)) {
    const where = `${providerName(operator, country)} ${operation}`;
    if ((name === 'simulator' || name === 'simulator-2') && production) {
      refusals.add(`OPERATOR_ROUTES: ${where} is routed to the sandbox simulator, refused in production`);
      continue;
    }
    const c = configured.get(name);
    if (!c) {
      refusals.add(`OPERATOR_ROUTES: ${where} is routed to ${name}, whose credentials are not configured`);
      continue;
    }
    if (!c.serves.some((s) => s.operator === operator && s.country === country))
      refusals.add(`OPERATOR_ROUTES: ${name} does not serve ${providerName(operator, country)} (${where})`);
    else if (operation === 'payin' && c.sessionRefusal)
      refusals.add(`OPERATOR_ROUTES: ${where} is routed to ${name}, but ${c.sessionRefusal}`);
  }
  // A refund names the payment it reverses by the provider's own reference: it goes through the
  // connector that collected the payin, which must therefore be one of the pair's refund routes.
  for (const { operator, country, operation, connector: name } of routeEntries(table)) {
    if (operation !== 'payin') continue;
    if (!routesOf(table, operator, country, 'refund').includes(name))
      refusals.add(
        `OPERATOR_ROUTES: ${providerName(operator, country)} payins go to ${name} but its refunds do not: only the connector that collected a payin can refund it`,
      );
  }
  return [...refusals];
}
