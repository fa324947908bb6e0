import { z } from 'zod';
import { departure, type DocumentedEndpoint } from '../documented-requests';

// The MTN MoMo Open API's bodies, as its documentation and MTN's own SDKs write them (sources at
// the top of ./connector.ts). Answers are parsed, never trusted: unknown fields pass, missing
// required ones make the answer unreadable (OperatorUnavailableError).

/** POST /{product}/token/ → 200. `token_type` is "access_token"; `expires_in` in seconds. */
export const tokenAnswer = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().int().positive(),
});

/**
 * The error body of the API (`{ code, message }`, e.g. RESOURCE_ALREADY_EXIST), or the API
 * gateway's own (`{ statusCode, message }`, e.g. an invalid subscription key).
 */
export const mtnError = z
  .object({
    code: z.string().optional(),
    message: z.string().optional(),
    statusCode: z.number().optional(),
  })
  .loose();
export type MtnError = z.infer<typeof mtnError>;

/**
 * A FAILED transaction's reason: MTN's swagger describes an ErrorReason object `{ code, message }`,
 * its "Reason for some FAILED API responses updated" note shows a bare string. Both are accepted.
 */
export const failureReason = z.union([
  z.string(),
  z.object({ code: z.string(), message: z.string().optional() }).loose(),
]);

export const party = z.object({ partyIdType: z.string(), partyId: z.string() }).loose();
export type Party = z.infer<typeof party>;

/** Statuses as MTN documents them; CREATED/ONGOING/REJECTED/TIMEOUT appear in some sandboxes. */
export const transactionStatus = z.string().min(1);

/** GET /collection/v1_0/requesttopay/{referenceId} → 200 (and the request-to-pay callback's body). */
export const requestToPayResult = z
  .object({
    amount: z.union([z.string(), z.number()]).transform(String),
    currency: z.string(),
    financialTransactionId: z.string().optional(),
    externalId: z.string().optional(),
    payer: party.optional(),
    status: transactionStatus,
    reason: failureReason.optional(),
  })
  .loose();

/** GET /disbursement/v1_0/transfer/{referenceId} and /refund/{referenceId} → 200 (and callbacks). */
export const transferResult = z
  .object({
    amount: z.union([z.string(), z.number()]).transform(String),
    currency: z.string(),
    financialTransactionId: z.string().optional(),
    externalId: z.string().optional(),
    payee: party.optional(),
    status: transactionStatus,
    reason: failureReason.optional(),
  })
  .loose();
export type TransactionResult = z.infer<typeof requestToPayResult> | z.infer<typeof transferResult>;

/** GET /{product}/v1_0/accountholder/msisdn/{msisdn}/active → 200. */
export const accountHolderActive = z.object({ result: z.boolean() }).loose();

/** GET /{product}/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo → 200 (OpenID-like claims). */
export const basicUserInfo = z
  .object({
    name: z.string().optional(),
    given_name: z.string().optional(),
    family_name: z.string().optional(),
  })
  .loose();

// ---- the requests, as MTN's MoMo Open API documents them (Collection: RequestToPay; Disbursement:
// Transfer, Refund V2). Strict: a field the reference does not list for the endpoint is an error
// (src/operators/connectors/documented-requests.ts; the fake refuses it). ----

/** A party: MSISDN (digits, E.164 without +), EMAIL or PARTY_CODE. */
const documentedParty = z
  .object({ partyIdType: z.enum(['MSISDN', 'EMAIL', 'PARTY_CODE']), partyId: z.string().min(1) })
  .strict();
/** Amount: a string in major units. */
const amount = z.string().regex(/^\d+(\.\d+)?$/);
const currency = z.string().regex(/^[A-Z]{3}$/);

/** POST /collection/v1_0/requesttopay body. */
export const requestToPayBody = z
  .object({
    amount,
    currency,
    externalId: z.string(),
    payer: documentedParty,
    payerMessage: z.string(),
    payeeNote: z.string(),
  })
  .strict();
export type RequestToPayBody = z.infer<typeof requestToPayBody>;

/** POST /disbursement/v1_0/transfer body. */
export const transferBody = z
  .object({
    amount,
    currency,
    externalId: z.string(),
    payee: documentedParty,
    payerMessage: z.string(),
    payeeNote: z.string(),
  })
  .strict();
export type TransferBody = z.infer<typeof transferBody>;

/** POST /disbursement/v2_0/refund body: `referenceIdToRefund` is the request-to-pay's X-Reference-Id. */
export const refundBody = z
  .object({
    amount,
    currency,
    externalId: z.string(),
    payerMessage: z.string(),
    payeeNote: z.string(),
    referenceIdToRefund: z.uuid(),
  })
  .strict();
export type RefundBody = z.infer<typeof refundBody>;

/** Each endpoint the connector calls with a body; the token request has none (Basic auth only). */
export const documentedRequests: readonly DocumentedEndpoint[] = [
  { method: 'POST', path: /^\/collection\/v1_0\/requesttopay$/, body: requestToPayBody },
  { method: 'POST', path: /^\/disbursement\/v1_0\/transfer$/, body: transferBody },
  { method: 'POST', path: /^\/disbursement\/v2_0\/refund$/, body: refundBody },
  {
    method: 'POST',
    path: /^\/(collection|disbursement)\/token\/$/,
    body: z.union([z.undefined(), z.object({}).strict()]),
  },
];

/** Where a request departs from MTN's reference, or null. */
export const undocumented = (method: string, path: string, body: unknown): string | null =>
  departure(documentedRequests, method, path, body);
