import { z } from 'zod';
import { msisdn, provider } from './common';

/** POST /checkout/:id/confirm: the customer's choice on the hosted checkout page. */
export const checkoutConfirmRequest = z.strictObject({
  provider,
  // Customers type numbers with spaces, dots or dashes: accepted, then held to E.164.
  msisdn: z
    .string()
    .transform((s) => s.replace(/[\s.-]/g, ''))
    .pipe(msisdn),
  otp: z
    .string()
    .trim()
    .regex(/^\d{4,8}$/, '4 to 8 digits')
    .optional(),
});
export type CheckoutConfirmRequest = z.infer<typeof checkoutConfirmRequest>;
