import { z } from 'zod';
import { departure, type DocumentedEndpoint } from '../documented-requests';

// Hub2's own bodies, as docs.hub2.io documents them (API reference "Hub2 Service · Api" 2.149.1:
// Payments, Transfers; integration guides: payments, transfers, webhooks, error management).
// Answers are parsed, never trusted: a field we rely on that is missing or of another type makes
// the answer unreadable (OperatorUnavailableError), never a guess. Unknown fields pass through.
//
// Where the reference excerpts we could read stay silent (docs/connectors/hub2.md, "Assumptions"):
//   - the Payment and Transfer status enums: `successful` and `failed` are Hub2's words for the
//     final states; every other status (created, pending, processing, action_required…) is read
//     as not final, and `cancelled`/`canceled`/`expired` as failed;
//   - the name of the failure cause's field on a Payment or Transfer (`failureCause` here);
//   - the subfields of `mobileMoney` (`msisdn`, `otp`, as Hub2's integrators send them).

/** Hub2's references: "letters, numbers, hyphen, underscore, dot and space" (else 400). */
export const referenceChars = /^[A-Za-z0-9\-_. ]+$/;

/** A Payment, one attempt on a PaymentIntent. */
export const payment = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  failureCause: z.string().nullish(),
});
export type Payment = z.infer<typeof payment>;

/** The PaymentIntent object (`POST /payment-intents`, `GET /payment-intents/{id}`). */
export const paymentIntent = z.looseObject({
  id: z.string().min(1),
  purchaseReference: z.string().nullish(),
  amount: z.number(),
  currency: z.string(),
  status: z.string(),
  payments: z.array(payment).default([]),
});
export type PaymentIntent = z.infer<typeof paymentIntent>;

/** `POST /payment-intents` answers the intent and the JWT that authenticates its payment attempts. */
export const createdIntent = paymentIntent.extend({ token: z.string().min(1) });

/** The Transfer object. */
export const transfer = z.looseObject({
  id: z.string().min(1),
  reference: z.string(),
  status: z.string(),
  amount: z.number(),
  currency: z.string(),
  failureCause: z.string().nullish(),
});
export type Transfer = z.infer<typeof transfer>;

/**
 * `GET /transfers?reference=…` answers a list; whether Hub2 wraps it in a page object is not shown
 * in the excerpts, so both a bare array and `{ data: [...] }` are read.
 */
export const transferList = z.union([
  z.array(transfer),
  z.looseObject({ data: z.array(transfer) }).transform((p) => p.data),
]);

/** Hub2's standardized error body (documentation/en/error_management). */
export const hub2Error = z.looseObject({
  status: z.number().optional(),
  code: z.string().optional(),
  request_id: z.string().optional(),
});

/** A webhook's body: an event naming its type and carrying the object it is about. */
export const webhookEvent = z.looseObject({
  type: z.string().optional(),
  event: z.string().optional(),
  data: z.looseObject({
    purchaseReference: z.string().nullish(),
    reference: z.string().nullish(),
  }),
});

// ---- the requests, as Hub2 documents them. Strict: a field the reference does not list for the
// endpoint is an error (src/operators/connectors/documented-requests.ts; the fake refuses it). ----

const reference = z.string().min(1).max(255).regex(referenceChars);
/** Smallest currency unit; XOF and XAF have no decimals. */
const amount = z.number().int().positive();
const currency = z.enum(['XOF', 'XAF']);
const country = z.string().regex(/^[A-Z]{2}$/);
/** "name of the selected provider in lowercase". */
const provider = z.string().regex(/^[a-z0-9_]+$/);
/** E.164, with its `+` (the transfers guide's `"+225…"`). */
const e164 = z.string().regex(/^\+\d{8,15}$/);

/** POST /payment-intents. */
export const paymentIntentRequest = z
  .object({
    customerReference: reference,
    purchaseReference: reference,
    amount,
    currency,
    overrideBusinessName: z.string().min(1).optional(),
  })
  .strict();

/** POST /payment-intents/{id}/payments, a mobile-money attempt. */
export const paymentAttemptRequest = z
  .object({
    token: z.string().min(1),
    paymentMethod: z.enum(['mobile_money', 'credit_card']),
    country,
    provider,
    mobileMoney: z
      .object({
        msisdn: z.string().min(8),
        otp: z.string().min(1).optional(),
        onSuccessRedirectionUrl: z.url().optional(),
        onFailedRedirectionUrl: z.url().optional(),
      })
      .strict()
      .optional(),
    creditCard: z.looseObject({}).optional(),
    onCancelRedirectionUrl: z.url().optional(),
    onFinishRedirectionUrl: z.url().optional(),
    overrideBusinessId: z.string().optional(),
  })
  .strict();

/** POST /transfers, to a mobile-money account. */
export const transferRequest = z
  .object({
    reference,
    amount,
    currency,
    description: z.string().min(1).max(255),
    destination: z
      .object({
        type: z.literal('mobile_money'),
        country,
        recipientName: z.string().min(1).optional(),
        msisdn: e164,
        provider,
      })
      .strict(),
    overrideBusinessName: z.string().min(1).optional(),
  })
  .strict();

export const documentedRequests: readonly DocumentedEndpoint[] = [
  { method: 'POST', path: /^\/payment-intents$/, body: paymentIntentRequest },
  { method: 'POST', path: /^\/payment-intents\/[^/]+\/payments$/, body: paymentAttemptRequest },
  { method: 'POST', path: /^\/transfers$/, body: transferRequest },
];

/** Where a request departs from Hub2's reference, or null. */
export const undocumented = (method: string, path: string, body: unknown): string | null =>
  departure(documentedRequests, method, path, body);
