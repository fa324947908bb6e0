import { z } from 'zod';
import type { Country } from '../../../domain/operators';
import type { Connector } from '../connector';
import { MtnConnector, type MtnCountryConfig, type MtnCredentials } from './connector';

// MTN's credentials are per country (each MTN operating company runs its own MoMo platform, with
// its own target environment) and per product (Collection and Disbursement each have a subscription
// key, an API user and an API key). A product's three values go together.

const key = z.string().min(1).optional();

/** MTN MoMo Open API env vars (the integrator merges them into src/config.ts). All optional. */
export const mtnConfigShape = {
  /** Base URL of the MoMo Open API (production https://proxy.momoapi.mtn.com; a fake's URL in tests). */
  MTN_BASE_URL: z.string().url().default('https://proxy.momoapi.mtn.com'),
  /** Key of the per-transaction tokens in our X-Callback-Url (32+ characters); unset = no callbacks, status reads only. */
  MTN_CALLBACK_SECRET: z.string().min(32).optional(),
  /** X-Target-Environment of MTN Côte d'Ivoire. */
  MTN_CI_TARGET_ENVIRONMENT: z.string().min(1).default('mtnivorycoast'),
  /** MTN CI Collection product: Ocp-Apim-Subscription-Key (primary or secondary). */
  MTN_CI_COLLECTION_SUBSCRIPTION_KEY: key,
  /** MTN CI Collection product: API user (UUID). */
  MTN_CI_COLLECTION_API_USER: key,
  /** MTN CI Collection product: API key of that user. */
  MTN_CI_COLLECTION_API_KEY: key,
  /** MTN CI Disbursement product (payouts, refunds): Ocp-Apim-Subscription-Key. */
  MTN_CI_DISBURSEMENT_SUBSCRIPTION_KEY: key,
  /** MTN CI Disbursement product: API user (UUID). */
  MTN_CI_DISBURSEMENT_API_USER: key,
  /** MTN CI Disbursement product: API key of that user. */
  MTN_CI_DISBURSEMENT_API_KEY: key,
  /** X-Target-Environment of MTN Cameroon. */
  MTN_CM_TARGET_ENVIRONMENT: z.string().min(1).default('mtncameroon'),
  /** MTN CM Collection product: Ocp-Apim-Subscription-Key. */
  MTN_CM_COLLECTION_SUBSCRIPTION_KEY: key,
  /** MTN CM Collection product: API user (UUID). */
  MTN_CM_COLLECTION_API_USER: key,
  /** MTN CM Collection product: API key of that user. */
  MTN_CM_COLLECTION_API_KEY: key,
  /** MTN CM Disbursement product (payouts, refunds): Ocp-Apim-Subscription-Key. */
  MTN_CM_DISBURSEMENT_SUBSCRIPTION_KEY: key,
  /** MTN CM Disbursement product: API user (UUID). */
  MTN_CM_DISBURSEMENT_API_USER: key,
  /** MTN CM Disbursement product: API key of that user. */
  MTN_CM_DISBURSEMENT_API_KEY: key,
};

export type MtnConfig = { [K in keyof typeof mtnConfigShape]?: z.infer<(typeof mtnConfigShape)[K]> };

export interface MtnDeps {
  timeoutMs: number;
  /** The service's public base URL: callbacks go to `<it>/provider-callbacks/mtn`. */
  callbackBaseUrl?: string | null;
}

type ProductVar = 'COLLECTION' | 'DISBURSEMENT';

function credentials(config: MtnConfig, country: Country, product: ProductVar): MtnCredentials | null {
  const prefix = `MTN_${country}_${product}` as const;
  const get = (suffix: string): string | undefined =>
    (config as Record<string, string | undefined>)[`${prefix}_${suffix}`];
  const values = {
    subscriptionKey: get('SUBSCRIPTION_KEY'),
    apiUser: get('API_USER'),
    apiKey: get('API_KEY'),
  };
  const set = Object.values(values).filter(Boolean).length;
  if (set === 0) return null;
  // Half a credential set is a configuration mistake: refuse to start rather than fail every call.
  if (set < 3)
    throw new Error(`${prefix}_SUBSCRIPTION_KEY, _API_USER and _API_KEY must be set together (or none)`);
  return values as MtnCredentials;
}

/**
 * The MTN connector, or null when no country has credentials. It serves each country with at least
 * one product configured; a request for a product that is not configured there is refused.
 */
export function buildMtnConnector(config: MtnConfig, deps: MtnDeps): Connector | null {
  const countries: Partial<Record<Country, MtnCountryConfig>> = {};
  for (const country of ['CI', 'CM'] as const) {
    const collection = credentials(config, country, 'COLLECTION');
    const disbursement = credentials(config, country, 'DISBURSEMENT');
    if (!collection && !disbursement) continue;
    const targetEnvironment =
      (country === 'CI' ? config.MTN_CI_TARGET_ENVIRONMENT : config.MTN_CM_TARGET_ENVIRONMENT) ??
      (country === 'CI' ? 'mtnivorycoast' : 'mtncameroon');
    countries[country] = { targetEnvironment, collection, disbursement };
  }
  if (Object.keys(countries).length === 0) return null;
  return new MtnConnector({
    baseUrl: config.MTN_BASE_URL ?? 'https://proxy.momoapi.mtn.com',
    timeoutMs: deps.timeoutMs,
    callbackBaseUrl: deps.callbackBaseUrl ?? null,
    callbackSecret: config.MTN_CALLBACK_SECRET ?? null,
    countries,
  });
}
