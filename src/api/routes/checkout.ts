import { randomBytes } from 'node:crypto';
import {
  type Router,
  static as serveStatic,
  urlencoded,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../validate';
import {
  checkoutAnswerForm,
  checkoutConfirmRequest,
  checkoutDeclineRequest,
  type CheckoutAnswerForm,
} from '../../contract/schemas/checkout';
import { checkoutLanguage, checkoutTexts } from '../../checkout/i18n';
import { renderProblem } from '../../contract/render-problem';
import { renderCheckoutPage, renderNotFoundPage, type PostedForm } from '../../checkout/page';
import { checkoutAssetsDir } from '../../checkout/script-asset';
import type { CheckoutService } from '../../checkout/service';
import type { SharedLimits } from '../../persistence/shared-limits';
import { mount, newRouter, route } from '../routing';

// The hosted checkout page and its three JSON calls. No merchant credentials here: the customer
// holds only the link, whose unguessable transaction id is the capability.

export function pageHeaders(res: Response, nonce: string, lang: string): void {
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

/** The form's fields as posted; a body that is not the form (a wrong type, a field too long) is no answer. */
function formOf(body: unknown): CheckoutAnswerForm {
  const parsed = checkoutAnswerForm.safeParse(body ?? {});
  return parsed.success ? parsed.data : {};
}

export interface CheckoutLimits {
  /** Requests to /checkout/* per client address per minute (CHECKOUT_REQUESTS_PER_MINUTE); 0: none. */
  perAddressPerMinute: number;
  /** Confirms and declines per session and client address per minute (CHECKOUT_ANSWERS_PER_MINUTE); 0: none. */
  answersPerMinute: number;
  /** Counters every API replica shares; omitted, each process counts its own. */
  shared?: SharedLimits | undefined;
}

export const defaultCheckoutLimits: CheckoutLimits = { perAddressPerMinute: 300, answersPerMinute: 20 };

/**
 * A limit per minute, counted in the shared store when there is one (every API replica together),
 * else in this process's memory. The client address is req.ip, which names a proxy's client only for proxies TRUST_PROXY trusts;
 * IPv6 addresses count per /56 (ipKeyGenerator), as one customer's network may hand out many.
 */
export function perMinute(
  limit: number,
  name: string,
  shared: SharedLimits | undefined,
  key: (req: Request, address: string) => string,
): RequestHandler {
  if (limit <= 0) return (_req, _res, next) => next();
  const limiter: RateLimitRequestHandler = rateLimit({
    windowMs: 60_000,
    limit,
    identifier: name,
    ...(shared ? { store: shared.store(name, { releases: false }) } : {}),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => key(req, ipKeyGenerator(req.ip ?? '')),
    // An X-Forwarded-For that TRUST_PROXY does not trust is the normal case on the internet (any
    // client may send one), not a misconfiguration to report.
    validate: { xForwardedForHeader: false },
    handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
  });
  return limiter;
}

export function checkoutRoutes(checkout: CheckoutService, limits = defaultCheckoutLimits): Router {
  const router = newRouter();
  // Nothing here is authenticated: every call is bounded per client address (reads are cheap,
  // served from a few seconds' cache, but a page polls every 1.5 s and anyone may ask).
  router.use(
    '/checkout',
    perMinute(limits.perAddressPerMinute, 'checkout-address', limits.shared, (_req, address) => address),
  );
  // The customer's answers, per session and address: behind a proxy every customer used to share
  // one bucket, and one session's refusals must not lock another's customer out.
  const answerRateLimit = perMinute(
    limits.answersPerMinute,
    'checkout-answers',
    limits.shared,
    (req, address) => `${String(req.params.id)}|${address}`,
  );

  // The page's script: its URL carries a hash of its content, so browsers may keep it a year.
  mount(
    router,
    'GET /checkout/assets',
    serveStatic(checkoutAssetsDir, {
      index: false,
      redirect: false,
      maxAge: '365d',
      immutable: true,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );

  route(router, 'GET /checkout/:id', async (req, res) => {
    const lang = checkoutLanguage(req);
    const nonce = randomBytes(16).toString('base64');
    pageHeaders(res, nonce, lang);
    try {
      const view = await checkout.view(req.params.id);
      // After an answer posted without JavaScript (POST /checkout/:id): keep the form closed.
      const form = req.query.answered === '1' ? { form: { answered: true } } : {};
      res.type('html').send(renderCheckoutPage(view, { lang, nonce, ...form }));
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

  // The page's form without JavaScript: posted back to the page's own address, answered with the
  // page (its errors shown in place) or a redirect to it (docs/decisions/checkout/works-without-javascript.md).
  route(
    router,
    'POST /checkout/:id',
    answerRateLimit,
    urlencoded({ extended: false, limit: '2kb' }),
    async (req, res) => {
      // Only the page's form comes here; a program answers by JSON (confirm, decline).
      if (!req.is('application/x-www-form-urlencoded')) throw new ApiProblem('UNSUPPORTED_MEDIA_TYPE');
      const lang = checkoutLanguage(req);
      const id = String(req.params.id);
      const page = async (status: number, form: PostedForm) => {
        const nonce = randomBytes(16).toString('base64');
        pageHeaders(res, nonce, lang);
        res
          .status(status)
          .type('html')
          .send(renderCheckoutPage(await checkout.view(id), { lang, nonce, form }));
      };
      // Another site's form cannot answer for the customer (the JSON calls keep it out by their type).
      const site = req.get('sec-fetch-site');
      if (site !== undefined && site !== 'same-origin')
        return page(403, { message: checkoutTexts[lang].answerHere });
      const posted = formOf(req.body);
      const seeThePage = (to = `${encodeURIComponent(id)}?lang=${lang}&answered=1`) => {
        res.set('Cache-Control', 'no-store').redirect(303, to);
      };
      try {
        if (posted.answer === 'decline') {
          await checkout.decline(id);
          return seeThePage();
        }
        const answer = parseOr400(
          checkoutConfirmRequest,
          {
            provider: posted.provider,
            msisdn: posted.msisdn,
            ...(posted.otp?.trim() ? { otp: posted.otp } : {}),
          },
          req,
          lang,
        );
        const state = await checkout.confirm(id, answer);
        // The operator's own page (WAVE) comes first, as the script would go there.
        return seeThePage(state.paymentUrl && !state.final ? state.paymentUrl : undefined);
      } catch (err) {
        if (!(err instanceof ApiProblem)) throw err;
        if (err.code === 'ANSWER_PENDING') return seeThePage();
        if (err.code === 'SESSION_NOT_FOUND' || err.code === 'RATE_LIMITED') throw err;
        const problem = renderProblem(err.code, lang, err.extra);
        return page(problem.status, {
          values: { provider: posted.provider ?? '', msisdn: posted.msisdn ?? '' },
          ...(problem.errors ? { errors: problem.errors } : {}),
          message: problem.detail ?? problem.title,
        });
      }
    },
  );

  route(router, 'GET /checkout/:id/status', async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await checkout.status(req.params.id));
  });

  route(router, 'POST /checkout/:id/confirm', answerRateLimit, requireJsonPost, async (req, res) => {
    const answer = parseOr400(checkoutConfirmRequest, req.body, req);
    res.set('Cache-Control', 'no-store').json(await checkout.confirm(String(req.params.id), answer));
  });

  route(router, 'POST /checkout/:id/decline', answerRateLimit, requireJsonPost, async (req, res) => {
    parseOr400(checkoutDeclineRequest, req.body, req);
    res.set('Cache-Control', 'no-store').json(await checkout.decline(String(req.params.id)));
  });

  return router;
}
