import { z } from 'zod';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import { msisdn, provider } from './common';

/** POST /checkout/:id/confirm: the customer's choice on the hosted checkout page. */
export const checkoutConfirmRequest = z.strictObject({
  provider,
  // Customers type numbers with spaces, dots or dashes: accepted, then held to E.164. The pattern
  // is that rule before the separators go, so the document states it (validity in the session's
  // country is checked by the service).
  msisdn: z
    .string()
    .check(
      matches(
        /^[\s.-]*\+[\s.-]*[1-9](?:[\s.-]*\d){6,14}[\s.-]*$/,
        fieldMessages.internationalNumber('+2250700000001'),
      ),
    )
    .transform((s) => s.replace(/[\s.-]/g, ''))
    .pipe(msisdn),
  otp: z
    .string()
    .trim()
    .check(matches(/^\d{4,8}$/, fieldMessages.otpDigits))
    .optional(),
});
export type CheckoutConfirmRequest = z.infer<typeof checkoutConfirmRequest>;

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
