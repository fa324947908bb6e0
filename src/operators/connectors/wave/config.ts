import { z } from 'zod';
import type { Connector } from '../connector';
import { WaveConnector } from './connector';

/** Wave redirects the customer to https addresses only: another is refused at start, not per payin. */
const httpsUrl = z.url({ protocol: /^https$/, error: 'an https URL (Wave redirects to https only)' });

/** Wave's env vars (the integrator merges them into src/config.ts). All optional: no key, no Wave. */
export const waveConfigShape = {
  /** Base URL of Wave's API (https://api.wave.com); a fake's URL in tests. */
  WAVE_BASE_URL: z.string().url().default('https://api.wave.com'),
  /** Wave API key (Bearer) with the Checkout API scope; unset = no Wave connector. */
  WAVE_API_KEY: z.string().min(1).optional(),
  /** Wave API key with the Payout API scope, when it is a different key; defaults to WAVE_API_KEY. */
  WAVE_PAYOUT_API_KEY: z.string().min(1).optional(),
  /** Webhook signing secret of the Wave webhook pointing at /provider-callbacks/wave (Wave-Signature). */
  WAVE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where Wave sends the customer after paying, when the payin names no success URL (https). */
  WAVE_SUCCESS_URL: httpsUrl.optional(),
  /** Where Wave sends the customer after a failed payment, when the payin names none (https). */
  WAVE_ERROR_URL: httpsUrl.optional(),
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
