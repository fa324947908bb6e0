import { z } from 'zod';
import { currencyByCountry } from '../../domain/operators';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import {
  action,
  country,
  currency,
  customerName,
  metadata,
  msisdn,
  payFee,
  provider,
  reference,
  sandboxScenario,
  wholeAmount,
} from './common';
import { transactionRecord } from './transaction-record';

/** Endpoint 1: POST /v1/direct/payin. */
export const directPayinRequest = z.strictObject({
  reference,
  sandboxScenario: sandboxScenario.optional(),
  customerName: customerName.optional(),
  payin: z
    .strictObject({
      amount: wholeAmount,
      msisdn,
      provider,
      country,
      /** Optional: the country decides it (CI: XOF, CM: XAF); a contradicting one is refused. */
      currency: currency.optional(),
      otp: z
        .string()
        .trim()
        .check(matches(/^\d{4,8}$/, fieldMessages.otpDigits))
        .optional(),
    })
    .superRefine((p, ctx) => {
      const expected = currencyByCountry[p.country];
      if (p.currency && p.currency !== expected) {
        ctx.addIssue({
          code: 'custom',
          path: ['currency'],
          params: fieldMessages.currencyOfCountry(p.country, expected),
        });
      }
    }),
  action,
  payFee: payFee.optional(),
  metadata: metadata.optional(),
});
export type DirectPayinRequest = z.infer<typeof directPayinRequest>;

export const payinRecord = transactionRecord;
