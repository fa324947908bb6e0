import { randomBytes } from 'node:crypto';
import { type Router, urlencoded, type Request, type Response } from 'express';
import { z } from 'zod';
import { ApiProblem } from '../../contract/problems';
import { renderProblem } from '../../contract/render-problem';
import { checkoutLanguage } from '../../checkout/i18n';
import { renderNotFoundPage } from '../../checkout/page';
import {
  renderLinkClosedPage,
  renderLinkPage,
  renderLinkThanksPage,
  type LinkForm,
  type LinkPageView,
} from '../../checkout/link-page';
import { isLiveScope } from '../../domain/modes';
import type { Language } from '../../contract/i18n';
import type { PaymentLink } from '../../persistence/payment-links';
import { PaymentLinkService } from '../../services/payment-link-service';
import type { MerchantLogoStore } from '../../merchants/logos';
import { defaultCheckoutLimits, pageHeaders, perMinute, type CheckoutLimits } from './checkout';
import { newRouter, route } from '../routing';
import { sendLogo } from '../send-logo';

// A payment link's public page (docs/payment-links.md): the slug is the capability, as a
// session's id is the checkout's. The form posts back here without JavaScript; a taken form
// becomes a payin session (PayinService) and the customer goes on to its checkout page.

/** The form's fields; anything else (a field too long, a wrong type) is no form. */
const linkForm = z.object({
  token: z.string().max(64).optional(),
  amount: z.string().max(20).optional(),
  country: z.string().max(2).optional(),
  msisdn: z.string().max(40).optional(),
  name: z.string().max(200).optional(),
  email: z.string().max(200).optional(),
  answer: z.string().max(1000).optional(),
});

const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

export interface LinkPageDeps {
  links: PaymentLinkService;
  merchantName: (scope: string) => Promise<string | null>;
  logos: Pick<MerchantLogoStore, 'ref' | 'image'>;
}

