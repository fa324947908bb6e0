import type { Router } from 'express';
import { z } from 'zod';
import { matches } from '../../contract/zod-messages';
import { country } from '../../contract/schemas/common';
import { countries, operatorCodes, operatorsByCountry, type OperatorCode } from '../../domain/operators';
import { belongsToAnotherOperator, predictCarrier } from '../../domain/operator-prefixes';
import { providerInfo, providersOf, type ProviderInfo } from '../../domain/providers';
import { modeOfScope, type Mode } from '../../domain/modes';
import type { providerRouteRecord } from '../../contract/schemas/providers';
import { healthOperations, type HealthOperation } from '../../operators/health/state';
import type { ProviderStateReader } from '../../operators/health';
import { validNumberPattern } from '../../domain/msisdn';
import { problemAt, fieldMessages } from '../../contract/field-messages';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';

export const providersQuery = z.object({ country: country.optional() });
/** A '+' in a query string arrives as a space unless encoded; both forms, and none, are accepted. */
export const predictQuery = z.object({
  msisdn: z
    .string()
    .trim()
    .check(matches(/^\+?[1-9]\d{6,14}$/, fieldMessages.internationalNumber('+2250700000001')))
    // The route refuses any other number (localized); the document states the rule exactly.
    .meta({ pattern: validNumberPattern('optional') })
    .transform((s) => (s.startsWith('+') ? s : `+${s}`)),
});

const asOperator = (c: string | null): OperatorCode | null => operatorCodes.find((o) => o === c) ?? null;

/** Provider states (src/operators/health); omitted, every provider is operational. */
export type ProviderStates = Pick<ProviderStateReader, 'stateOf'>;

/** The connector live mode routes a provider × operation to (e.g. `pawapay`); null: no route. */
export type ConnectorOf = (
  operator: OperatorCode,
  country: ProviderInfo['country'],
  operation: HealthOperation,
) => string | null;

/** Every route of a provider × operation in a mode, as the service measures it. */
export type RouteStatesOf = (
  mode: Mode,
  operator: OperatorCode,
  country: ProviderInfo['country'],
  operation: HealthOperation,
) => Promise<Array<z.infer<typeof providerRouteRecord>>>;

export function providerRoutes(
  health?: ProviderStates,
  connectorOf?: ConnectorOf,
  routeStatesOf?: RouteStatesOf,
): Router {
  const router = newRouter();

  route(router, 'GET /v1/providers', async (req, res) => {
    const q = parseOr400(providersQuery, req.query, req);
    const list = (q.country ? [q.country] : countries).flatMap((c) => providersOf(c));
    const mode = modeOfScope(req.merchantId!);
    const stateOf = async (p: ProviderInfo, operation: HealthOperation) => {
      // Test mode is served by the sandbox simulator; live mode by the routed connector.
      const connector = mode === 'test' ? 'sandbox' : (connectorOf?.(p.code, p.country, operation) ?? null);
      // Measures that cannot be read now leave the routes unlisted rather than fail the list.
      const routes = (await routeStatesOf?.(mode, p.code, p.country, operation).catch(() => [])) ?? [];
      if (!health) return { state: 'operational' as const, since: null, connector, routes };
      const { state, since } = await health
        .stateOf(mode, p.code, p.country, operation)
        .catch(() => ({ state: 'operational' as const, since: null }));
      return { state, since, connector, routes };
    };
    const providers = await Promise.all(
      list.map(async (p) => {
        const [payin, payout, refund] = await Promise.all(
          healthOperations.map((operation) => stateOf(p, operation)),
        );
        // A provider closed for payins is not available to pay with, whatever its static offer.
        return {
          ...p,
          available: p.available && payin!.state !== 'closed',
          health: { payin, payout, refund },
        };
      }),
    );
    res.json({ providers });
  });

  route(router, 'GET /v1/providers/predict', (req, res) => {
    const q = parseOr400(predictQuery, req.query, req);
    const prediction = predictCarrier(q.msisdn);
    if (!prediction) throw problemAt('VALIDATION_ERROR', 'msisdn', fieldMessages.invalidMsisdnOfAnyCountry);
    const offered = operatorsByCountry[prediction.country];
    const predicted = asOperator(prediction.carrier);
    const operator = predicted && offered.includes(predicted) ? predicted : null;
    res.json({
      msisdn: prediction.msisdn,
      country: prediction.country,
      // The operator the prefix belongs to, when we offer it; null when unknown or not offered.
      operator,
      provider: operator ? providerInfo(operator, prediction.country).name : null,
      // The network of the prefix, offered or not (e.g. NEXTTEL in CM).
      carrier: prediction.carrier,
      // Every provider of the country that would accept a payin from this number (Wave takes any).
      acceptedBy: offered
        .filter((code) => !belongsToAnotherOperator(prediction.msisdn, code))
        .map((code) => providerInfo(code, prediction.country).name),
    });
  });

  return router;
}
