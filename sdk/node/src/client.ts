import { HttpCore, type ClientOptions } from './core.js';
import {
  Accounts,
  BulkPayouts,
  Events as EventsResource,
  Payins,
  Payouts,
  Providers,
  Refunds,
  Sandbox,
  Statements,
  Transactions,
  WebhookEndpoints,
} from './resources.js';
import { EventStream, type StreamOptions } from './stream.js';
import { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
import type { WebhookEvent } from './types.js';

class Events extends EventsResource {
  /** Opens the WebSocket event stream (GET /v1/ws); resolves once subscribed. */
  async stream(options: StreamOptions = {}): Promise<EventStream> {
    const stream = new EventStream(this.core, options);
    await stream.connect();
    return stream;
  }
}

class Webhooks extends WebhookEndpoints {
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

/**
 * The API client: credentials, language, timeouts and retries in one object, and one property
 * per resource.
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
  readonly bulkPayouts: BulkPayouts;
  readonly accounts: Accounts;
  readonly providers: Providers;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly transactions: Transactions;
  readonly statements: Statements;
  /** Test helpers of the sandbox (test keys only). */
  readonly sandbox: Sandbox;
  /** @internal */
  readonly core: HttpCore;

  constructor(options: ClientOptions) {
    this.core = new HttpCore(options);
    this.payins = new Payins(this.core);
    this.refunds = new Refunds(this.core);
    this.payouts = new Payouts(this.core);
    this.bulkPayouts = new BulkPayouts(this.core);
    this.accounts = new Accounts(this.core);
    this.providers = new Providers(this.core);
    this.webhooks = new Webhooks(this.core);
    this.events = new Events(this.core);
    this.transactions = new Transactions(this.core);
    this.statements = new Statements(this.core);
    this.sandbox = new Sandbox(this.core);
  }
}