export function paymentLinkPageRoutes(
  deps: LinkPageDeps,
  limits: CheckoutLimits = defaultCheckoutLimits,
): Router {
  const router = newRouter();
  // Every call bounded per client address, as the checkout's; the form's posts per link and
  // address too, so one customer's retries cannot lock out another's (nor probe numbers fast).
  router.use(
    '/l',
    perMinute(limits.perAddressPerMinute, 'link-address', limits.shared, (_req, address) => address),
  );
  const submitRateLimit = perMinute(
    limits.answersPerMinute,
    'link-submits',
    limits.shared,
    (req, address) => `${String(req.params.slug)}|${address}`,
  );

  const send = (res: Response, lang: Language, status: number, html: (nonce: string) => string) => {
    const nonce = randomBytes(16).toString('base64');
    pageHeaders(res, nonce, lang);
    res.status(status).type('html').send(html(nonce));
  };
  // A person following a dead link gets a page; a program asking for JSON gets the problem.
  const notFound = (req: Request, res: Response, lang: Language) => {
    if (req.accepts(['html', 'json']) !== 'html') throw new ApiProblem('PAYMENT_LINK_NOT_FOUND');
    send(res, lang, 404, (n) => renderNotFoundPage(lang, n));
  };
  const view = async (link: PaymentLink): Promise<LinkPageView> => {
    const range = PaymentLinkService.amountRange(link);
    const [merchantName, logo] = await Promise.all([
      deps.merchantName(link.merchantId),
      deps.logos.ref(link.merchantId),
    ]);
    return {
      slug: link.slug,
      title: link.title,
      description: link.description,
      merchantName,
      // Relative to the page (/l/<slug>); the version names the file, so it is cached for good.
      merchantLogo: logo ? `${link.slug}/logo?v=${logo.version}` : null,
      livemode: isLiveScope(link.merchantId),
      currency: link.currency,
      amount: link.amount.type === 'fixed' ? link.amount : { type: 'open', ...range },
      countries: link.countries,
      customerFields: link.customerFields,
    };
  };
  const closed = (
    res: Response,
    lang: Language,
    link: PaymentLink,
    reason: 'inactive' | 'expired' | 'spent' | 'busy',
  ) =>
    send(res, lang, reason === 'busy' ? 409 : 410, (nonce) =>
      renderLinkClosedPage(reason, { lang, nonce, slug: link.slug, title: link.title }),
    );

  route(router, 'GET /l/:slug', async (req, res) => {
    const lang = checkoutLanguage(req);
    const link = await deps.links.bySlug(req.params.slug, true);
    if (!link) return notFound(req, res, lang);
    const state = PaymentLinkService.state(link, await deps.links.stats(link));
    if (state !== 'active') return closed(res, lang, link, state);
    // A new token per page: the form's submissions (a double tap) are one payin.
    const token = randomBytes(18).toString('base64url');
    const v = await view(link);
    send(res, lang, 200, (nonce) => renderLinkPage(v, { lang, nonce, form: { token } }));
  });

  route(
    router,
    'POST /l/:slug',
    submitRateLimit,
    urlencoded({ extended: false, limit: '4kb' }),
    async (req, res) => {
      // Only the page's form comes here.
      if (!req.is('application/x-www-form-urlencoded')) throw new ApiProblem('UNSUPPORTED_MEDIA_TYPE');
      const lang = checkoutLanguage(req);
      const link = await deps.links.bySlug(req.params.slug);
      if (!link) return notFound(req, res, lang);
      const parsed = linkForm.safeParse(req.body ?? {});
      const posted = parsed.success ? parsed.data : {};
      const page = async (status: number, form: Omit<LinkForm, 'token'>) => {
        const v = await view(link);
        // A fresh token unless the form had one: the customer's next try is the same payin only
        // while it is the same form.
        const token = posted.token ?? randomBytes(18).toString('base64url');
        send(res, lang, status, (nonce) => renderLinkPage(v, { lang, nonce, form: { token, ...form } }));
      };
      // Another site's form cannot pay for the customer.
      const site = req.get('sec-fetch-site');
      if (site !== undefined && site !== 'same-origin') return page(403, {});
      const values = Object.fromEntries(
        Object.entries(posted).filter(([k, v]) => k !== 'token' && typeof v === 'string'),
      ) as Record<string, string>;
      try {
        const outcome = await deps.links.pay(link, posted, originOf(req), lang);
        if ('refused' in outcome) return closed(res, lang, link, outcome.refused);
        const to = `${outcome.transaction.paymentUrl ?? ''}?lang=${lang}`;
        res.set('Cache-Control', 'no-store').redirect(303, to);
      } catch (err) {
        if (!(err instanceof ApiProblem) || err.code === 'RATE_LIMITED') throw err;
        const problem = renderProblem(err.code, lang, err.extra);
        return page(problem.status, {
          values,
          ...(problem.errors ? { errors: problem.errors } : {}),
          message: problem.detail ?? problem.title,
        });
      }
    },
  );

  // The merchant's logo on the link's page: served from our origin (the page's CSP allows no other),
  // to whoever holds the link, as the page itself.
  route(router, 'GET /l/:slug/logo', async (req, res) => {
    const link = await deps.links.bySlug(req.params.slug);
    const logo = link ? await deps.logos.image(link.merchantId) : null;
    if (!logo) throw new ApiProblem('NOT_FOUND');
    // Asked by its version (the page's address), it never changes; otherwise a new one may come.
    sendLogo(
      req,
      res,
      logo,
      req.query.v === logo.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
  });

  route(router, 'GET /l/:slug/thanks', async (req, res) => {
    const lang = checkoutLanguage(req);
    const link = await deps.links.bySlug(req.params.slug);
    if (!link) return notFound(req, res, lang);
    send(res, lang, 200, (nonce) =>
      renderLinkThanksPage(link.thankYouMessage, { lang, nonce, title: link.title }),
    );
  });

  return router;
}
