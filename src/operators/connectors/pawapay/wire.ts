import { z } from 'zod';

// pawaPay Merchant API v2 bodies (https://docs.pawapay.io/v2/api-reference), as far as the
// connector reads them. Objects are not strict: pawaPay adds fields without a new version.

/** `{ failureCode, failureMessage }`: v2 consolidates rejections and failures here. */
export const failureReason = z.object({
  failureCode: z.string(),
  failureMessage: z.string().optional(),
});

/** Answer of POST /v2/deposits, /v2/payouts, /v2/refunds (and of their 4xx). */
export const initiationAnswer = z.object({
  depositId: z.string().optional(),
  payoutId: z.string().optional(),
  refundId: z.string().optional(),
  /**
   * ACCEPTED | REJECTED | DUPLICATE_IGNORED as documented; a redirect-authorised provider (Wave)
   * is seen answering PROCESSING with `authorizationUrl`, so any other value reads as in flight.
   */
  status: z.string(),
  created: z.string().optional(),
  failureReason: failureReason.optional(),
  nextStep: z.string().optional(),
  authorizationUrl: z.string().optional(),
});
export type InitiationAnswer = z.infer<typeof initiationAnswer>;

const accountDetails = z.object({
  phoneNumber: z.string().optional(),
  provider: z.string().optional(),
});
const party = z.object({ type: z.string().optional(), accountDetails: accountDetails.optional() });

/** A deposit, payout or refund as the status checks and callbacks show it. */
export const payment = z.object({
  depositId: z.string().optional(),
  payoutId: z.string().optional(),
  refundId: z.string().optional(),
  /**
   * ACCEPTED / PROCESSING / IN_RECONCILIATION / ENQUEUED (payouts) are in flight; COMPLETED and
   * FAILED are final. Anything else is read as in flight.
   */
  status: z.string(),
  amount: z.string().optional(),
  currency: z.string().optional(),
  country: z.string().optional(),
  payer: party.optional(),
  recipient: party.optional(),
  created: z.string().optional(),
  providerTransactionId: z.string().optional(),
  failureReason: failureReason.optional(),
  authorizationUrl: z.string().optional(),
});
export type Payment = z.infer<typeof payment>;

/** GET /v2/deposits/{id} (and payouts, refunds): `FOUND` with `data`, or `NOT_FOUND`. */
export const statusAnswer = z.discriminatedUnion('status', [
  z.object({ status: z.literal('FOUND'), data: payment }),
  z.object({ status: z.literal('NOT_FOUND') }),
]);

/** POST /v2/predict-provider. */
export const predictAnswer = z.object({
  country: z.string(),
  provider: z.string(),
  phoneNumber: z.string(),
});

const availabilityStatus = z.enum(['OPERATIONAL', 'DELAYED', 'CLOSED']);

/** GET /v2/availability: providers grouped by country, a status per operation type. */
export const availabilityAnswer = z.array(
  z.object({
    country: z.string(),
    providers: z.array(
      z.object({
        provider: z.string(),
        operationTypes: z.array(z.object({ operationType: z.string(), status: z.string() })),
      }),
    ),
  }),
);
export { availabilityStatus };

/**
 * GET /v2/active-conf, the parts read here: per provider × currency × operation type, the limits,
 * the decimals allowed, and the status. The operation entries come keyed either by
 * `operationType` or (DEPOSIT, in the documentation's example) as `{ "DEPOSIT": {...} }`.
 */
const operationConf = z.object({
  operationType: z.string().optional(),
  minTransactionLimit: z.string().optional(),
  maxTransactionLimit: z.string().optional(),
  decimalsInAmount: z.string().optional(),
  status: z.string().optional(),
});
export const activeConf = z.object({
  companyName: z.string().optional(),
  signatureConfiguration: z
    .object({ signedRequestsOnly: z.boolean().optional(), signedCallbacks: z.boolean().optional() })
    .optional(),
  countries: z.array(
    z.object({
      country: z.string(),
      providers: z.array(
        z.object({
          provider: z.string(),
          currencies: z
            .array(
              z.object({
                currency: z.string(),
                operationTypes: z.array(z.record(z.string(), z.unknown())).optional(),
              }),
            )
            .optional(),
        }),
      ),
    }),
  ),
});
export type ActiveConf = z.infer<typeof activeConf>;
export { operationConf };
