import { z } from 'zod';
import { configDocs } from '../../../infra/config-docs';
import type { Connector } from '../connector';
import { WaveConnector } from './connector';

/** Wave redirects the customer to https addresses only: another is refused at start, not per payin. */
const httpsUrl = z.url({ protocol: /^https$/, error: 'an https URL (Wave redirects to https only)' });

/** Wave's env vars (merged into src/config.ts). All optional: no key, no Wave. */
export const waveConfigShape = {
  WAVE_BASE_URL: z.string().url().default('https://api.wave.com').register(configDocs, {
    group: 'wave',
    description: "Base URL of Wave's API; a fake's URL in tests (docs/connectors/wave.md).",
  }),
  WAVE_API_KEY: z.string().min(1).optional().register(configDocs, {
    group: 'wave',
    description: 'Wave API key (Bearer) with the Checkout API scope. Unset: no Wave connector.',
    secret: 'from the Wave Business Portal',
  }),
  WAVE_PAYOUT_API_KEY: z.string().min(1).optional().register(configDocs, {
    group: 'wave',
    description: 'Wave API key with the Payout API scope, when it is another key.',
    default: '`WAVE_API_KEY`',
    secret: 'from the Wave Business Portal',
  }),
  WAVE_WEBHOOK_SECRET: z.string().min(1).optional().register(configDocs, {
    group: 'wave',
    description:
      'The signing secret (`Wave-Signature`) of the webhook registered in the Wave Business Portal for `POST <PUBLIC_BASE_URL>/provider-callbacks/wave`, events `checkout.session.completed` and `checkout.session.payment_failed`. Unset: every webhook is refused (status reads still work).',
    secret: 'from the Wave Business Portal',
  }),
  WAVE_SUCCESS_URL: httpsUrl.optional().register(configDocs, {
    group: 'wave',
    description:
      'Where Wave sends the customer after paying, when the payin names no URL of its own and there is no https `PUBLIC_BASE_URL` (https only: the process refuses to start otherwise, as Wave refuses others). With Wave routed for payins, an https `PUBLIC_BASE_URL` or both this and `WAVE_ERROR_URL` are needed: payin sessions (payment links) name no URL, and the process refuses to start without one.',
  }),
  WAVE_ERROR_URL: httpsUrl.optional().register(configDocs, {
    group: 'wave',
    description:
      'Where Wave sends the customer after a failed payment, when the payin names no URL of its own and there is no https `PUBLIC_BASE_URL` (https only).',
  }),
};

export type WaveConfig = { [K in keyof typeof waveConfigShape]?: z.infer<(typeof waveConfigShape)[K]> };

export interface WaveDeps {
  timeoutMs: number;
  /** Unused by Wave: its webhooks are registered in the Wave Business Portal, not per request. */
  callbackBaseUrl?: string | null;
  /**
   * The payin (our transaction id) a refund reverses. Wave refunds a checkout session and keeps no
   * refund id of ours, so a refund's status is read on its payin's session; the integrator wires
   * this to the refund records. Without it, refundStatus answers OperatorUnavailableError.
   */
  refundOrigin?: (refundId: string) => Promise<string | null>;
  /**
   * The hosted checkout page of a payin session (`<https PUBLIC_BASE_URL>/checkout/<id>`), or null
   * when there is no https one: a session's customer who chose Wave comes back there, and the page
   * then leaves for the merchant's own URLs (which may be http: it is our page that navigates).
   */
  checkoutPage?: (transactionId: string) => string | null;
  /** Webhook timestamps older than this are refused (default 300 s). */
  webhookToleranceSeconds?: number;
}

/** The Wave connector, or null when WAVE_API_KEY is unset. */
export function buildWaveConnector(config: WaveConfig, deps: WaveDeps): Connector | null {
  if (!config.WAVE_API_KEY) return null;
  return new WaveConnector({
    baseUrl: config.WAVE_BASE_URL ?? 'https://api.wave.com',
    checkoutApiKey: config.WAVE_API_KEY,
    payoutApiKey: config.WAVE_PAYOUT_API_KEY ?? config.WAVE_API_KEY,
    webhookSecret: config.WAVE_WEBHOOK_SECRET ?? null,
    successUrl: config.WAVE_SUCCESS_URL ?? null,
    errorUrl: config.WAVE_ERROR_URL ?? null,
    timeoutMs: deps.timeoutMs,
    refundOrigin: deps.refundOrigin ?? null,
    checkoutPage: deps.checkoutPage ?? null,
    webhookToleranceSeconds: deps.webhookToleranceSeconds ?? 300,
  });
}
