import { type Router, type RequestHandler } from 'express';
import { rateLimit, type AugmentedRequest } from 'express-rate-limit';
import { z } from 'zod';
import { matches } from '../../contract/zod-messages';
import { country } from '../../contract/schemas/common';
import { fieldMessages, problemAt } from '../../contract/field-messages';
import { ApiProblem } from '../../contract/problems';
import { isLiveScope, modeOfScope } from '../../domain/modes';
import { normalizeMsisdn, validNumberPattern } from '../../domain/msisdn';
import type { RecipientService } from '../../services/recipient-service';
import { parseOr400 } from '../validate';
import type { SharedLimits } from '../../persistence/shared-limits';
import { newRouter, route } from '../routing';

// GET /v1/providers/recipient?msisdn=&country=: the predicted provider of a number, whether its
// account is active, and the holder's name where the provider shares it. Each check may cost a
// provider call and hands out a name, so it has its own budget per merchant and mode (a merchant
// cannot walk a number range for names), counted before the cache: a cached answer costs the same.

/** A '+' in a query string arrives as a space unless encoded; both forms, and none, are accepted. */
export const recipientQuery = z.object({
  msisdn: z
    .string()
    .trim()
    .check(matches(/^\+?[1-9]\d{6,14}$/, fieldMessages.internationalNumber('+2250500000001')))
    .meta({ pattern: validNumberPattern('optional') })
    .transform((s) => (s.startsWith('+') ? s : `+${s}`)),
  country,
});

export interface RecipientRouteOptions {
  /** Checks per merchant and mode per minute (RECIPIENT_CHECKS_PER_MINUTE); 0: no limit of its own. */
  perMinute: number;
  /** Counted in the store every API replica shares; omitted, in this process's memory. */
  shared?: SharedLimits | undefined;
}

function recipientRateLimit(perMinute: number, shared: SharedLimits | undefined): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    ...(shared ? { store: shared.store('recipient-checks', { releases: false }) } : {}),
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'recipient-checks',
    // The scope: the merchant in one mode (test checks do not eat the live budget).
    keyGenerator: (req) => req.merchantId ?? '',
    handler: (req, _res, next) => {
      const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + 60_000;
      const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
      next(new ApiProblem('RATE_LIMITED', { headers: { 'Retry-After': String(seconds) } }));
    },
  });
}

export function recipientRoutes(service: RecipientService, opts: RecipientRouteOptions): Router {
  const router = newRouter();
  route(
    router,
    'GET /v1/providers/recipient',
    recipientRateLimit(opts.perMinute, opts.shared),
    async (req, res) => {
      const q = parseOr400(recipientQuery, req.query, req);
      const msisdn = normalizeMsisdn(q.msisdn, q.country);
      if (!msisdn) throw problemAt('VALIDATION_ERROR', 'msisdn', fieldMessages.invalidMsisdn(q.country));
      const scope = req.merchantId!;
      const answer = await service.check(modeOfScope(scope), msisdn, q.country);
      // The holder's name is personal data: no shared cache may keep it.
      res.set('Cache-Control', 'no-store');
      res.json({ ...answer, livemode: isLiveScope(scope) });
    },
  );
  return router;
}
