import { z } from 'zod';
import { country, currency, provider } from './common';

// GET /v1/providers and GET /v1/providers/predict, as the routes answer them.

/** One route of a provider × operation as the service measures it (docs/operators.md, two routes). */
export const providerRouteRecord = z.object({
  /** The connector of the route (`pawapay`, `mtn`, …; `simulator`, `simulator-2` in test mode). */
  connector: z.string(),
  /** Share of its final outcomes that succeeded in the health window; null below the minimum sample. */
  successRate: z.number().min(0).max(1).nullable(),
  /** Its mean answer time in the health window, seconds; null when unmeasured. */
  answerSeconds: z.number().nullable(),
  /** Asked last after a burst of technical failures, until they leak out of the window. */
  eliminated: z.boolean(),
  /** What its provider publishes of it (pawaPay's availability); null where it publishes nothing. */
  published: z.enum(['operational', 'delayed', 'closed']).nullable(),
});

export const providerHealthRecord = z.object({
  state: z.enum(['operational', 'delayed', 'closed']),
  since: z.string().nullable(),
  /** Who serves it in the caller's mode: `sandbox` (test), the routed connector (live), null: no route. */
  connector: z.string().nullable(),
  /** Every route to it in the caller's mode, in the order they are asked when none is measured. */
  routes: z.array(providerRouteRecord),
});

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
  /**
   * The provider's state per operation in the caller's mode (test or live): `operational`, `delayed`
   * (answers slowly or partly), `closed` (a payin is refused with PROVIDER_UNAVAILABLE; payouts wait).
   * `since`: when the state began (null when operational or unknown).
   */
  health: z
    .object({ payin: providerHealthRecord, payout: providerHealthRecord, refund: providerHealthRecord })
    .optional(),
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
