import { z } from 'zod';
import type { Country } from '../../../domain/operators';
import { configDocs } from '../../../infra/config-docs';
import type { Connector } from '../connector';
import { MtnConnector, type MtnCountryConfig, type MtnCredentials } from './connector';

// MTN's credentials are per country (each MTN operating company runs its own MoMo platform, with
// its own target environment) and per product (Collection and Disbursement each have a subscription
// key, an API user and an API key). A product's three values go together.

const parts = {
  SUBSCRIPTION_KEY: '`Ocp-Apim-Subscription-Key` (primary or secondary) of the',
  API_USER: 'API user (a UUID) of the',
  API_KEY: 'API key of the API user of the',
} as const;
const products = {
  COLLECTION: 'Collection product (payins, and account-holder checks)',
  DISBURSEMENT:
    'Disbursement product (payouts and refunds; account-holder checks when Collection is not configured)',
} as const;

// Each of these is one schema, not a shared instance: the documentation registry keys on it.
const key = (country: 'CI' | 'CM', product: 'COLLECTION' | 'DISBURSEMENT', part: keyof typeof parts) =>
  z
    .string()
    .min(1)
    .optional()
    .register(configDocs, {
      group: 'mtn',
      description: `${parts[part]} MTN ${country} ${products[product]}; the three values of a product go together (half a set refuses to start).`,
      ...(part === 'API_USER' ? {} : { secret: 'from the MTN MoMo partner portal' }),
    });

/** MTN MoMo Open API env vars (merged into src/config.ts), every one named so that it is documented. All optional. */
export const mtnConfigShape = {
  MTN_BASE_URL: z.string().url().default('https://proxy.momoapi.mtn.com').register(configDocs, {
    group: 'mtn',
    description:
      "Base URL of the MoMo Open API; `https://sandbox.momodeveloper.mtn.com` for MTN's sandbox; a fake's URL in tests (docs/connectors/mtn.md).",
  }),
  MTN_CALLBACK_SECRET: z.string().min(32).optional().register(configDocs, {
    group: 'mtn',
    description:
      'Key (32+ characters) of the per-transaction tokens in our `X-Callback-Url`s (docs/connectors/mtn.md, "Callbacks"). Unset: no `X-Callback-Url` is sent and every callback is refused; status reads still settle everything.',
    secret: '`openssl rand -hex 32`',
  }),
  MTN_CI_TARGET_ENVIRONMENT: z.string().min(1).default('mtnivorycoast').register(configDocs, {
    group: 'mtn',
    description:
      "`X-Target-Environment` of MTN Côte d'Ivoire; `sandbox` against MTN's sandbox (EUR only: the amount is then sent as is in EUR).",
  }),
  MTN_CI_COLLECTION_SUBSCRIPTION_KEY: key('CI', 'COLLECTION', 'SUBSCRIPTION_KEY'),
  MTN_CI_COLLECTION_API_USER: key('CI', 'COLLECTION', 'API_USER'),
  MTN_CI_COLLECTION_API_KEY: key('CI', 'COLLECTION', 'API_KEY'),
  MTN_CI_DISBURSEMENT_SUBSCRIPTION_KEY: key('CI', 'DISBURSEMENT', 'SUBSCRIPTION_KEY'),
  MTN_CI_DISBURSEMENT_API_USER: key('CI', 'DISBURSEMENT', 'API_USER'),
  MTN_CI_DISBURSEMENT_API_KEY: key('CI', 'DISBURSEMENT', 'API_KEY'),
  MTN_CM_TARGET_ENVIRONMENT: z.string().min(1).default('mtncameroon').register(configDocs, {
    group: 'mtn',
    description:
      "`X-Target-Environment` of MTN Cameroon; `sandbox` against MTN's sandbox (EUR only: the amount is then sent as is in EUR).",
  }),
  MTN_CM_COLLECTION_SUBSCRIPTION_KEY: key('CM', 'COLLECTION', 'SUBSCRIPTION_KEY'),
  MTN_CM_COLLECTION_API_USER: key('CM', 'COLLECTION', 'API_USER'),
  MTN_CM_COLLECTION_API_KEY: key('CM', 'COLLECTION', 'API_KEY'),
  MTN_CM_DISBURSEMENT_SUBSCRIPTION_KEY: key('CM', 'DISBURSEMENT', 'SUBSCRIPTION_KEY'),
  MTN_CM_DISBURSEMENT_API_USER: key('CM', 'DISBURSEMENT', 'API_USER'),
  MTN_CM_DISBURSEMENT_API_KEY: key('CM', 'DISBURSEMENT', 'API_KEY'),
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
