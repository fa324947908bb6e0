import type { z } from 'zod';
import type { ProblemCode } from '../../contract/problems';

// The shape of one documented operation. Operations reference the very zod schemas the routes
// parse requests with and shape responses with, so the document cannot describe another API.

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** A named component (`name`) or an inline schema; absent for an empty body (204). */
  schema?: z.ZodType;
  name?: string;
  contentType?: string;
  /** Other media types the same body may come as (a QR code's `?format=png`). */
  alsoContentTypes?: string[];
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  example?: unknown;
}

export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/v1/payin/{reference}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Merchant credentials (Basic). Every /v1 operation needs them; the checkout page does not. */
  auth: boolean;
  /** POSTs under /v1 require X-Idempotency-Key (the idempotency middleware claims every one). */
  idempotent?: boolean;
  pathParams?: Record<string, { description: string; schema?: z.ZodType }>;
  query?: z.ZodObject;
  /** One schema, or several alternatives (`oneOf`), each a named component. */
  body?: {
    schemas: { name: string; schema: z.ZodType }[];
    required?: boolean;
    example?: unknown;
    /** `application/json` unless said (the checkout page's form posts `application/x-www-form-urlencoded`). */
    contentType?: string;
  };
  responses: Record<number, ResponseSpec>;
  /** Problem codes the operation itself may answer (the common ones are added by the document). */
  errors?: ProblemCode[];
}

const operations: OperationSpec[] = [];

/** Declares operations; called by the modules under src/api/openapi/operations/. */
export function defineOperations(...ops: OperationSpec[]): void {
  for (const op of ops) {
    if (operations.some((o) => o.method === op.method && o.path === op.path))
      throw new Error(`operation declared twice: ${op.method.toUpperCase()} ${op.path}`);
    operations.push(op);
  }
}

export function declaredOperations(): readonly OperationSpec[] {
  return operations;
}
