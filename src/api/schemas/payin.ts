import { z } from 'zod';
import {
  action,
  country,
  customerName,
  msisdn,
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
  payin: z.strictObject({
    amount: wholeAmount,
    msisdn,
    provider,
    country,
    otp: z
      .string()
      .trim()
      .regex(/^\d{4,8}$/, '4 to 8 digits')
      .optional(),
  }),
  action,
});
export type DirectPayinRequest = z.infer<typeof directPayinRequest>;

export const payinRecord = transactionRecord;
