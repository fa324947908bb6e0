// MTN MoMo Open API, direct (MTN Côte d'Ivoire and MTN Cameroon): payins by Collection
// request-to-pay, payouts by Disbursement transfer, refunds by Disbursement refund v2. Documentation
// followed (MoMo Developer Portal, https://momodeveloper.mtn.com):
//   - "API documentation" / "Collection" and "Disbursement" API references
//     https://momodeveloper.mtn.com/API-collections — CreateAccessToken (POST /{product}/token/ with
//     Basic api-user:api-key and the product's Ocp-Apim-Subscription-Key → access_token, expires_in),
//     RequestToPay (POST /collection/v1_0/requesttopay: X-Reference-Id UUID v4, X-Target-Environment,
//     X-Callback-Url; body amount (string), currency, externalId, payer {partyIdType MSISDN, partyId},
//     payerMessage, payeeNote → 202), RequestToPayTransactionStatus (GET …/requesttopay/{referenceId}:
//     status PENDING | SUCCESSFUL | FAILED, reason, financialTransactionId), Transfer (POST
//     /disbursement/v1_0/transfer, payee) and GetTransferStatus, Refund-V2 (POST
//     /disbursement/v2_0/refund with referenceIdToRefund) and GetRefundStatus (GET
//     /disbursement/v1_0/refund/{referenceId}), ValidateAccountHolderStatus (GET
//     /{product}/v1_0/accountholder/msisdn/{msisdn}/active → { result }) and GetBasicUserinfo (GET
//     …/accountholder/msisdn/{msisdn}/basicuserinfo → name, given_name, family_name).
//   - "Callback" https://momodeveloper.mtn.com/api-documentation/callback — asynchronous 202 then
//     one callback to the X-Callback-Url (host registered for the API user), body like the status
//     read, sent once with no retry: poll the GET status when it does not come.
//   - "Common Error Codes" https://momodeveloper.mtn.com/api-documentation/common-error — 409
//     RESOURCE_ALREADY_EXIST (reference id reused), 401 invalid subscription key / token, 404
//     RESOURCE_NOT_FOUND on a status read, 400 bad request, 403 forbidden IP, 500 NOT_ALLOWED,
//     NOT_ALLOWED_TARGET_ENVIRONMENT, INVALID_CALLBACK_URL_HOST, INVALID_CURRENCY,
//     INTERNAL_PROCESSING_ERROR, SERVICE_UNAVAILABLE.
//   - "Reason for some FAILED API responses updated" and "Failure reasons updated" (MoMo Developer
//     Community, https://momodevelopercommunity.mtn.com/product-updates) — FAILED reasons
//     NOT_ENOUGH_FUNDS, PAYER_NOT_FOUND, PAYEE_NOT_FOUND, COULD_NOT_PERFORM_TRANSACTION,
//     PAYER_LIMIT_REACHED, SENDER_ACCOUNT_NOT_ACTIVE, PAYEE_NOT_ALLOWED_TO_RECEIVE, NOT_ALLOWED.
//   - MTN's own SDKs (github.com/MTN-Group/MoMoAPIs_Php_sdk src/Common/Constants/API.php) for the
//     paths above; target environments "mtnivorycoast" and "mtncameroon".
// MTN signs no callback: ours carry a per-transaction HMAC token in the X-Callback-Url's query
// (verifyCallback below). What the docs leave unclear, and how this connector reads it:
// docs/connectors/mtn.md.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import type { Country, OperatorCode } from '../../../domain/operators';
import { currencyByCountry } from '../../../domain/operators';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
  operatorFailureCodes,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorKind,
  type OperatorStatement,
  type OperatorStatus,
  type PartnerCheckResult,
  type RefundRequest,
  type CustomerText,
} from '../../gateway';
import { fromProviderUuid, toProviderUuid } from '../../provider-ids';
import { customerLabel, type TextLimits } from '../customer-text';
import {
  StatementsNotOfferedError,
  type Connector,
  type IncomingCallback,
  type RecipientInfo,
  type VerifiedCallback,
} from '../connector';
import {
  accountHolderActive,
  basicUserInfo,
  mtnError,
  requestToPayResult,
  tokenAnswer,
  transferResult,
  type RefundBody,
  type RequestToPayBody,
  type TransactionResult,
  type TransferBody,
} from './wire';

