import { z } from 'zod';
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

// Which connector serves each operator × country × operation in live mode (test mode always goes to
// the sandbox simulator). Configured by OPERATOR_ROUTES, JSON whose keys are provider names
// (`MTN_CI`) or `*` (every provider not named), and whose values are a connector name, or one per
// operation: {"*":"pawapay","WAVE_CI":"wave","MTN_CM":{"payin":"mtn","refund":"mtn","payout":"pawapay"}}.

export const operations = ['payin', 'payout', 'refund'] as const;
export type Operation = (typeof operations)[number];

export const operationOfKind: Record<OperatorKind, Operation> = {
  collection: 'payin',
  disbursement: 'payout',
  refund: 'refund',
};

export type RouteTable = ReadonlyMap<`${ProviderName}:${Operation}`, ConnectorName>;

const connector = z.enum(connectorNames);
const routeValue = z.union([
  connector,
  z.strictObject({ payin: connector.optional(), payout: connector.optional(), refund: connector.optional() }),
]);
const providerNames = countries.flatMap((c) => operatorsByCountry[c].map((o) => providerName(o, c)));
const routeKey = z.union([z.literal('*'), z.enum(providerNames as [ProviderName, ...ProviderName[]])], {
  error: `a provider name (${providerNames.join(', ')}) or *`,
});

/** OPERATOR_ROUTES as text → the route of every offered operator × country × operation it names. */
export const operatorRoutesJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'JSON such as {"*":"pawapay","WAVE_CI":"wave"}' });
      return z.NEVER;
    }
  })
  .pipe(z.partialRecord(routeKey, routeValue))
  .transform((spec): RouteTable => {
    const table = new Map<`${ProviderName}:${Operation}`, ConnectorName>();
    for (const name of providerNames) {
      const value = spec[name] ?? spec['*'];
      if (value === undefined) continue;
      for (const op of operations) {
        const chosen = typeof value === 'string' ? value : value[op];
        if (chosen) table.set(`${name}:${op}`, chosen);
      }
    }
    return table;
  });

/** The connector routed for one operator × country × operation, or null when none is. */
export function routeOf(
  table: RouteTable,
  operator: OperatorCode,
  country: Country,
  operation: Operation,
): ConnectorName | null {
  return table.get(`${providerName(operator, country)}:${operation}`) ?? null;
}

/** Every route, for GET /v1/providers and the start-up checks. */
export function routeEntries(
  table: RouteTable,
): Array<{ operator: OperatorCode; country: Country; operation: Operation; connector: ConnectorName }> {
  return [...table].map(([key, connectorName]) => {
    const [name, operation] = key.split(':') as [ProviderName, Operation];
    const [operator, country] = name.split('_') as [OperatorCode, Country];
    return { operator, country, operation, connector: connectorName };
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
    { serves: ReadonlyArray<{ operator: OperatorCode; country: Country }> }
  >,
  production: boolean,
): string[] {
  const refusals = new Set<string>();
  for (const { operator, country, operation, connector: name } of routeEntries(table)) {
    const where = `${providerName(operator, country)} ${operation}`;
    if (name === 'simulator' && production) {
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
  }
  // A refund names the payment it reverses by the provider's own reference: only the connector that
  // collected a payin can refund it.
  for (const { operator, country, operation, connector: name } of routeEntries(table)) {
    if (operation !== 'refund') continue;
    const payin = routeOf(table, operator, country, 'payin');
    if (payin !== name)
      refusals.add(
        `OPERATOR_ROUTES: ${providerName(operator, country)} refunds go to ${name} but its payins to ${payin ?? 'no connector'}: only the connector that collected a payin can refund it`,
      );
  }
  return [...refusals];
}
