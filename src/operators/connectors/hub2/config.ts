import { z } from 'zod';
import { configDocs } from '../../../infra/config-docs';
import type { Connector } from '../connector';
import { Hub2Connector, type Hub2Journal } from './connector';

/** Hub2's env vars (merged into src/config.ts). All optional: no key, no Hub2. */
export const hub2ConfigShape = {
  HUB2_BASE_URL: z.string().url().default('https://api.hub2.io').register(configDocs, {
    group: 'hub2',
    description:
      "Base URL of Hub2's API (one host for sandbox and live); a fake's URL in tests (docs/connectors/hub2.md).",
  }),
  HUB2_API_KEY: z.string().min(1).optional().register(configDocs, {
    group: 'hub2',
    description:
      'Hub2 API key (`ApiKey` header), tied to one environment, with the payment intent, payment and transfer permissions. Unset: no Hub2 connector.',
    secret: 'from the Hub2 dashboard',
  }),
  HUB2_MERCHANT_ID: z.string().min(1).optional().register(configDocs, {
    group: 'hub2',
    description: 'Hub2 merchant id (`MerchantId` header). Required with `HUB2_API_KEY`.',
  }),
  HUB2_ENVIRONMENT: z.enum(['sandbox', 'live']).default('live').register(configDocs, {
    group: 'hub2',
    description:
      "Hub2's `Environment` header: `live`, or `sandbox` (provider behaviour simulated by Hub2). It must match the key's environment.",
  }),
  HUB2_WEBHOOK_SECRET: z.string().min(1).optional().register(configDocs, {
    group: 'hub2',
    description:
      'The `secret` Hub2 answered when the webhook for `POST <PUBLIC_BASE_URL>/provider-callbacks/hub2` was registered (payment intent and transfer events); it checks `Hub2-Signature`. Unset: every webhook is refused (status reads still work).',
    secret: 'from the Hub2 webhook registration',
  }),
  HUB2_BUSINESS_NAME: z.string().min(1).max(50).optional().register(configDocs, {
    group: 'hub2',
    description:
      'The business name customers see instead of "Hub2" (`overrideBusinessName`, which Hub2 requires of aggregators), when the merchant has no name of its own.',
  }),
};

export type Hub2Config = { [K in keyof typeof hub2ConfigShape]?: z.infer<(typeof hub2ConfigShape)[K]> };

export interface Hub2Deps {
  timeoutMs: number;
  /**
   * Where the connector keeps what Hub2 does not (no idempotency key): the intent of each payin and
   * whether its one attempt, payout or refund transfer was sent (src/persistence/hub2-journal.ts).
   */
  journal: Hub2Journal;
  /**
   * The payer's number of a refund's payin (from our records): a Hub2 payin is refunded by a Hub2
   * transfer to that number. Without it, a refund answers OperatorUnavailableError.
   */
  payerOfRefund?: (refundId: string) => Promise<string | null>;
}

/** The Hub2 connector, or null when HUB2_API_KEY or HUB2_MERCHANT_ID is unset. */
export function buildHub2Connector(config: Hub2Config, deps: Hub2Deps): Connector | null {
  if (!config.HUB2_API_KEY || !config.HUB2_MERCHANT_ID) return null;
  return new Hub2Connector({
    baseUrl: config.HUB2_BASE_URL ?? 'https://api.hub2.io',
    apiKey: config.HUB2_API_KEY,
    merchantId: config.HUB2_MERCHANT_ID,
    environment: config.HUB2_ENVIRONMENT ?? 'live',
    webhookSecret: config.HUB2_WEBHOOK_SECRET ?? null,
    businessName: config.HUB2_BUSINESS_NAME ?? null,
    timeoutMs: deps.timeoutMs,
    journal: deps.journal,
    payerOfRefund: deps.payerOfRefund ?? null,
  });
}