/** MTN's products: each has its own subscription key, API user, token and paths. */
export type MtnProduct = 'collection' | 'disbursement';

export interface MtnCredentials {
  subscriptionKey: string;
  apiUser: string;
  apiKey: string;
}

export interface MtnCountryConfig {
  /** X-Target-Environment: `mtnivorycoast`, `mtncameroon` (or `sandbox`). */
  targetEnvironment: string;
  collection: MtnCredentials | null;
  disbursement: MtnCredentials | null;
}

export interface MtnConnectorOptions {
  baseUrl: string;
  timeoutMs: number;
  /** The service's public base URL; callbacks go to `<it>/provider-callbacks/mtn?…`. */
  callbackBaseUrl: string | null;
  /** Key of the callback URL tokens; null sends no X-Callback-Url (status reads only). */
  callbackSecret: string | null;
  countries: Partial<Record<Country, MtnCountryConfig>>;
}

/** MTN's reasons for a FAILED request-to-pay → ours (src/domain/failures.ts says which are definitive). */
const collectionReasons: Record<string, string> = {
  PAYER_NOT_FOUND: 'INVALID_MSISDN',
  NOT_ENOUGH_FUNDS: 'INSUFFICIENT_FUNDS',
  APPROVAL_REJECTED: 'DECLINED_BY_CUSTOMER',
  TRANSACTION_CANCELED: 'DECLINED_BY_CUSTOMER',
  PAYMENT_NOT_APPROVED: 'PAYER_DECLINED',
  EXPIRED: 'PAYER_DECLINED',
  COULD_NOT_PERFORM_TRANSACTION: 'PAYER_DECLINED',
  PAYER_LIMIT_REACHED: 'PAYER_DECLINED',
  SENDER_ACCOUNT_NOT_ACTIVE: 'PAYER_DECLINED',
};

/** MTN's reasons for a FAILED transfer or refund → ours. */
const disbursementReasons: Record<string, string> = {
  PAYEE_NOT_FOUND: 'INVALID_MSISDN',
  PAYER_NOT_FOUND: 'INVALID_MSISDN',
  NOT_ENOUGH_FUNDS: 'INSUFFICIENT_FUNDS',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'PAYEE_REJECTED',
};

/** Reasons that say MTN refused our request itself (account or configuration): nothing was done. */
const refusalReasons = new Set([
  'NOT_ALLOWED',
  'NOT_ALLOWED_TARGET_ENVIRONMENT',
  'INVALID_CALLBACK_URL_HOST',
  'INVALID_CURRENCY',
]);

/** Codes of a request refused synchronously (with a 500): the refusals above, or an unknown party. */
const requestRefusalCodes = new Set([...refusalReasons, 'PAYER_NOT_FOUND', 'PAYEE_NOT_FOUND']);

/**
 * Statuses some MTN environments answer besides PENDING/SUCCESSFUL/FAILED: the first two are still
 * in flight, the last two are final refusals named as a status instead of a reason.
 */
const pendingStatuses = new Set(['PENDING', 'CREATED', 'ONGOING']);
const finalStatusReasons: Record<string, string> = { REJECTED: 'APPROVAL_REJECTED', TIMEOUT: 'EXPIRED' };

/** The USSD menu where a customer approves a pending MTN payment when the push does not show. */
const ussdCodes: Partial<Record<Country, string>> = { CI: '*133#' };

/** Currencies' decimals (ISO 4217): MTN writes amounts in major units as strings. */
const currencyDecimals: Record<string, number> = { XOF: 0, XAF: 0, EUR: 2 };

type Answer = { status: number; json: unknown };

interface Token {
  value: string;
  /** ms epoch after which we fetch a new one (a margin before MTN's expiry). */
  refreshAt: number;
}

/**
 * payerMessage and payeeNote: MTN's API reference gives them as strings written in the payer's and
 * the payee's transaction history, without a published limit; integrations keep them within 160
 * characters, and characters outside a plain set are known to be refused by some markets.
 */
