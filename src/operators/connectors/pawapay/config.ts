import { z } from 'zod';
import { configDocs } from '../../../infra/config-docs';
import type { Connector } from '../connector';
import { PawapayConnector } from './connector';
import { publicKeyOf } from './http-signature';

/** pawaPay's env vars (merged into src/config.ts). All optional: no token, no pawaPay. */
export const pawapayConfigShape = {
  PAWAPAY_BASE_URL: z.string().url().default('https://api.pawapay.io').register(configDocs, {
    group: 'pawapay',
    description:
      "Base URL of pawaPay's Merchant API; `https://api.sandbox.pawapay.io` for pawaPay's sandbox; a fake's URL in tests (docs/connectors/pawapay.md).",
  }),
  PAWAPAY_API_TOKEN: z.string().min(1).optional().register(configDocs, {
    group: 'pawapay',
    description:
      'The API token generated in the pawaPay Dashboard (Bearer); sandbox and production tokens differ. Unset: no pawaPay connector.',
    secret: 'from the pawaPay Dashboard',
  }),
  PAWAPAY_CALLBACK_PUBLIC_KEY: z.string().min(1).optional().register(configDocs, {
    group: 'pawapay',
    description:
      "pawaPay's public key (PEM, `\\n` escapes allowed) from `GET /v2/public-key/http`, which signs its callbacks. Unset: every callback is refused (status reads still settle everything).",
  }),
  PAWAPAY_CALLBACK_KEY_ID: z.string().min(1).optional().register(configDocs, {
    group: 'pawapay',
    description:
      'The `id` of that key: a callback signed under another `keyid` is refused. Unset: any `keyid` (the key itself still has to verify).',
  }),
  PAWAPAY_SIGNING_PRIVATE_KEY: z.string().min(1).optional().register(configDocs, {
    group: 'pawapay',
    description:
      'Our EC P-256 private key (PEM) when "Only accept signed requests" is enabled in the pawaPay Dashboard: deposits, payouts and refunds are then signed. Goes with `PAWAPAY_SIGNING_KEY_ID` (half a pair refuses to start).',
    secret: '`openssl ecparam -name prime256v1 -genkey -noout` (register its public key with pawaPay)',
  }),
  PAWAPAY_SIGNING_KEY_ID: z.string().min(1).optional().register(configDocs, {
    group: 'pawapay',
    description: 'The key id under which our public key is registered in the pawaPay Dashboard.',
  }),
  PAWAPAY_CALLBACK_TOLERANCE_SECONDS: z.coerce.number().int().positive().default(300).register(configDocs, {
    group: 'pawapay',
    description:
      'Callback signatures older than this many seconds (their `created`, else their signed `Signature-Date`) are refused.',
  }),
};

export type PawapayConfig = {
  [K in keyof typeof pawapayConfigShape]?: z.infer<(typeof pawapayConfigShape)[K]>;
};

export interface PawapayDeps {
  timeoutMs: number;
  /** Unused: pawaPay's callback URLs are set per operation in the pawaPay Dashboard. */
  callbackBaseUrl?: string | null;
  /** How long the active configuration is reused (default 60 s). */
  activeConfTtlMs?: number;
}

/** The pawaPay connector, or null when PAWAPAY_API_TOKEN is unset. */
export function buildPawapayConnector(config: PawapayConfig, deps: PawapayDeps): PawapayConnector | null {
  if (!config.PAWAPAY_API_TOKEN) return null;
  const pem = config.PAWAPAY_CALLBACK_PUBLIC_KEY;
  const key = pem ? publicKeyOf(pem) : null;
  if (pem && !key) throw new Error('PAWAPAY_CALLBACK_PUBLIC_KEY is not a PEM public key');
  if (!!config.PAWAPAY_SIGNING_PRIVATE_KEY !== !!config.PAWAPAY_SIGNING_KEY_ID)
    throw new Error('PAWAPAY_SIGNING_PRIVATE_KEY and PAWAPAY_SIGNING_KEY_ID go together');
  return new PawapayConnector({
    baseUrl: config.PAWAPAY_BASE_URL ?? 'https://api.pawapay.io',
    apiToken: config.PAWAPAY_API_TOKEN,
    callbackPublicKey: key,
    callbackKeyId: config.PAWAPAY_CALLBACK_KEY_ID ?? null,
    requestSigning:
      config.PAWAPAY_SIGNING_PRIVATE_KEY && config.PAWAPAY_SIGNING_KEY_ID
        ? { privateKeyPem: config.PAWAPAY_SIGNING_PRIVATE_KEY, keyId: config.PAWAPAY_SIGNING_KEY_ID }
        : null,
    timeoutMs: deps.timeoutMs,
    callbackToleranceSeconds: config.PAWAPAY_CALLBACK_TOLERANCE_SECONDS ?? 300,
    activeConfTtlMs: deps.activeConfTtlMs ?? 60_000,
  });
}

export type { Connector };
