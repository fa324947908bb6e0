import { z } from 'zod';
import { defineOperations } from '../registry';
import {
  createPaymentLinkRequest,
  listPaymentLinkPaymentsQuery,
  listPaymentLinksQuery,
  paymentLinkPage,
  paymentLinkPaymentPage,
  paymentLinkQrQuery,
  paymentLinkRecord,
  updatePaymentLinkRequest,
} from '../../../contract/schemas/payment-links';
import * as ex from './examples';

// Payment links (docs/payment-links.md): a reusable way to open a payin session on the hosted checkout.

const linkId = { id: { description: 'The payment link id (pl_…)' } };

export const paymentLinkRequestExample = {
  title: 'Pagne wax 6 yards',
  description: 'Livraison à Abidjan sous 48 h',
  amount: { type: 'fixed', value: 15000 },
  currency: 'XOF',
  countries: ['CI'],
  usage: 'reusable',
  customerFields: { name: true, email: false, question: 'Adresse de livraison ?' },
  thankYouMessage: 'Merci ! Nous vous appelons pour la livraison.',
  referencePrefix: 'WAX',
};

const url = 'https://pay.example/l/7KfQ2mZp9XcR4tLwB1nV';
export const paymentLinkExample = {
  id: 'pl_0a1b2c3d4e5f60718293a4b5',
  slug: '7KfQ2mZp9XcR4tLwB1nV',
  url,
  title: paymentLinkRequestExample.title,
  description: paymentLinkRequestExample.description,
  amount: paymentLinkRequestExample.amount,
  currency: 'XOF',
  countries: ['CI'],
  operators: ['ORANGE', 'MTN', 'MOOV', 'WAVE'],
  usage: 'reusable',
  expiresAt: null,
  cap: null,
  customerFields: paymentLinkRequestExample.customerFields,
  thankYouMessage: paymentLinkRequestExample.thankYouMessage,
  returnUrl: null,
  metadata: {},
  referencePrefix: 'WAX',
  status: 'active',
  share: {
    whatsapp: {
      en: `*Pagne wax 6 yards*\n15 000 XOF\nPay by Mobile Money here: ${url}`,
      fr: `*Pagne wax 6 yards*\n15 000 XOF\nPayez par Mobile Money ici : ${url}`,
    },
    sms: {
      en: `Pagne wax 6 yards - 15 000 XOF. Pay by Mobile Money: ${url}`,
      fr: `Pagne wax 6 yards - 15 000 XOF. Payez par Mobile Money : ${url}`,
    },
  },
  stats: { opened: 12, attempted: 4, paid: 3, paidTotal: 45000 },
  livemode: false,
  createdAt: '2026-03-01T09:30:00.000Z',
  updatedAt: '2026-03-01T09:30:00.000Z',
  deactivatedAt: null,
};

