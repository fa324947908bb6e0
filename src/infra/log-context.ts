import { AsyncLocalStorage } from 'node:async_hooks';

// What every log line of one request carries, whichever logger writes it: the request id, then
// the merchant and the workflow once they are known.
export interface LogContext {
  requestId: string;
  /** With tracing on: the request's trace (docs/operations.md#traces). */
  traceId?: string;
  merchantId?: string;
  workflowId?: string;
}

export const logContext = new AsyncLocalStorage<LogContext>();
