import { z } from 'zod';
import { countries, operatorCodes } from '../../domain/operators';
import { fieldMessages } from '../field-messages';

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

/** POST /v1/sandbox/routes: an outage of one sandbox route, for the merchant's own test traffic. */
export const sandboxRouteControlRequest = z
  .strictObject({
    operator: z.enum(operatorCodes),
    country: z.enum(countries),
    operation: z
      .enum(['payin', 'payout'])
      .optional()
      .meta({ description: 'Payins or payouts; absent, both.' }),
    route: z
      .union([z.literal(1), z.literal(2)])
      .default(1)
      .meta({ description: "The sandbox route: 1 (asked first) or 2 (the failover's)." }),
    state: z.enum(sandboxRouteStates).meta({
      description:
        '`closed`: the route takes no new transaction; `degraded`: it takes only a share (`successRate`); ' +
        '`slow`: it answers after `delayMs`; `operational`: the control is lifted.',
    }),
    successRate: z.number().min(0).max(1).optional().meta({
      description: '`degraded` only: the share of new transactions the route takes (0.5 by default).',
    }),
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(30_000)
      .optional()
      .meta({ description: '`slow` only: milliseconds added to each new request (3000 by default).' }),
    forSeconds: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .meta({ description: 'How long the control lasts: 600 s by default, a day at most.' }),
  })
  .refine((b) => b.successRate === undefined || b.state === 'degraded', {
    path: ['successRate'],
    params: fieldMessages.settingOfState('successRate', 'degraded'),
  })
  .refine((b) => b.delayMs === undefined || b.state === 'slow', {
    path: ['delayMs'],
    params: fieldMessages.settingOfState('delayMs', 'slow'),
  });
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
