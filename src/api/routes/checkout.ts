import { randomBytes } from 'node:crypto';
import { Router, type RequestHandler, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiProblem } from '../problem';
import { parseOr400 } from '../validate';
import { checkoutConfirmRequest, checkoutDeclineRequest } from '../schemas/checkout';
import { checkoutLanguage } from '../../checkout/i18n';
import { renderCheckoutPage, renderNotFoundPage } from '../../checkout/page';
import type { CheckoutService } from '../../checkout/service';

// The hosted checkout page and its three JSON calls. No merchant credentials here: the customer
// holds only the link, whose unguessable transaction id is the capability.

function pageHeaders(res: Response, nonce: string, lang: string): void {
  res.set({
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    // The link is the customer's capability: never leak it to the merchant's or operator's site.
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Content-Language': lang,
    Vary: 'Accept-Language',
  });
}

/**
 * A cross-site form or no-cors fetch cannot send `Content-Type: application/json` without a CORS
 * preflight, which this API never grants: requiring it keeps other sites from answering for the customer.
 */
const requireJsonPost: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json')) return next(new ApiProblem('UNSUPPORTED_MEDIA_TYPE'));
  next();
};

export function checkoutRoutes(checkout: CheckoutService): Router {
  const router = Router();
  // The customer's answers are not authenticated: bound them per client address.
  const answerRateLimit = rateLimit({
    windowMs: 60_000,
    limit: 20,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
  });

  router.get('/checkout/:id', async (req, res) => {
    const lang = checkoutLanguage(req);
    const nonce = randomBytes(16).toString('base64');
    pageHeaders(res, nonce, lang);
    try {
      const view = await checkout.view(req.params.id);
      res.type('html').send(renderCheckoutPage(view, { lang, nonce }));
    } catch (err) {
      // A person following a dead link gets a page; a program asking for JSON gets the problem.
      if (
        err instanceof ApiProblem &&
        err.code === 'SESSION_NOT_FOUND' &&
        req.accepts(['html', 'json']) === 'html'
      ) {
        res.status(404).type('html').send(renderNotFoundPage(lang, nonce));
        return;
      }
      throw err;
    }
  });

  router.get('/checkout/:id/status', async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await checkout.status(req.params.id));
  });

  router.post('/checkout/:id/confirm', answerRateLimit, requireJsonPost, async (req, res) => {
    const answer = parseOr400(checkoutConfirmRequest, req.body, req);
    res.set('Cache-Control', 'no-store').json(await checkout.confirm(String(req.params.id), answer));
  });

  router.post('/checkout/:id/decline', answerRateLimit, requireJsonPost, async (req, res) => {
    parseOr400(checkoutDeclineRequest, req.body, req);
    res.set('Cache-Control', 'no-store').json(await checkout.decline(String(req.params.id)));
  });

  return router;
}
