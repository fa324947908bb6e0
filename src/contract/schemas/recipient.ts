import { z } from 'zod';
import { country, provider } from './common';

// GET /v1/providers/recipient, as the route answers it.

export const recipientCheck = z.object({
  /** E.164. */
  msisdn: z.string(),
  country,
  /** The operator the number belongs to, when offered in the country; null when unknown. */
  operator: provider.nullable(),
  /** `<OPERATOR_CODE>_<COUNTRY_CODE>`, as in `mobileMoney.provider.name`; null when unknown. */
  provider: z.string().nullable(),
  /** Who named the operator: the provider's own check, our prefix table, or nobody. */
  predictedBy: z.enum(['provider', 'prefix']).nullable(),
  /** Whether a provider was asked and answered; false: no check offered here, or the provider is down. */
  checked: z.boolean(),
  /** Whether the account is active; null when the provider does not say or was not asked. */
  active: z.boolean().nullable(),
  /** The account holder's name, where the provider shares it (MTN); null otherwise. */
  holderName: z.string().nullable(),
  /** When the provider answered (a cached answer keeps its time); null when not checked. */
  checkedAt: z.iso.datetime().nullable(),
  livemode: z.boolean(),
});
