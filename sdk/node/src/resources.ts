import type { HttpCore, RequestOptions } from './core.js';
import { MomoError } from './errors.js';
import { PagePromise } from './pagination.js';
import type { QueryParams, RequestBody, ResponseBody } from './types.js';
import type { ApiOperationId } from './generated/operations.js';

// One class per resource; each method is one operation of the API, named in src/operations.ts.

type Item<K extends ApiOperationId> = ResponseBody<K> extends { data: (infer I)[] } ? I : never;
type Page<K extends ApiOperationId> = ResponseBody<K> & { data: Item<K>[]; nextCursor: string | null };

abstract class Resource {
  constructor(protected readonly core: HttpCore) {}

  protected paged<K extends ApiOperationId>(
    operationId: K,
    path: Record<string, string> | undefined,
    query: object | undefined,
    opts?: RequestOptions,
  ): PagePromise<Item<K>, Page<K>> {
    return new PagePromise<Item<K>, Page<K>>((cursor) =>
      this.core.call<Page<K>>(operationId, { path, query: cursor ? { ...query, cursor } : query }, opts),
    );
  }
}

export class Payins extends Resource {
  /** Collects from a mobile-money number now (POST /v1/direct/payin). */
  createDirect(body: RequestBody<'createDirectPayin'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createDirectPayin'>>('createDirectPayin', { body }, opts);
  }
  /** Opens a hosted checkout session (POST /v1/payin/sessions). */
  createSession(body: RequestBody<'createPayinSession'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createPayinSession'>>('createPayinSession', { body }, opts);
  }
  get(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getPayin'>>('getPayin', { path: { reference } }, opts);
  }
}

export class Refunds extends Resource {
  /** Refunds a completed payin, in full or in part (POST /v1/payin/{reference}/refund). */
  create(payinReference: string, body: RequestBody<'refundPayin'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'refundPayin'>>(
      'refundPayin',
      { path: { reference: payinReference }, body },
      opts,
    );
  }
  get(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getRefund'>>('getRefund', { path: { reference } }, opts);
  }
}

export class Payouts extends Resource {
  /** Direct payout (POST /v1/direct/payout). */
  createDirect(body: RequestBody<'createDirectPayout'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createDirectPayout'>>('createDirectPayout', { body }, opts);
  }
  /** Standard payout, to a number or from a given account (POST /v1/payout). */
  create(body: RequestBody<'createPayout'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createPayout'>>('createPayout', { body }, opts);
  }
  get(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getPayout'>>('getPayout', { path: { reference } }, opts);
  }
  getDirect(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getDirectPayout'>>('getDirectPayout', { path: { reference } }, opts);
  }
  /** Cancels a standard payout not yet sent to the operator (409 PAYOUT_NOT_CANCELLABLE otherwise). */
  cancel(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'cancelPayout'>>('cancelPayout', { path: { reference } }, opts);
  }
  cancelDirect(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'cancelDirectPayout'>>(
      'cancelDirectPayout',
      { path: { reference } },
      opts,
    );
  }
}

export class BulkPayouts extends Resource {
  create(body: RequestBody<'createPayoutBatch'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createPayoutBatch'>>('createPayoutBatch', { body }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getPayoutBatch'>>('getPayoutBatch', { path: { id } }, opts);
  }
}

