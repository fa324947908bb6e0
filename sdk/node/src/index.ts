export { MomoPayments } from './client.js';
export type { ClientOptions, RequestOptions, Language } from './core.js';
export {
  InvalidWebhookSecretError,
  MomoApiError,
  MomoConnectionError,
  MomoError,
  MomoTimeoutError,
  WebhookVerificationError,
} from './errors.js';
export type { FieldError } from './errors.js';
export { PagePromise, type CursorPage } from './pagination.js';
export { EventStream, type StreamOptions, type Subscribed } from './stream.js';
export { verifyWebhook, signWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
export { sdkMethods } from './operations.js';
export { apiOperations, apiVersion } from './generated/operations.js';
export { sdkVersion } from './version.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
