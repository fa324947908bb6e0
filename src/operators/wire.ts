import { z } from 'zod';
import { countries } from '../domain/operators';
import { currencies } from '../domain/money';
import { sandboxScenarios } from '../domain/transaction';

// The JSON spoken between the HTTP gateway and an operator endpoint (the simulator, or an adapter
// in front of a real operator), and the body of operator callbacks. Both sides parse with these.

const id = z.string().min(1).max(100);
const scenario = z.enum(sandboxScenarios).nullable().optional();
const callbackUrl = z.url().optional();
/**
 * The test-mode tenant a new request belongs to (`<merchantId>_test`): the sandbox's outage
 * controls may be scoped to one merchant (docs/sandbox.md, "Two routes per pair").
 */
export const sandboxScope = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}$/)
  .optional();

export const collectionRequestBody = z.strictObject({
  transactionId: id,
  country: z.enum(countries),
  msisdn: z.string().regex(/^\+[1-9]\d{6,14}$/),
  amount: z.number().int().positive(),
  currency: z.enum(currencies),
  otp: z.string().max(16).optional(),
  sandboxScenario: scenario,
  sandboxScope,
  callbackUrl,
});
export type CollectionRequestBody = z.infer<typeof collectionRequestBody>;

export const disbursementRequestBody = collectionRequestBody.omit({ otp: true });
export type DisbursementRequestBody = z.infer<typeof disbursementRequestBody>;

export const refundRequestBody = z.strictObject({
  refundId: id,
  transactionId: id,
  country: z.enum(countries),
  amount: z.number().int().positive(),
  currency: z.enum(currencies),
  sandboxScenario: scenario,
  callbackUrl,
});
export type RefundRequestBody = z.infer<typeof refundRequestBody>;

export const operatorOutcome = z.enum(['completed', 'failed', 'pending']);

export const operatorStatusBody = z.object({
  id,
  outcome: operatorOutcome,
  operatorReference: z.string(),
  failure: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  paymentUrl: z.string().nullable().optional(),
  ussdCode: z.string().nullable().optional(),
});
export type OperatorStatusBody = z.infer<typeof operatorStatusBody>;

const minorAmount = z.number().int().nonnegative();
export const statementEntryBody = z.object({
  kind: z.enum(['collection', 'disbursement', 'refund']),
  id,
  originalId: id.nullable().optional(),
  operatorReference: z.string(),
  country: z.enum(countries),
  amount: minorAmount,
  currency: z.enum(currencies),
  fee: minorAmount,
  status: z.enum(['completed', 'failed', 'pending']),
  failureCode: z.string().nullable(),
  createdAt: z.string(),
  finalizedAt: z.string().nullable(),
});
/** `GET /operators/{CODE}/statements/{YYYY-MM-DD}`: the operator's books of one UTC day. */
export const operatorStatementBody = z.object({
  operator: z.string(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  generatedAt: z.string(),
  entries: z.array(statementEntryBody),
});
export type OperatorStatementBody = z.infer<typeof operatorStatementBody>;

export const partnerCheckBody = z.object({
  collected: z.boolean(),
  operatorReference: z.string().nullable().optional(),
});

export const callbackKinds = ['collection', 'disbursement', 'refund'] as const;
export type CallbackKind = (typeof callbackKinds)[number];

/** What an operator POSTs to /operator-callbacks/:code. Only a trigger: the service re-reads the status. */
export const operatorCallbackBody = z.object({
  kind: z.enum(callbackKinds),
  /** Our id: the transaction id (collection, disbursement) or the refund id. */
  id,
  /** For a refund, the collection it reverses (our transaction id). */
  transactionId: id.optional(),
  outcome: operatorOutcome.optional(),
  operatorReference: z.string().optional(),
});
export type OperatorCallbackBody = z.infer<typeof operatorCallbackBody>;
