import { z } from 'zod';
import { countries, operatorCodes } from '../../domain/operators';

// The test helpers (POST /v1/sandbox/...): test mode only, they play the operator's part on the
// merchant's own test transactions, as Stripe's test helpers do (docs/sandbox.md).

/** Failures a payin can be settled with; the first is the default. */
export const sandboxPayinFailureCodes = ['PAYER_DECLINED', 'INSUFFICIENT_FUNDS', 'OPERATOR_TIMEOUT'] as const;

const completed = z.strictObject({ outcome: z.literal('completed') });

/** POST /v1/sandbox/payins/{reference}/settle. */
export const sandboxPayinSettleRequest = z.discriminatedUnion('outcome', [
  completed,
  z.strictObject({
    outcome: z.literal('failed'),
    failureCode: z
      .enum(sandboxPayinFailureCodes)
      .optional()
      .meta({
        description:
          'PAYER_DECLINED (default) and INSUFFICIENT_FUNDS: the customer was not debited. OPERATOR_TIMEOUT: ' +
          'the customer may have been debited, so the payin waits for the partner check (see `collected`).',
      }),
  }),
]);
export type SandboxPayinSettleRequest = z.infer<typeof sandboxPayinSettleRequest>;

/** POST /v1/sandbox/payouts/{reference}/settle and /v1/sandbox/refunds/{reference}/settle. */
export const sandboxSettleRequest = z.discriminatedUnion('outcome', [
  completed,
  z.strictObject({ outcome: z.literal('failed') }),
]);
export type SandboxSettleRequest = z.infer<typeof sandboxSettleRequest>;

/** POST /v1/sandbox/payins/{reference}/collected: nothing to say, so `{}` (or no body). */
export const sandboxCollectedRequest = z.strictObject({});

export const sandboxRouteStates = ['operational', 'closed', 'degraded', 'slow'] as const;

/** What every route control names: the pair, the route, and how long. */
const routeControlTarget = {
  operator: z.enum(operatorCodes),
  country: z.enum(countries),
  operation: z.enum(['payin', 'payout']).optional().meta({ description: 'Payins or payouts; absent, both.' }),
  route: z
    .union([z.literal(1), z.literal(2)])
    .default(1)
    .meta({ description: "The sandbox route: 1 (asked first) or 2 (the failover's)." }),
  forSeconds: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .optional()
    .meta({ description: 'How long the control lasts: 600 s by default, a day at most.' }),
};

/**
 * POST /v1/sandbox/routes: an outage of one sandbox route, for the merchant's own test traffic. One
 * shape per state, so a setting of another state is an unknown field (and the OpenAPI document says
 * exactly what each state takes).
 */
export const sandboxRouteControlRequest = z.discriminatedUnion('state', [
  z
    .strictObject({ ...routeControlTarget, state: z.literal('closed') })
    .meta({ description: 'The route takes none of your new transactions.' }),
  z.strictObject({
    ...routeControlTarget,
    state: z.literal('degraded'),
    successRate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'The share of your new transactions the route takes (0.5 by default).' }),
  }),
  z.strictObject({
    ...routeControlTarget,
    state: z.literal('slow'),
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(30_000)
      .optional()
      .meta({ description: 'Milliseconds added to each of your new requests (3000 by default).' }),
  }),
  z
    .strictObject({ ...routeControlTarget, state: z.literal('operational') })
    .meta({ description: 'Lifts your control of the route.' }),
]);
export type SandboxRouteControlRequest = z.infer<typeof sandboxRouteControlRequest>;

/** One control in force of the merchant's (GET and POST /v1/sandbox/routes). */
export const sandboxRouteControl = z.object({
  route: z.number().int(),
  operator: z.enum(operatorCodes),
  country: z.enum(countries),
  operation: z.enum(['payin', 'payout']),
  state: z.enum(sandboxRouteStates),
  successRate: z.number(),
  delayMs: z.number().int(),
  until: z.string().meta({ description: 'When the control ends (ISO 8601).' }),
});
export const sandboxRouteControlList = z.object({ data: z.array(sandboxRouteControl) });
