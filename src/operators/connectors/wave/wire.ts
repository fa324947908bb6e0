import { z } from 'zod';
import { departure, type DocumentedEndpoint } from '../documented-requests';

// Wave's own bodies, as docs.wave.com documents them (Checkout API, Payout API, Webhooks). Answers
// are parsed, never trusted: a field we rely on that is missing or of another type makes the answer
// unreadable (OperatorUnavailableError), never a guess. Unknown fields pass through untouched.

/** Amounts travel as decimal strings in the currency's major units ("1000" XOF). */
const amountString = z.string().regex(/^\d+(\.\d+)?$/);

/** Checkout API, "The checkout session object". */
export const checkoutSession = z.looseObject({
  id: z.string().min(1),
  amount: amountString,
  currency: z.string(),
  client_reference: z.string().nullish(),
  /** `open` until paid or expired; `complete` once paid; `expired` once it can no longer be paid. */
  checkout_status: z.enum(['open', 'complete', 'expired']),
  /**
   * `processing` while open, `succeeded` once paid, `cancelled` when it expired unpaid. `refunded`
   * is how the fake (and this connector) show a refunded session: see docs/connectors/wave.md.
   */
  payment_status: z.string(),
  /** Set when the last payment attempt failed; the session may still be open for another try. */
  last_payment_error: z.looseObject({ code: z.string(), message: z.string().nullish() }).nullish(),
  transaction_id: z.string().nullish(),
  wave_launch_url: z.string().nullish(),
  when_created: z.string().nullish(),
  when_completed: z.string().nullish(),
  when_expires: z.string().nullish(),
});
export type CheckoutSession = z.infer<typeof checkoutSession>;

/** `GET /v1/checkout/sessions/search?client_reference=…` answers `{ result: [sessions] }`. */
export const sessionSearch = z.looseObject({ result: z.array(checkoutSession) });

/** Payout API, "The payout object". */
export const payout = z.looseObject({
  id: z.string().min(1),
  currency: z.string(),
  receive_amount: amountString,
  fee: amountString.nullish(),
  client_reference: z.string().nullish(),
  /** `processing`, then `succeeded` or `failed`; `reversed` after a reversal. */
  status: z.enum(['processing', 'succeeded', 'failed', 'reversed']),
  payout_error: z.looseObject({ error_code: z.string(), error_message: z.string().nullish() }).nullish(),
  timestamp: z.string().nullish(),
});
export type Payout = z.infer<typeof payout>;

/** `GET /v1/payouts/search?client_reference=…` answers `{ result: [payouts] }`. */
export const payoutSearch = z.looseObject({ result: z.array(payout) });

/** Wave's error body (both APIs): a machine code and a human message. Integrations in the wild also
 * read `error_code` or a nested `error.code`, so all three are accepted. */
export const waveError = z.looseObject({
  code: z.string().optional(),
  error_code: z.string().optional(),
  error: z.looseObject({ code: z.string().optional() }).optional(),
});

/** Webhooks, "The event object": what a signed webhook carries. */
export const webhookEvent = z.looseObject({
  id: z.string(),
  type: z.string(),
  data: z.looseObject({ id: z.string().optional(), client_reference: z.string().nullish() }),
});
export type WebhookEvent = z.infer<typeof webhookEvent>;

// ---- the requests, as Wave documents them (Checkout API: create, expire and refund a session;
// Payout API: send and reverse a payout). Strict: a field the reference does not list for the
// endpoint is an error (src/operators/connectors/documented-requests.ts; the fake refuses it). ----

/** Wave's amounts: a decimal string, no more than 2 decimals (none for XOF). */
const waveAmount = z.string().regex(/^\d+(\.\d{1,2})?$/);
/** E.164, with its `+`. */
const e164 = z.string().regex(/^\+\d{8,15}$/);

/** POST /v1/checkout/sessions. */
export const checkoutSessionRequest = z
  .object({
    amount: waveAmount,
    currency: z.literal('XOF'),
    error_url: z.url(),
    success_url: z.url(),
    client_reference: z.string().max(255).optional(),
    restrict_payer_mobile: e164.optional(),
    aggregated_merchant_id: z.string().optional(),
  })
  .strict();

/** POST /v1/payout. */
export const payoutRequest = z
  .object({
    currency: z.literal('XOF'),
    receive_amount: waveAmount,
    mobile: e164,
    name: z.string().optional(),
    national_id: z.string().optional(),
    client_reference: z.string().max(255).optional(),
    payment_reason: z.string().max(40).optional(),
    aggregated_merchant_id: z.string().optional(),
  })
  .strict();

/** No body: expiring or refunding a session, reversing a payout. */
const noBody = z.union([z.undefined(), z.object({}).strict()]);

export const documentedRequests: readonly DocumentedEndpoint[] = [
  { method: 'POST', path: /^\/v1\/checkout\/sessions$/, body: checkoutSessionRequest },
  { method: 'POST', path: /^\/v1\/checkout\/sessions\/[^/]+\/(expire|refund)$/, body: noBody },
  { method: 'POST', path: /^\/v1\/payout$/, body: payoutRequest },
  { method: 'POST', path: /^\/v1\/payout\/[^/]+\/reverse$/, body: noBody },
];

/** Where a request departs from Wave's reference, or null. */
export const undocumented = (method: string, path: string, body: unknown): string | null =>
  departure(documentedRequests, method, path, body);
