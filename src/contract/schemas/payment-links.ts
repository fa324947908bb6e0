import { z } from 'zod';
import { matches } from '../zod-messages';
import { fieldMessages } from '../field-messages';
import { country, metadata, provider, wholeAmount, pageCursor, pageLimit } from './common';
import { transactionRecord } from './transaction-record';

// Payment links (docs/payment-links.md): a reusable way to open a payin session on the hosted
// checkout. Rules the document cannot state (a currency per country, an operator's limits, min
// below max) are the service's, answered at creation as localized problems.

/** The amount: fixed by the merchant, or chosen by the customer between optional bounds. */
export const paymentLinkAmount = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fixed'), value: wholeAmount }),
  z.strictObject({
    type: z.literal('open'),
    /** Whole units; omitted: the smallest amount the link's operators take. */
    min: wholeAmount.optional(),
    /** Whole units; omitted: the largest amount the link's operators take. */
    max: wholeAmount.optional(),
  }),
]);
export type PaymentLinkAmount = z.infer<typeof paymentLinkAmount>;

/** What the page asks the customer besides the mobile number (which every payin needs). */
export const paymentLinkCustomerFields = z.strictObject({
  name: z.boolean().default(true),
  email: z.boolean().default(false),
  /** A free question of the merchant's (a size, an address); its answer lands in the payin's metadata. */
  question: z.string().trim().min(1).max(200).optional(),
});

/** Stops taking payments once either is reached (paid payins under the link). */
export const paymentLinkCap = z.strictObject({
  maxPayments: z.number().int().min(1).max(1_000_000).optional(),
  /** Whole units of the link's currency. */
  maxTotal: wholeAmount.optional(),
});

export const referencePrefix = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .check(matches(/^[A-Za-z0-9._:-]+$/, fieldMessages.referenceCharacters));

const returnUrl = z.url({ protocol: /^https?$/ }).max(2048);
const title = z.string().trim().min(1).max(100);
const description = z.string().trim().max(1000);
const thankYouMessage = z.string().trim().max(500);

export const createPaymentLinkRequest = z.strictObject({
  title,
  description: description.optional(),
  amount: paymentLinkAmount,
  currency: z.enum(['XOF', 'XAF']),
  countries: z.array(country).min(1).max(2),
  /** Omitted or empty: every operator of the link's countries. */
  operators: z.array(provider).max(4).optional(),
  /** `single`: stops once one payment succeeds. */
  usage: z.enum(['single', 'reusable']).default('reusable'),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  cap: paymentLinkCap.optional(),
  customerFields: paymentLinkCustomerFields.optional(),
  /** Shown once the payment succeeds, when there is no `returnUrl`. */
  thankYouMessage: thankYouMessage.optional(),
  /** Where the customer goes once the payment ends; omitted: the link's own thank-you page. */
  returnUrl: returnUrl.optional(),
  metadata: metadata.optional(),
  /** Each payment's reference is `<referencePrefix>-<random>`. */
  referencePrefix: referencePrefix.default('link'),
});
export type CreatePaymentLinkRequest = z.infer<typeof createPaymentLinkRequest>;

/** PATCH: the fields sent change, the others stay; `null` clears an optional one. */
export const updatePaymentLinkRequest = z
  .strictObject({
    title: title.optional(),
    description: description.nullable().optional(),
    expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
    cap: paymentLinkCap.nullable().optional(),
    thankYouMessage: thankYouMessage.nullable().optional(),
    returnUrl: returnUrl.nullable().optional(),
    metadata: metadata.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    params: fieldMessages.nothingToChange(
      'title, description, expiresAt, cap, thankYouMessage, returnUrl, metadata',
    ),
  })
  // The refinement's rule in the OpenAPI document too (a JSON Schema keyword zod does not derive).
  .meta({ minProperties: 1 });
export type UpdatePaymentLinkRequest = z.infer<typeof updatePaymentLinkRequest>;

export const paymentLinkStatuses = ['active', 'inactive', 'expired', 'spent'] as const;
export const listPaymentLinksQuery = z.strictObject({ limit: pageLimit, cursor: pageCursor });
export const listPaymentLinkPaymentsQuery = z.strictObject({ limit: pageLimit, cursor: pageCursor });

const shareText = z.object({ en: z.string(), fr: z.string() });

export const paymentLinkStats = z.object({
  /** Times the page was opened (GET /l/{slug}). */
  opened: z.number().int(),
  /** Payins opened under the link (each customer's submission). */
  attempted: z.number().int(),
  /** Payins under the link that succeeded. */
  paid: z.number().int(),
  /** Whole units of the link's currency: the amounts of the paid payins. */
  paidTotal: z.number(),
});

export const paymentLinkRecord = z.object({
  id: z.string().startsWith('pl_'),
  /** The short, unguessable part of `url`. */
  slug: z.string(),
  /** The page customers open (on PUBLIC_BASE_URL, else the request's origin). */
  url: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  amount: paymentLinkAmount,
  currency: z.enum(['XOF', 'XAF']),
  countries: z.array(country),
  operators: z.array(provider),
  usage: z.enum(['single', 'reusable']),
  expiresAt: z.string().nullable(),
  cap: paymentLinkCap.nullable(),
  customerFields: z.object({ name: z.boolean(), email: z.boolean(), question: z.string().nullable() }),
  thankYouMessage: z.string().nullable(),
  returnUrl: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  referencePrefix: z.string(),
  /** `active` takes payments; the others say why not (deactivated, past `expiresAt`, single-use paid or cap reached). */
  status: z.enum(paymentLinkStatuses),
  /** Ready-made texts to share the link (WhatsApp, SMS), in French and English. */
  share: z.object({ whatsapp: shareText, sms: shareText }),
  stats: paymentLinkStats,
  livemode: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deactivatedAt: z.string().nullable(),
});
export type PaymentLinkRecord = z.infer<typeof paymentLinkRecord>;

export const paymentLinkPage = z.object({
  data: z.array(paymentLinkRecord),
  nextCursor: z.string().nullable(),
});

export const paymentLinkQrQuery = z.strictObject({ format: z.enum(['svg', 'png']).default('svg') });

/** A payin under a link: its record, and what the link's page asked beside it. */
export const paymentLinkPayment = transactionRecord.extend({
  /** The e-mail the customer typed, when the link asks it; else null. */
  customerEmail: z.string().nullable(),
  /** The answer to the link's question, when it asks one; else null. */
  customerAnswer: z.string().nullable(),
});
export const paymentLinkPaymentPage = z.object({
  data: z.array(paymentLinkPayment),
  nextCursor: z.string().nullable(),
});
