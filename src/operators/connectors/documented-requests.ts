import type { z } from 'zod';

// Each connector sends only what its provider documents for the endpoint it calls (issue 43 §4):
// pawaPay's live API failed every refund that carried a field its reference lists for deposits
// only. A connector's wire.ts lists its endpoints with strict schemas of the documented bodies; its
// fake (test/fakes/<provider>) refuses any request that departs from them, and the connector's
// tests end by asking the fake whether it refused any.

/** An endpoint the connector calls with a body, and the body its provider documents there. */
export interface DocumentedEndpoint {
  method: 'POST' | 'PUT';
  path: RegExp;
  /** Strict: a field the reference does not list for this endpoint is an issue. */
  body: z.ZodType;
}

/**
 * Where a request departs from its provider's reference (the endpoint, the first issue's field and
 * message), or null when it matches. A request without a body (GET) matches.
 */
export function departure(
  endpoints: readonly DocumentedEndpoint[],
  method: string,
  path: string,
  body: unknown,
): string | null {
  if (method === 'GET' || method === 'DELETE') return null;
  const endpoint = endpoints.find((e) => e.method === method && e.path.test(path));
  if (!endpoint) return `${method} ${path} is not a documented endpoint`;
  const parsed = endpoint.body.safeParse(body);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  return `${method} ${path}: ${issue.path.join('.') || 'body'}: ${issue.message}${keys}`;
}
