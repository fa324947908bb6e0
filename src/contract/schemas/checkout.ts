import { z } from 'zod';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import { provider } from './common';

/** An optional +, then 7 to 17 digits (00225 and 10 digits is 15), separators anywhere between. */
const typedNumber = /^[\s.()-]*\+?(?:[\s.()-]*\d){7,17}[\s.()-]*$/;

/** POST /checkout/:id/confirm: the customer's choice on the hosted checkout page. */
export const checkoutConfirmRequest = z.strictObject({
  provider,
  // What customers type in the session's country: national format or international, with spaces,
  // dots, dashes or brackets between the digits. The shape is checked here; the service holds the
  // number to E.164 in the session's country (normalizeTypedMsisdn) before anything stores it.
  msisdn: z.string().max(40).check(matches(typedNumber, fieldMessages.customer.typedNumber)),
  otp: z
    .string()
    .trim()
    .check(matches(/^\d{4,8}$/, fieldMessages.otpDigits))
    .optional(),
});
export type CheckoutConfirmRequest = z.infer<typeof checkoutConfirmRequest>;

/**
 * POST /checkout/:id: the page's form without JavaScript (`application/x-www-form-urlencoded`). The
 * button pressed names the answer; a confirmation's fields are then checked as
 * `checkoutConfirmRequest`, and an empty OTP is no OTP.
 */
export const checkoutAnswerForm = z.object({
  answer: z.enum(['confirm', 'decline']).optional(),
  provider: z.string().max(40).optional(),
  msisdn: z.string().max(40).optional(),
  otp: z.string().max(40).optional(),
});
export type CheckoutAnswerForm = z.infer<typeof checkoutAnswerForm>;

/** POST /checkout/:id/decline: nothing to say but the JSON type (it keeps other sites out), so `{}`. */
export const checkoutDeclineRequest = z.strictObject({});

/** What the hosted checkout page polls (GET /checkout/:id/status) and its answers return. */
export const checkoutState = z.object({
  id: z.string().startsWith('pr_'),
  status: z.enum([
    'pending',
    'processing',
    'processed',
    'success',
    'completed',
    'failed',
    'reversed',
    'expired',
  ]),
  confirmationStatus: z.enum(['none', 'pending', 'accepted', 'declined']),
  failure: z.object({ code: z.string(), message: z.string(), provider: z.string().nullable() }).nullable(),
  awaitingCustomer: z.boolean(),
  paymentUrl: z.string().nullable(),
  ussdCode: z.string().nullable(),
  final: z.boolean(),
  redirectUrl: z.string().nullable(),
});
