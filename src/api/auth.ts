import type { RequestHandler } from 'express';
import { ApiProblem } from '../contract/problems';

declare module 'express-serve-static-core' {
  interface Request {
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

export type Authenticator = (apiKey: string, apiClient: string) => Promise<string | null>;

/** Resolves the calling merchant or answers 401 with WWW-Authenticate: Basic. */
export function requireMerchant(authenticate: Authenticator): RequestHandler {
  const unauthorized = new ApiProblem('UNAUTHORIZED', {
    headers: { 'WWW-Authenticate': 'Basic realm="payments"' },
  });
  return (req, _res, next) => {
    const creds = parseBasic(req.headers.authorization);
    if (!creds) return next(unauthorized);
    authenticate(creds.apiKey, creds.apiClient)
      .then((merchantId) => {
        if (!merchantId) return next(unauthorized);
        req.merchantId = merchantId;
        req.apiKey = creds.apiKey;
        next();
      })
      .catch(next);
  };
}
