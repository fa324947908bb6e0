import { z } from 'zod';
import {
  action,
  country,
  customerName,
  metadata,
  msisdn,
  payFee,
  reference,
  sandboxScenario,
  wholeAmount,
} from './common';

/** Endpoint 3: POST /v1/payin/sessions. The customer picks the operator later, on the checkout page. */
export const payinSessionRequest = z.strictObject({
  reference,
  sandboxScenario: sandboxScenario.optional(),
  amount: wholeAmount,
  msisdn,
  customerName: customerName.optional(),
  country,
  action,
  payFee: payFee.optional(),
  metadata: metadata.optional(),
});
export type PayinSessionRequest = z.infer<typeof payinSessionRequest>;
