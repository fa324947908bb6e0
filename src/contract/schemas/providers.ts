import { z } from 'zod';
import { country, currency, provider } from './common';

// GET /v1/providers and GET /v1/providers/predict, as the routes answer them.

export const providerRecord = z.object({
  code: provider,
  /** `<OPERATOR_CODE>_<COUNTRY_CODE>`, as in `mobileMoney.provider.name`. */
  name: z.string(),
  displayName: z.string(),
  country,
  currency,
  available: z.boolean(),
  otpRequired: z.boolean(),
  otpUssdCode: z.string().nullable(),
  ussdCode: z.string().nullable(),
  redirect: z.boolean(),
  minAmount: z.number().int(),
  maxAmount: z.number().int(),
});

export const providerList = z.object({ providers: z.array(providerRecord) });

export const providerPrediction = z.object({
  msisdn: z.string(),
  country,
  operator: provider.nullable(),
  provider: z.string().nullable(),
  /** The network of the prefix, offered or not (e.g. NEXTTEL in CM); null when unknown. */
  carrier: z.string().nullable(),
  acceptedBy: z.array(z.string()),
});
