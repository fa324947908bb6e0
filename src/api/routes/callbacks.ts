import express, { type Router, type Request, type RequestHandler } from 'express';
import type { CallbackService, CallbackSource } from '../../operators/callbacks';
import { ApiProblem } from '../../contract/problems';
import { negotiateLanguage } from '../../contract/i18n';
import { newRouter, route } from '../routing';

/**
 * The HTTP side of the callback door (src/operators/callbacks.ts), outside /v1: providers have no
 * merchant credentials, each signs its callbacks its own way.
 *   POST /provider-callbacks/:name  a real provider's (pawaPay, MTN MoMo, Wave, Hub2), checked by its
 *                                   connector; PUT too, as MTN asks callback hosts to take it.
 *   POST /operator-callbacks/:code  the sandbox simulator's, HMAC over the raw body.
 * 202 when accepted (an id we do not know too, so nothing leaks), 200 for a replay of the same
 * signed callback (acknowledged, not signalled again), 401 unverified, 404 unknown name or code,
 * 429 beyond the per-transaction limit.
 */
export function callbackRoutes(service: CallbackService): Router {
  const router = newRouter();
  const receive =
    (sourceOf: (req: Request) => CallbackSource): RequestHandler =>
    async (req, res) => {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const result = await service.receive({
        source: sourceOf(req),
        language: negotiateLanguage(req),
        method: req.method,
        path: req.originalUrl,
        headers,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      });
      switch (result.outcome) {
        case 'unknown-source':
          throw new ApiProblem('NOT_FOUND');
        case 'unverified':
          throw new ApiProblem('OPERATOR_SIGNATURE_INVALID');
        case 'malformed-json':
          throw new ApiProblem('MALFORMED_JSON');
        case 'invalid':
          throw new ApiProblem('VALIDATION_ERROR', { errors: result.errors });
        case 'rate-limited':
          throw new ApiProblem('RATE_LIMITED', { headers: { 'Retry-After': String(result.retryAfterSec) } });
        case 'replay':
          res.status(200).json({ received: true });
          return;
        case 'accepted':
          res.status(202).json({ received: true });
      }
    };

  const provider = [
    express.raw({ type: () => true, limit: '64kb' }),
    receive((req) => ({ via: 'connector', name: String(req.params.name) })),
  ];
  route(router, 'POST /provider-callbacks/:name', ...provider);
  route(router, 'PUT /provider-callbacks/:name', ...provider);
  route(
    router,
    'POST /operator-callbacks/:code',
    express.raw({ type: () => true, limit: '16kb' }),
    receive((req) => ({ via: 'simulator', operator: String(req.params.code) })),
  );
  return router;
}
