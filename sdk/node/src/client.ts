import { HttpCore, type ClientOptions } from './core.js';
import {
  Accounts,
  Events,
  PaymentLinks,
  Payins,
  PayoutBatches,
  Payouts,
  Providers,
  Refunds,
  Sandbox,
  Statements,
  Transactions,
  WebhookEndpoints as WebhookEndpointsResource,
} from './generated/resources.js';
import { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
import type { WebhookEvent } from './types.js';

class WebhookEndpoints extends WebhookEndpointsResource {
  /** Verifies a delivery on its raw body (Standard Webhooks) and answers the typed event. */
  verify(
    payload: string | Buffer,
    headers: WebhookHeaders,
    secrets: string | string[],
    options?: VerifyOptions,
  ): WebhookEvent {
    return verifyWebhook(payload, headers, secrets, options);
  }
}

const warned = new Set<string>();
/** Once per process and old name, as Node's own deprecations do. */
function deprecated(old: string, current: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  process.emitWarning(
    `MomoPayments.${old} is deprecated and goes in the next minor release: use MomoPayments.${current}`,
    { type: 'DeprecationWarning', code: `MOMO_DEP_${old.toUpperCase()}` },
  );
}

/**
 * The API client: credentials, language, timeouts and retries in one object, and one property
 * per resource, named as in the Python and PHP SDKs (sdk/codegen/resources.json; the resource
 * classes are generated from it).
 *
 * ```ts
 * const momo = new MomoPayments({ apiKey: 'mk_test_…', apiClient: 'sk_test_…', baseUrl: 'https://…' });
 * const payin = await momo.payins.createDirect({ reference: 'order-1', payin: { … } });
 * ```
 */
export class MomoPayments {
  readonly payins: Payins;
  readonly refunds: Refunds;
  readonly payouts: Payouts;
  readonly payoutBatches: PayoutBatches;
  readonly accounts: Accounts;
  readonly providers: Providers;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly transactions: Transactions;
  readonly statements: Statements;
  readonly paymentLinks: PaymentLinks;
  /** Test helpers of the sandbox (test keys only). */
  readonly sandbox: Sandbox;
  /** @internal */
  readonly core: HttpCore;

  constructor(options: ClientOptions) {
    this.core = new HttpCore(options);
    this.payins = new Payins(this.core);
    this.refunds = new Refunds(this.core);
    this.payouts = new Payouts(this.core);
    this.payoutBatches = new PayoutBatches(this.core);
    this.accounts = new Accounts(this.core);
    this.providers = new Providers(this.core);
    this.webhookEndpoints = new WebhookEndpoints(this.core);
    this.events = new Events(this.core);
    this.transactions = new Transactions(this.core);
    this.statements = new Statements(this.core);
    this.paymentLinks = new PaymentLinks(this.core);
    this.sandbox = new Sandbox(this.core);
  }

  /**
   * @deprecated Use `payoutBatches`, the resource's name in the three SDKs; `bulkPayouts` goes in
   * the next minor release.
   */
  get bulkPayouts(): PayoutBatches {
    deprecated('bulkPayouts', 'payoutBatches');
    return this.payoutBatches;
  }

  /**
   * @deprecated Use `webhookEndpoints`, the resource's name in the three SDKs; `webhooks` goes in
   * the next minor release.
   */
  get webhooks(): WebhookEndpoints {
    deprecated('webhooks', 'webhookEndpoints');
    return this.webhookEndpoints;
  }
}
