import { z } from 'zod';
import { departure, type DocumentedEndpoint } from '../documented-requests';

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

// ---- the requests, as pawaPay v2 documents them (API reference: initiate deposit, initiate
// payout, initiate refund, fail enqueued payout, predict provider) ----
// Strict: a field the reference does not list for that endpoint is an error. pawaPay's live API
// fails a refund that carries `customerMessage`, a field only its deposits and payouts document
// (issue 43). The fake (test/fakes/pawapay) refuses any request that does not match.

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
/** A decimal string, up to 18 integer digits and 2 decimals ("the amount must be a string"). */
const amount = z.string().regex(/^([1-9]\d{0,17}|0)(\.\d{1,2})?$/);
const currency = z.string().regex(/^[A-Z]{3}$/);
/** "4 to 22 letters, digits or spaces", shown to the customer where the provider allows. */
const customerMessage = z.string().regex(/^[A-Za-z0-9 ]{4,22}$/);
/** Up to 10 objects of one field each, with an optional `isPII`. */
const metadata = z.array(z.record(z.string(), z.unknown())).max(10);
const mmoParty = z
  .object({
    type: z.literal('MMO'),
    accountDetails: z.object({ phoneNumber: z.string().regex(/^\d+$/), provider: z.string() }).strict(),
  })
  .strict();

export const depositRequest = z
  .object({
    depositId: uuid,
    amount,
    currency,
    payer: mmoParty,
    preAuthorisationCode: z.string().optional(),
    clientReferenceId: z.string().optional(),
    customerMessage: customerMessage.optional(),
    metadata: metadata.optional(),
    /** Where a provider that authorises by redirection (authType REDIRECT_AUTH: Wave) sends the customer back. */
    successfulUrl: z.url().optional(),
    failedUrl: z.url().optional(),
  })
  .strict();

export const payoutRequest = z
  .object({
    payoutId: uuid,
    amount,
    currency,
    recipient: mmoParty,
    clientReferenceId: z.string().optional(),
    customerMessage: customerMessage.optional(),
    metadata: metadata.optional(),
  })
  .strict();

/** No `customerMessage` here: pawaPay documents none for refunds. */
export const refundRequest = z
  .object({
    refundId: uuid,
    depositId: uuid,
    amount: amount.optional(),
    currency: currency.optional(),
    clientReferenceId: z.string().optional(),
    metadata: metadata.optional(),
  })
  .strict();

/** Each endpoint the connector posts to, and the body pawaPay documents for it. */
export const documentedRequests: readonly DocumentedEndpoint[] = [
  { method: 'POST', path: /^\/v2\/deposits$/, body: depositRequest },
  { method: 'POST', path: /^\/v2\/payouts$/, body: payoutRequest },
  { method: 'POST', path: /^\/v2\/refunds$/, body: refundRequest },
  { method: 'POST', path: /^\/v2\/payouts\/fail-enqueued\/[^/]+$/, body: z.object({}).strict() },
  { method: 'POST', path: /^\/v2\/predict-provider$/, body: z.object({ phoneNumber: z.string() }).strict() },
];

/** Where a request departs from pawaPay's reference, or null (src/operators/connectors/documented-requests.ts). */
export const undocumented = (method: string, path: string, body: unknown): string | null =>
  departure(documentedRequests, method, path, body);
