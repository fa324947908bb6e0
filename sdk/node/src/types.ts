import type { components, operations } from './generated/openapi.js';

// Request and answer types of each operation, read from the generated OpenAPI types: a change of
// the document changes them, and the compiler then flags every SDK method it breaks.

export type Schemas = components['schemas'];
type Ops = operations;

/** The JSON body of an operation. */
export type RequestBody<K extends keyof Ops> = Ops[K] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters of an operation. */
export type QueryParams<K extends keyof Ops> = Ops[K] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;

/** The JSON answer of an operation (any of its 2xx). */
export type ResponseBody<K extends keyof Ops> = Ops[K] extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R]
  : never;

export type TransactionRecord = Schemas['TransactionRecord'];
export type TransactionPage = Schemas['TransactionPage'];
export type RefundRecord = Schemas['RefundRecord'];
export type StandardPayoutResult = Schemas['StandardPayoutResult'];
export type PayoutBatch = Schemas['PayoutBatch'];
export type Account = Schemas['Account'];
export type Statement = Schemas['Statement'];
export type Event = Schemas['Event'];
export type Problem = Schemas['Problem'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type RecipientCheck = Schemas['RecipientCheck'];

/** A webhook or stream event, discriminated by `type`: `data` is typed per event type. */
export type WebhookEvent =
  | Schemas['PayinCompletedEvent']
  | Schemas['PayinFailedEvent']
  | Schemas['PayinExpiredEvent']
  | Schemas['PayinCorrectedEvent']
  | Schemas['PayoutUpdatedEvent']
  | Schemas['PayoutCompletedEvent']
  | Schemas['RefundProcessingEvent']
  | Schemas['RefundCompletedEvent']
  | Schemas['RefundFailedEvent']
  | Schemas['PayoutBatchCompletedEvent']
  | Schemas['StatementReadyEvent'];

export type WebhookEventType = WebhookEvent['type'];
