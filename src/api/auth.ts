import type { RequestHandler } from 'express';
import { isLiveScope } from '../domain/modes';
import { ApiProblem } from '../contract/problems';

declare module 'express-serve-static-core' {
  interface Request {
    /**
     * The caller's scope: the merchant in the mode of its key (src/domain/modes.ts). Every store is
     * keyed by it, so the name stays: what was the merchant id is now the merchant-and-mode.
     */
    merchantId?: string;
    /** The api_key the caller authenticated with (a public identifier, never the secret). */
    apiKey?: string;
  }
}

/** Reads `Authorization: Basic base64(api_key:api_client)`; the scheme name is case-insensitive (RFC 7617). */
export function parseBasic(header: string | undefined): { apiKey: string; apiClient: string } | null {
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { apiKey: decoded.slice(0, colon), apiClient: decoded.slice(colon + 1) };
}

/** Resolves a key pair to its scope (`mer_…` live, `mer_…_test` test), or null: 401. */
export type Authenticator = (apiKey: string, apiClient: string) => Promise<string | null>;

/** Whether a body asks for a simulated outcome, at its top level or in a list of items (bulk). */
export function asksSandboxScenario(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const fields = Object.entries(body as Record<string, unknown>);
  return fields.some(
    ([name, value]) =>
      (name === 'sandboxScenario' && value !== undefined && value !== null) ||
      (Array.isArray(value) && value.some((item) => !Array.isArray(item) && asksSandboxScenario(item))),
  );
}

/**
 * Resolves the calling merchant or answers 401 with WWW-Authenticate: Basic. A live-mode call asking
 * for a sandbox scenario is refused here, before any route, idempotency claim or operator: live money
 * cannot be told how to end, and silently ignoring the field would surprise whoever sent it.
 */
export function requireMerchant(authenticate: Authenticator): RequestHandler {
  const unauthorized = new ApiProblem('UNAUTHORIZED', {
    headers: { 'WWW-Authenticate': 'Basic realm="payments"' },
  });
  return (req, _res, next) => {
    const creds = parseBasic(req.headers.authorization);
    if (!creds) return next(unauthorized);
    authenticate(creds.apiKey, creds.apiClient)
      .then((scope) => {
        if (!scope) return next(unauthorized);
        req.merchantId = scope;
        req.apiKey = creds.apiKey;
        if (isLiveScope(scope) && asksSandboxScenario(req.body as unknown))
          return next(new ApiProblem('SANDBOX_ONLY_IN_TEST_MODE'));
        next();
      })
      .catch(next);
  };
}