export class Accounts extends Resource {
  list(opts?: RequestOptions) {
    return this.core.call<ResponseBody<'listAccounts'>>('listAccounts', {}, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getAccount'>>('getAccount', { path: { id } }, opts);
  }
  /** The account's ledger entries; `for await` walks every page. */
  listEntries(id: string, query?: QueryParams<'listAccountEntries'>, opts?: RequestOptions) {
    return this.paged('listAccountEntries', { id }, query, opts);
  }
}

export class Providers extends Resource {
  list(query?: QueryParams<'listProviders'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'listProviders'>>('listProviders', { query }, opts);
  }
  /** The operator of a number (GET /v1/providers/predict). */
  predict(query: QueryParams<'predictProvider'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'predictProvider'>>('predictProvider', { query }, opts);
  }
  /** Whether a number is an active mobile-money account, and its holder's name when shared. */
  checkRecipient(query: QueryParams<'checkRecipient'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'checkRecipient'>>('checkRecipient', { query }, opts);
  }
}

export class WebhookEndpoints extends Resource {
  /** Registers an endpoint; the answer's `secret` (whsec_…) is shown only here. */
  create(body: RequestBody<'createWebhookEndpoint'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createWebhookEndpoint'>>('createWebhookEndpoint', { body }, opts);
  }
  list(opts?: RequestOptions) {
    return this.core.call<ResponseBody<'listWebhookEndpoints'>>('listWebhookEndpoints', {}, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getWebhookEndpoint'>>('getWebhookEndpoint', { path: { id } }, opts);
  }
  delete(id: string, opts?: RequestOptions): Promise<void> {
    return this.core.call<void>('deleteWebhookEndpoint', { path: { id } }, opts);
  }
  /** Sends again the events of a period (dry run: only counts them). */
  replay(id: string, body: RequestBody<'replayWebhookEvents'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'replayWebhookEvents'>>(
      'replayWebhookEvents',
      { path: { id }, body },
      opts,
    );
  }
  /** Sends one signed example event now and answers what the endpoint replied. */
  sendTest(id: string, body: RequestBody<'sendTestWebhookEvent'> = {}, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'sendTestWebhookEvent'>>(
      'sendTestWebhookEvent',
      { path: { id }, body },
      opts,
    );
  }
  rotateSecret(id: string, body: RequestBody<'rotateWebhookSecret'> = {}, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'rotateWebhookSecret'>>(
      'rotateWebhookSecret',
      { path: { id }, body },
      opts,
    );
  }
  enable(id: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'enableWebhookEndpoint'>>(
      'enableWebhookEndpoint',
      { path: { id } },
      opts,
    );
  }
  /** Every delivery attempt, newest first; `for await` walks every page. */
  listDeliveries(id: string, query?: QueryParams<'listWebhookDeliveries'>, opts?: RequestOptions) {
    return this.paged('listWebhookDeliveries', { id }, query, opts);
  }
}

export class Events extends Resource {
  /** The merchant's events, newest first; `for await` walks every page. */
  list(query?: QueryParams<'listEvents'>, opts?: RequestOptions) {
    return this.paged('listEvents', undefined, query, opts);
  }
  get(eventId: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getEvent'>>('getEvent', { path: { eventId } }, opts);
  }
  redeliver(eventId: string, body: RequestBody<'redeliverEvent'> = {}, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'redeliverEvent'>>(
      'redeliverEvent',
      { path: { eventId }, body },
      opts,
    );
  }
  /** A one-time token for a browser's WebSocket (`?token=wst_…`, valid 60 s). */
  createStreamToken(opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createWsToken'>>('createWsToken', {}, opts);
  }
}

export class Transactions extends Resource {
  /** Searches payins, payouts and refunds; `for await` walks every page. */
  list(query?: QueryParams<'listTransactions'>, opts?: RequestOptions) {
    return this.paged('listTransactions', undefined, query, opts);
  }
}

export class Statements extends Resource {
  create(body: RequestBody<'createStatement'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'createStatement'>>('createStatement', { body }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'getStatement'>>('getStatement', { path: { id } }, opts);
  }
  /**
   * The statement's file (CSV or JSON text), through its signed link. Given an id, reads the
   * statement first for a fresh link (links expire).
   */
  async download(statement: string | ResponseBody<'getStatement'>, opts?: RequestOptions): Promise<string> {
    const record = typeof statement === 'string' ? await this.get(statement, opts) : statement;
    if (!record.download)
      throw new MomoError(`statement ${record.id} is ${record.status}: no file to download yet`);
    const link = new URL(record.download.url, this.core.baseUrl);
    const query = {
      expires: Number(link.searchParams.get('expires')),
      signature: link.searchParams.get('signature') ?? '',
    };
    return this.core.call<string>('downloadStatement', { path: { id: record.id }, query }, opts);
  }
}

/** The sandbox's test helpers (test keys only): end a pending transaction now. */
export class Sandbox extends Resource {
  settlePayin(reference: string, body: RequestBody<'sandboxSettlePayin'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'sandboxSettlePayin'>>(
      'sandboxSettlePayin',
      { path: { reference }, body },
      opts,
    );
  }
  /** The partner check of an ambiguous payin finds the funds from now on. */
  markPayinCollected(reference: string, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'sandboxPayinCollected'>>(
      'sandboxPayinCollected',
      { path: { reference }, body: {} },
      opts,
    );
  }
  settlePayout(reference: string, body: RequestBody<'sandboxSettlePayout'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'sandboxSettlePayout'>>(
      'sandboxSettlePayout',
      { path: { reference }, body },
      opts,
    );
  }
  settleRefund(reference: string, body: RequestBody<'sandboxSettleRefund'>, opts?: RequestOptions) {
    return this.core.call<ResponseBody<'sandboxSettleRefund'>>(
      'sandboxSettleRefund',
      { path: { reference }, body },
      opts,
    );
  }
}
