import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiProblem } from './problem';

// Requests per merchant per minute, counted in this process (a deployment with several API
// replicas should give express-rate-limit a shared store, e.g. Redis, or divide the limit).

/** Mounted after authentication: the key is the merchant, never the caller's IP. */
export function merchantRateLimit(perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    // IETF draft-8: `RateLimit` and `RateLimit-Policy` (partition key hashed), plus Retry-After on 429.
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'merchant',
    keyGenerator: (req) => req.merchantId ?? '',
    handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
  });
}