export const mtnNoteLimits: TextLimits = { max: 160, allowed: /[A-Za-z0-9 .,:_#/-]/ };

/** Both notes carry the customer's text (the same on both sides); without one, a plain word. */
function notes(
  text: CustomerText | undefined,
  fallback: string,
): { payerMessage: string; payeeNote: string } {
  const label = customerLabel(text, mtnNoteLimits) ?? fallback;
  return { payerMessage: label, payeeNote: label };
}

/** MTN signs nothing and dates nothing: an identical callback within this window is a replay. */
const replayWindowSec = 24 * 3600;

export class MtnConnector implements Connector {
  readonly name = 'mtn' as const;
  readonly serves: ReadonlyArray<{ operator: OperatorCode; country: Country }>;
  private readonly baseUrl: string;
  private readonly tokens = new Map<string, Token>();
  private readonly pendingTokens = new Map<string, Promise<string>>();

  constructor(private readonly opts: MtnConnectorOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.serves = (Object.keys(opts.countries) as Country[]).map((country) => ({
      operator: 'MTN' as const,
      country,
    }));
  }

  // ---- payins: Collection request-to-pay ----

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    const body: RequestToPayBody = {
      amount: this.major(req.amount, req.currency),
      currency: this.wireCurrency(req.country, req.currency),
      externalId: req.transactionId,
      payer: { partyIdType: 'MSISDN', partyId: partyIdOf(req.msisdn) },
      // Shown to the customer on the approval prompt and in its history (payerMessage), and in
      // ours (payeeNote): what the customer recognises, never our id (externalId carries it).
      ...notes(req.customerText, 'Payment'),
    };
    return this.submit('collection', req.country, '/collection/v1_0/requesttopay', req.transactionId, body);
  }

  collectionStatus(transactionId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.statusOf('collection', transactionId, operator, country);
  }

  /** MTN has no partner (settlement) API: its own status read is the only word on a collection. */
  async partnerCheck(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<PartnerCheckResult> {
    const s = await this.collectionStatus(transactionId, operator, country);
    return { collected: s.outcome === 'completed', operatorReference: s.operatorReference };
  }

  // ---- payouts: Disbursement transfer ----

  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    const body: TransferBody = {
      amount: this.major(req.amount, req.currency),
      currency: this.wireCurrency(req.country, req.currency),
      externalId: req.transactionId,
      payee: { partyIdType: 'MSISDN', partyId: partyIdOf(req.msisdn) },
      // The recipient reads payeeNote; payerMessage is our side's history.
      ...notes(req.customerText, 'Payout'),
    };
    return this.submit('disbursement', req.country, '/disbursement/v1_0/transfer', req.transactionId, body);
  }

  disbursementStatus(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    return this.statusOf('disbursement', transactionId, operator, country);
  }

  // ---- refunds: Disbursement refund v2 of a request-to-pay ----

  async refund(req: RefundRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    const body: RefundBody = {
      amount: this.major(req.amount, req.currency),
      currency: this.wireCurrency(req.country, req.currency),
      externalId: req.refundId,
      ...notes(req.customerText, 'Refund'),
      referenceIdToRefund: toProviderUuid(req.transactionId),
    };
    return this.submit('refund', req.country, '/disbursement/v2_0/refund', req.refundId, body);
  }

  refundStatus(refundId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.statusOf('refund', refundId, operator, country);
  }

  /**
   * MTN publishes no cancel API: the answer is the transaction's current status, which confirms a
   * cancellation only if it is already failed (and then not with CANCELLED: nothing of ours was).
   */
  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.statusOf(kind, id, operator, country);
  }

  statement(): Promise<OperatorStatement> {
    return Promise.reject(new StatementsNotOfferedError('mtn: the MoMo Open API publishes no statement'));
  }

  // ---- account holder checks ----

  /**
   * "Validate account holder status" then, for an active one, "basic user info" (the holder's name):
   * with the Collection product's credentials when configured, otherwise Disbursement's. A name MTN
   * does not give (or an error on that second call) is null: the account status is the answer.
   */
  async recipient(msisdn: string, country: Country): Promise<RecipientInfo> {
    const c = this.opts.countries[country];
    const product: MtnProduct | null = c?.collection ? 'collection' : c?.disbursement ? 'disbursement' : null;
    if (!product) throw new OperatorRejectedError(`mtn: MTN ${country} is not configured`);
    const party = encodeURIComponent(partyIdOf(msisdn));
    const base = `/${product}/v1_0/accountholder/msisdn/${party}`;
    // The path holds the number: errors name the operation, never the path.
    const res = await this.call(country, product, 'GET', `${base}/active`, 'accountholder active');
    let active: boolean;
    if (res.status === 404) active = false;
    else {
      this.throwUnavailable('accountholder active', res);
      if (res.status !== 200)
        throw new OperatorUnavailableError(`mtn: accountholder active answered ${res.status}`);
      active = this.parse('accountholder active', res, accountHolderActive).result;
    }
    let holderName: string | null = null;
    if (active) {
      try {
        const info = await this.call(country, product, 'GET', `${base}/basicuserinfo`, 'basicuserinfo');
        if (info.status === 200) {
          const u = basicUserInfo.safeParse(info.json);
          if (u.success) {
            const full = u.data.name ?? [u.data.given_name, u.data.family_name].filter(Boolean).join(' ');
            holderName = full.trim() || null;
          }
        }
      } catch {
        holderName = null;
      }
    }
    return { operator: active ? 'MTN' : null, country, active, holderName };
  }

  // ---- callbacks ----

  /**
   * MTN signs nothing. Each request's X-Callback-Url carries `kind`, `ref` (the X-Reference-Id) and
   * `sig` = HMAC-SHA256(callback secret, "mtn-callback:v1:<kind>:<ref>"): only MTN (and we) know that
   * URL, so a callback naming it is about that transaction. A body naming another externalId is
   * refused; the same callback twice is acknowledged once by the callback door (its receipt). Either
   * way it only makes the workflow read the status.
   */
  verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> {
    try {
      return Promise.resolve(this.checkCallback(cb));
    } catch {
      // An unparseable path is not one of our URLs.
      return Promise.resolve(null);
    }
  }

  private checkCallback(cb: IncomingCallback): VerifiedCallback | null {
    if (!this.opts.callbackSecret) return null;
    if (cb.method !== 'POST' && cb.method !== 'PUT') return null;
    const url = new URL(cb.path, 'http://callback.invalid');
    const kind = url.searchParams.get('kind');
    const ref = url.searchParams.get('ref');
    const sig = url.searchParams.get('sig');
    if (kind !== 'collection' && kind !== 'disbursement' && kind !== 'refund') return null;
    if (!ref || !sig) return null;
    const id = fromProviderUuid(ref);
    if (!id || id.startsWith('rf_') !== (kind === 'refund')) return null;
    const expected = Buffer.from(this.callbackSig(kind, ref));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let body: unknown;
    try {
      body = JSON.parse(cb.rawBody.toString('utf8'));
    } catch {
      return null;
    }
    if (typeof body !== 'object' || body === null) return null;
    const externalId = (body as { externalId?: unknown }).externalId;
    if (externalId !== undefined && externalId !== id) return null;
    // What vouches for it is the secret URL; with the body, that is the callback (a replay repeats both).
    const content = Buffer.concat([Buffer.from(cb.path), Buffer.from('\0'), cb.rawBody]);
    const acceptedUntil = Math.floor(Date.now() / 1000) + replayWindowSec;
    return { kind, id, signed: { content, acceptedUntil } };
  }

  private callbackSig(kind: OperatorKind, ref: string): string {
    return createHmac('sha256', this.opts.callbackSecret ?? '')
      .update(`mtn-callback:v1:${kind}:${ref}`)
      .digest('base64url');
  }

  /** The X-Callback-Url of one transaction, or null when callbacks are not configured. */
  private callbackUrl(kind: OperatorKind, ref: string): string | null {
    if (!this.opts.callbackSecret || !this.opts.callbackBaseUrl) return null;
    const base = this.opts.callbackBaseUrl.replace(/\/+$/, '');
    const q = new URLSearchParams({ kind, ref, sig: this.callbackSig(kind, ref) });
    return `${base}/provider-callbacks/mtn?${q.toString()}`;
  }

  // ---- requests and status reads ----

  /**
   * A request with our id's UUID as X-Reference-Id. MTN answers 202 and does the work later, so the
   * answer is `pending`. MTN keeps no idempotency beyond refusing a reused X-Reference-Id (409
   * RESOURCE_ALREADY_EXIST): a retry after a lost answer reads the transaction that id made and
   * answers its status when its terms are ours, OperatorConflictError otherwise.
   */
  private async submit(
    kind: OperatorKind,
    country: Country,
    path: string,
    id: string,
    body: RequestToPayBody | TransferBody | RefundBody,
  ): Promise<OperatorStatus> {
    const product = productOf(kind);
    const ref = toProviderUuid(id);
    const op = `POST ${path}`;
    if (!this.opts.countries[country]?.[product])
      throw new OperatorRejectedError(`mtn: the ${product} product is not configured for MTN ${country}`);
    const callbackUrl = this.callbackUrl(kind, ref);
    const res = await this.call(country, product, 'POST', path, op, {
      body,
      headers: { 'X-Reference-Id': ref, ...(callbackUrl ? { 'X-Callback-Url': callbackUrl } : {}) },
    });
    if (res.status === 202 || res.status === 200 || res.status === 201)
      return { outcome: 'pending', operatorReference: ref, ...this.ussd(kind, country) };
    if (res.status === 409) return this.afterDuplicate(kind, country, id, body);
    const code = errorCode(res);
    // MTN answers some refusals of the request itself with a 500 and a code (or a 404 for a party
    // or original it does not know): a status read that finds nothing under our reference confirms
    // nothing was done; anything else stays ambiguous.
    if ((res.status >= 500 && code && requestRefusalCodes.has(code)) || res.status === 404) {
      const s = await this.read(kind, country, id);
      if (s.outcome === 'unknown')
        throw new OperatorRejectedError(`mtn: ${op} refused (${res.status}${code ? ` ${code}` : ''})`);
      return s;
    }
    this.throwUnavailable(op, res);
    if (res.status === 400 || res.status === 403 || res.status === 422)
      throw new OperatorRejectedError(`mtn: ${op} refused (${res.status}${code ? ` ${code}` : ''})`);
    throw new OperatorUnavailableError(`mtn: ${op} answered ${res.status}`);
  }

  private async afterDuplicate(
    kind: OperatorKind,
    country: Country,
    id: string,
    body: RequestToPayBody | TransferBody | RefundBody,
  ): Promise<OperatorStatus> {
    const found = await this.fetchResult(kind, country, id);
    // MTN said the id exists but does not show it (yet): only a later read can tell.
    if (!found) throw new OperatorUnavailableError(`mtn: ${kind} reference exists but is not readable yet`);
    const partyOf = (r: TransactionResult): string | undefined => {
      const p = r as { payer?: { partyId: string }; payee?: { partyId: string } };
      return (p.payer ?? p.payee)?.partyId;
    };
    const ourParty = 'payer' in body ? body.payer.partyId : 'payee' in body ? body.payee.partyId : undefined;
    const same =
      Number(found.amount) === Number(body.amount) &&
      found.currency === body.currency &&
      (found.externalId === undefined || found.externalId === body.externalId) &&
      (ourParty === undefined || partyOf(found) === undefined || partyOf(found) === ourParty);
    if (!same) throw new OperatorConflictError(`mtn: the ${kind} reference exists with other terms`);
    return this.toStatus(kind, country, id, found);
  }

  private statusOf(
    kind: OperatorKind,
    id: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    if (operator !== 'MTN' || !this.opts.countries[country]?.[productOf(kind)])
      return Promise.reject(
        new OperatorUnavailableError(`mtn: no ${productOf(kind)} for ${operator} ${country}`),
      );
    return this.read(kind, country, id);
  }

  private async read(kind: OperatorKind, country: Country, id: string): Promise<OperatorStatus> {
    const found = await this.fetchResult(kind, country, id);
    if (!found) return { outcome: 'unknown', operatorReference: toProviderUuid(id) };
    return this.toStatus(kind, country, id, found);
  }

  /** The transaction's status body, or null when MTN does not know the reference (404). */
  private async fetchResult(
    kind: OperatorKind,
    country: Country,
    id: string,
  ): Promise<TransactionResult | null> {
    const ref = toProviderUuid(id);
    const path = statusPaths[kind];
    const op = `GET ${path}/{referenceId}`;
    const res = await this.call(country, productOf(kind), 'GET', `${path}/${ref}`, op);
    if (res.status === 404) return null;
    this.throwUnavailable(op, res);
    if (res.status !== 200) throw new OperatorUnavailableError(`mtn: ${op} answered ${res.status}`);
    return kind === 'collection'
      ? this.parse(op, res, requestToPayResult)
      : this.parse(op, res, transferResult);
  }

  private toStatus(kind: OperatorKind, country: Country, id: string, r: TransactionResult): OperatorStatus {
    const ref = toProviderUuid(id);
    const status = r.status.toUpperCase();
    if (pendingStatuses.has(status))
      return { outcome: 'pending', operatorReference: ref, ...this.ussd(kind, country) };
    if (status === 'SUCCESSFUL')
      return { outcome: 'completed', operatorReference: r.financialTransactionId ?? ref };
    if (status === 'FAILED' || finalStatusReasons[status]) {
      const reason = reasonCode(r.reason) ?? finalStatusReasons[status] ?? 'FAILED';
      return {
        outcome: 'failed',
        operatorReference: r.financialTransactionId ?? ref,
        failure: { code: failureCodeOf(kind, reason), message: `MTN ${status} ${reason}` },
      };
    }
    throw new OperatorUnavailableError(`mtn: unknown ${kind} status ${status.slice(0, 40)}`);
  }

  private ussd(kind: OperatorKind, country: Country): { ussdCode?: string } {
    const code = kind === 'collection' ? ussdCodes[country] : undefined;
    return code ? { ussdCode: code } : {};
  }

  // ---- HTTP, tokens ----

  /**
   * One call with the product's token, subscription key and target environment. A 401 drops the
   * cached token and retries once with a new one (MTN's tokens expire, and MTN may revoke early).
   * Timeouts and network errors throw OperatorUnavailableError. `op` names the call in errors: never
   * the path, which may hold a phone number.
   */
  private async call(
    country: Country,
    product: MtnProduct,
    method: 'GET' | 'POST',
    path: string,
    op: string,
    extra: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const c = this.opts.countries[country];
    const creds = c?.[product];
    if (!c || !creds)
      throw new OperatorUnavailableError(`mtn: the ${product} product is not configured for MTN ${country}`);
    for (let attempt = 0; ; attempt++) {
      const token = await this.token(country, product, creds);
      const res = await this.http(
        method,
        path,
        op,
        {
          Authorization: `Bearer ${token}`,
          'Ocp-Apim-Subscription-Key': creds.subscriptionKey,
          'X-Target-Environment': c.targetEnvironment,
          ...(extra.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...extra.headers,
        },
        extra.body,
      );
      if (res.status !== 401) return res;
      this.tokens.delete(`${country}:${product}`);
      if (attempt >= 1)
        throw new OperatorUnavailableError(`mtn: ${op} unauthorized after a new token (check credentials)`);
    }
  }

  /** The cached token of a product, or a new one (one request at a time per product). */
  private async token(country: Country, product: MtnProduct, creds: MtnCredentials): Promise<string> {
    const key = `${country}:${product}`;
    const cached = this.tokens.get(key);
    if (cached && cached.refreshAt > Date.now()) return cached.value;
    const pending = this.pendingTokens.get(key);
    if (pending) return pending;
    const p = (async () => {
      const op = `POST /${product}/token/`;
      const res = await this.http('POST', `/${product}/token/`, op, {
        Authorization: `Basic ${Buffer.from(`${creds.apiUser}:${creds.apiKey}`).toString('base64')}`,
        'Ocp-Apim-Subscription-Key': creds.subscriptionKey,
      });
      if (res.status !== 200)
        throw new OperatorUnavailableError(
          `mtn: ${op} answered ${res.status}${errorCode(res) ? ` ${errorCode(res)}` : ''}`,
        );
      const t = this.parse(op, res, tokenAnswer);
      // Refresh a minute early (or at half-life for short tokens) so a call never carries a token
      // that expires on the way.
      const lifeMs = t.expires_in * 1000;
      this.tokens.set(key, {
        value: t.access_token,
        refreshAt: Date.now() + Math.max(lifeMs / 2, lifeMs - 60_000),
      });
      return t.access_token;
    })();
    this.pendingTokens.set(key, p);
    try {
      return await p;
    } finally {
      this.pendingTokens.delete(key);
    }
  }

  private async http(
    method: 'GET' | 'POST',
    path: string,
    op: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Answer> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const what = (err as Error).name === 'TimeoutError' ? 'timed out' : 'network error';
      throw new OperatorUnavailableError(`mtn: ${op} ${what}`);
    }
    let json: unknown;
    try {
      const text = await res.text();
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }

  /** 5xx and 429: MTN did not answer the request, retry it with the same reference. */
  private throwUnavailable(op: string, res: Answer): void {
    if (res.status >= 500 || res.status === 429) {
      const code = errorCode(res);
      throw new OperatorUnavailableError(`mtn: ${op} answered ${res.status}${code ? ` ${code}` : ''}`);
    }
  }

  private parse<T extends z.ZodType>(op: string, res: Answer, schema: T): z.infer<T> {
    const parsed = schema.safeParse(res.json);
    if (!parsed.success) throw new OperatorUnavailableError(`mtn: unreadable answer to ${op}`);
    return parsed.data;
  }

  /**
   * MTN's sandbox (X-Target-Environment `sandbox`) takes EUR only: there the amount is sent as is
   * in EUR, so the connector can be tried against MTN's own sandbox. Everywhere else, the country's
   * currency.
   */
  private wireCurrency(country: Country, currency: string): string {
    return this.opts.countries[country]?.targetEnvironment === 'sandbox' ? 'EUR' : currency;
  }

  private checkServed(operator: OperatorCode, country: Country, currency: string): void {
    if (operator !== 'MTN' || !this.opts.countries[country])
      throw new OperatorRejectedError(`mtn: does not serve ${operator} ${country}`);
    if (currency !== currencyByCountry[country])
      throw new OperatorRejectedError(
        `mtn: MTN ${country} takes ${currencyByCountry[country]}, not ${currency}`,
      );
  }

  /** Integer minor units → MTN's string of major units ("5000" XOF; "12.50" EUR). */
  private major(amount: number, currency: string): string {
    const d = currencyDecimals[currency];
    if (d === undefined || !Number.isSafeInteger(amount) || amount <= 0)
      throw new OperatorRejectedError(`mtn: cannot write the amount in ${currency}`);
    if (d === 0) return String(amount);
    const s = String(amount).padStart(d + 1, '0');
    return `${s.slice(0, -d)}.${s.slice(-d)}`;
  }
}

const statusPaths: Record<OperatorKind, string> = {
  collection: '/collection/v1_0/requesttopay',
  disbursement: '/disbursement/v1_0/transfer',
  refund: '/disbursement/v1_0/refund',
};

function productOf(kind: OperatorKind): MtnProduct {
  return kind === 'collection' ? 'collection' : 'disbursement';
}

/** E.164 `+2250500000001` → MTN's MSISDN party id `2250500000001` (country code, no plus). */
function partyIdOf(msisdn: string): string {
  return msisdn.replace(/^\+/, '');
}

function errorCode(res: Answer): string | undefined {
  const e = mtnError.safeParse(res.json);
  const code = e.success ? e.data.code : undefined;
  return code && /^[A-Z0-9_ ]{1,64}$/.test(code) ? code : undefined;
}

function reasonCode(reason: TransactionResult['reason']): string | undefined {
  const raw = typeof reason === 'string' ? reason : reason?.code;
  if (!raw) return undefined;
  // "NOT ENOUGH_FUNDS" appears in MTN's own notes: normalise spaces to underscores.
  const code = raw
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  return /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
}

/**
 * MTN's reason → our failure code: mapped ones by table, refusals of our request as
 * OPERATOR_REJECTED, any other as `MTN_<REASON>` (not a definitive code: a payin goes through the
 * partner check, which for MTN is one more status read).
 */
export function failureCodeOf(kind: OperatorKind, reason: string): string {
  const table = kind === 'collection' ? collectionReasons : disbursementReasons;
  if (table[reason]) return table[reason];
  if (refusalReasons.has(reason)) return operatorFailureCodes.rejected;
  return `MTN_${reason}`;
}