defineOperations(
  {
    method: 'post',
    path: '/v1/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description:
      'A reusable page (`url`, on PUBLIC_BASE_URL) where customers pay by mobile money without an API call: ' +
      'each payment is a payin session under the link, with its own reference `<referencePrefix>-<random>`. ' +
      "The amount is fixed or the customer's choice within `min`/`max`. Rules answered now: every country " +
      'pays in `currency` (CI: XOF, CM: XAF), every operator is offered in a country of the link, the amounts ' +
      "are within the operators' limits (AMOUNT_OUT_OF_RANGE), `min` is not above `max`, `expiresAt` is in the " +
      'future, and `cap.maxTotal` is at least a fixed amount.',
    tag: 'Payment links',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'CreatePaymentLinkRequest', schema: createPaymentLinkRequest }],
      required: true,
      example: paymentLinkRequestExample,
    },
    responses: {
      201: {
        description: 'The link',
        name: 'PaymentLink',
        schema: paymentLinkRecord,
        example: paymentLinkExample,
      },
    },
    errors: ['AMOUNT_OUT_OF_RANGE'],
  },
  {
    method: 'get',
    path: '/v1/payment-links',
    operationId: 'listPaymentLinks',
    summary: 'List payment links',
    description: 'Newest first; follow `nextCursor` until it is null.',
    tag: 'Payment links',
    auth: true,
    query: listPaymentLinksQuery,
    responses: {
      200: {
        description: 'A page of links',
        name: 'PaymentLinkPage',
        schema: paymentLinkPage,
        example: { data: [paymentLinkExample], nextCursor: null },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'Read a payment link and its statistics',
    description:
      '`stats`: page views (best effort), payins opened under the link, those paid and their total ' +
      "(from the link's newest 1,000 payins). `status` says whether it still takes payments.",
    tag: 'Payment links',
    auth: true,
    pathParams: linkId,
    responses: {
      200: {
        description: 'The link',
        name: 'PaymentLink',
        schema: paymentLinkRecord,
        example: paymentLinkExample,
      },
    },
    errors: ['PAYMENT_LINK_NOT_FOUND'],
  },
  {
    method: 'patch',
    path: '/v1/payment-links/{id}',
    operationId: 'updatePaymentLink',
    summary: 'Change a payment link',
    description:
      'The fields sent change, the others stay; `null` clears an optional one. The amount, currency, ' +
      'countries, operators and usage are fixed at creation: a customer who opened the page pays what it showed.',
    tag: 'Payment links',
    auth: true,
    pathParams: linkId,
    body: {
      schemas: [{ name: 'UpdatePaymentLinkRequest', schema: updatePaymentLinkRequest }],
      required: true,
      example: { title: 'Pagne wax 6 yards (soldes)', expiresAt: '2026-12-31T23:59:59Z' },
    },
    responses: {
      200: {
        description: 'The link',
        name: 'PaymentLink',
        schema: paymentLinkRecord,
        example: paymentLinkExample,
      },
    },
    errors: ['PAYMENT_LINK_NOT_FOUND', 'AMOUNT_OUT_OF_RANGE'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/deactivate',
    operationId: 'deactivatePaymentLink',
    summary: 'Deactivate a payment link',
    description:
      'For good: its page answers 410 to customers. Payins already opened under it go on. Deactivating twice answers the link.',
    tag: 'Payment links',
    auth: true,
    idempotent: true,
    pathParams: linkId,
    responses: {
      200: {
        description: 'The link, inactive',
        name: 'PaymentLink',
        schema: paymentLinkRecord,
        example: { ...paymentLinkExample, status: 'inactive', deactivatedAt: '2026-03-02T10:00:00.000Z' },
      },
    },
    errors: ['PAYMENT_LINK_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/qr',
    operationId: 'getPaymentLinkQr',
    summary: "The QR code of a payment link's URL",
    description: 'SVG (default) or a 512-pixel PNG, error correction M, for a counter or a poster.',
    tag: 'Payment links',
    auth: true,
    pathParams: linkId,
    query: paymentLinkQrQuery,
    responses: {
      200: {
        description: 'The QR code (image/svg+xml or image/png)',
        contentType: 'image/svg+xml',
        alsoContentTypes: ['image/png'],
        schema: z.string(),
      },
    },
    errors: ['PAYMENT_LINK_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/payments',
    operationId: 'listPaymentLinkPayments',
    summary: 'List the payins opened under a payment link',
    description:
      'Newest first, each as `GET /v1/payin/{reference}` returns it, with `customerEmail` and `customerAnswer` ' +
      "(what the link's page asked, null when it did not); follow `nextCursor` until it is null.",
    tag: 'Payment links',
    auth: true,
    pathParams: linkId,
    query: listPaymentLinkPaymentsQuery,
    responses: {
      200: {
        description: 'A page of payins',
        name: 'PaymentLinkPayments',
        schema: paymentLinkPaymentPage,
        example: {
          data: [
            {
              ...ex.sessionRecordExample,
              reference: 'WAX-0k3j9x2m7q1z',
              paymentLinkId: paymentLinkExample.id,
              customerEmail: null,
              customerAnswer: 'Cocody, Riviera 3',
            },
          ],
          nextCursor: null,
        },
      },
    },
    errors: ['PAYMENT_LINK_NOT_FOUND'],
  },
);

const slug = { slug: { description: "The link's slug, from its url" } };
const html = (description: string) => ({ description, contentType: 'text/html', schema: z.string() });
// A customer's page takes any `lang`: `en` or `fr` chooses, anything else falls back to
// Accept-Language (a page is never refused for a link's stray parameter).
const lang = z.object({
  lang: z
    .string()
    .optional()
    .meta({ description: '`en` or `fr`; another value falls back to Accept-Language' }),
});

defineOperations(
  {
    method: 'get',
    path: '/l/{slug}',
    operationId: 'paymentLinkPage',
    summary: "A payment link's page",
    description:
      'The HTML page a link opens (`?lang=en|fr`, else Accept-Language). No credentials: the slug is the ' +
      'capability. Counted as opened. A deactivated, expired or spent link answers a page saying so (410). ' +
      'Every /l call counts against CHECKOUT_REQUESTS_PER_MINUTE per client address.',
    tag: 'Payment links',
    auth: false,
    pathParams: slug,
    query: lang,
    responses: {
      200: html('The page'),
      404: html('A page saying the link is not valid'),
      410: html('A page saying the link no longer takes payments, and why'),
    },
    errors: ['PAYMENT_LINK_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'post',
    path: '/l/{slug}',
    operationId: 'paymentLinkForm',
    summary: "A payment link's form",
    description:
      "The page's form: the amount (open links), the mobile number, and the fields the link asks. Checked " +
      "against the link's bounds and its operators' limits before any payin; taken, a payin session is opened " +
      'under the link (its reference `<referencePrefix>-<random>`) and the answer is a 303 to its checkout page. ' +
      "The form's `token` makes a double tap the same payin. A form another site posts is refused (403). " +
      'Counts against CHECKOUT_ANSWERS_PER_MINUTE per link and client address.',
    tag: 'Payment links',
    auth: false,
    pathParams: slug,
    query: lang,
    body: {
      schemas: [
        {
          name: 'PaymentLinkForm',
          schema: z.object({
            token: z.string(),
            amount: z.string().optional(),
            country: z.string().optional(),
            msisdn: z.string(),
            name: z.string().optional(),
            email: z.string().optional(),
            answer: z.string().optional(),
          }),
        },
      ],
      contentType: 'application/x-www-form-urlencoded',
      example: { token: 'q9Zx2Lr8TmW4vB7nK1pD3sFh', msisdn: '07 00 00 00 01', name: 'Awa Koné' },
    },
    responses: {
      303: {
        description: 'The payin session was opened: its checkout page is at `Location`',
        headers: { Location: { description: 'The checkout page', schema: { type: 'string' } } },
      },
      400: html('The page again, the fields at fault marked'),
      403: html('The page, refusing a form posted from another site'),
      404: html('A page saying the link is not valid'),
      409: html('A single-use link whose payment is under way'),
      410: html('A page saying the link no longer takes payments, and why'),
      503: html('The page: no provider can take the payment now'),
    },
    errors: ['PAYMENT_LINK_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'get',
    path: '/l/{slug}/thanks',
    operationId: 'paymentLinkThanks',
    summary: "A payment link's thank-you page",
    description:
      "Where a paid session's customer lands when the link names no `returnUrl`: the link's `thankYouMessage`.",
    tag: 'Payment links',
    auth: false,
    pathParams: slug,
    query: lang,
    responses: { 200: html('The page'), 404: html('A page saying the link is not valid') },
    errors: ['PAYMENT_LINK_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'get',
    path: '/l/{slug}/logo',
    operationId: 'paymentLinkLogo',
    summary: "The merchant's logo on a link's page",
    description:
      "The logo the merchant set in the dashboard (PNG, JPEG or WebP), as the link's page shows it. Asked with " +
      "the page's `v` (the logo's version) it is cached for a year; otherwise five minutes. 404 when the link " +
      'is unknown or the merchant has no logo.',
    tag: 'Payment links',
    auth: false,
    pathParams: slug,
    query: z.object({
      v: z.string().optional().meta({ description: "The logo's version, as the page names it" }),
    }),
    responses: {
      200: {
        description: 'The image',
        contentType: 'image/png',
        alsoContentTypes: ['image/jpeg', 'image/webp'],
        schema: z.string(),
      },
    },
    errors: ['NOT_FOUND', 'RATE_LIMITED'],
  },
);
