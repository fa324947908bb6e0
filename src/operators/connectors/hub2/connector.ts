// Hub2 (hub2.io), an aggregator: the second route of Orange CI, Orange CM and Moov CI (issue 43).
// Payins are a PaymentIntent then one mobile-money Payment attempt on it; payouts are Transfers;
// a payin is refunded by a Transfer to its payer. Documentation followed (docs.hub2.io, API
// reference "Hub2 Service · Api" 2.149.1 and the integration guides):
//   - Authentication: headers `ApiKey`, `MerchantId`, `Environment` (live|sandbox) on every call.
//   - "Create a PaymentIntent object" (POST /payment-intents: customerReference, purchaseReference,
//     amount, currency, overrideBusinessName) answering `id` and `token` ("please do save" both);
//     "Attempt a payment on a PaymentIntent object" (POST /payment-intents/{id}/payments: token,
//     paymentMethod, country, provider, mobileMoney); "more than one payment may be attempted for
//     one PaymentIntent"; GET /payment-intents/{id}; "Orange CI & OTP" (send the OTP with the
//     attempt); payment failure causes.
//   - "Create a transfer" (POST /transfers: reference, amount, currency, description, destination
//     {type mobile_money, country, recipientName, msisdn, provider}); GET /transfers?reference=;
//     transfer failure causes.
//   - Webhooks: `Hub2-Signature: s1=<hex>,s0=<hex>`, HMAC-SHA256 of the raw body with the webhook's
//     secret (s1) and, for 24 h after a rotation, with the old one (s0).
//   - Error management: the standardized body `{status, code, message, request_id}`; 429 when rate
//     limited. Amount policies (documentation/en/policies).
// Hub2 documents no idempotency key, so this connector keeps a journal in our store: see
// docs/connectors/hub2.md and docs/decisions/operators/hub2-connector.md.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { providerName, type Country, type OperatorCode } from '../../../domain/operators';
import {
  OperatorNotTakenError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type CustomerText,
  type DisbursementRequest,
  type OperatorKind,
  type OperatorStatement,
  type OperatorStatus,
  type PartnerCheckResult,
  type RefundRequest,
} from '../../gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type ConnectorRules,
  type IncomingCallback,
  type VerifiedCallback,
} from '../connector';
import { customerLabel, type TextLimits } from '../customer-text';
import { answersOf, exchange, type ProviderAnswer } from '../provider-http';
import {
  createdIntent,
  hub2Error,
  paymentIntent,
  transfer,
  transferList,
  webhookEvent,
  type Payment,
  type PaymentIntent,
  type Transfer,
} from './wire';

/**
 * One entry of the connector's journal, under a unique key: `collection:<our id>` (the payin's
 * intent and its token), `collection:<our id>:attempt`, `disbursement:<our id>`, `refund:<our id>`
 * (markers: the request was sent, or is being sent).
 */
export interface Hub2JournalEntry {
  key: string;
  intentId?: string;
  token?: string;
}

/** What the connector keeps in our store, because Hub2 keeps no idempotency key of ours. */
export interface Hub2Journal {
  /** Inserts the entry once; a second insert of the key answers the entry stored first. */
  insertOnce(entry: Hub2JournalEntry): Promise<{ created: boolean; entry: Hub2JournalEntry }>;
  find(key: string): Promise<Hub2JournalEntry | null>;
  /** Forgets a marker whose request certainly did not reach Hub2 (connection refused, key refused). */
  remove(key: string): Promise<void>;
}

export interface Hub2ConnectorOptions {
  baseUrl: string;
  apiKey: string;
  merchantId: string;
  environment: 'live' | 'sandbox';
  webhookSecret: string | null;
  /** `overrideBusinessName` when the merchant has no name of its own. */
  businessName: string | null;
  timeoutMs: number;
  journal: Hub2Journal;
  payerOfRefund: ((refundId: string) => Promise<string | null>) | null;
}

/** Amounts Hub2 takes, minor units, inclusive (documentation/en/policies). */
interface Limits {
  min: number;
  max: number;
  multiple?: number;
}

/** What Hub2 calls each pair we route to it: lowercase provider and ISO country. */
interface Hub2Pair {
  provider: string;
  currency: 'XOF' | 'XAF';
  /** Payin limits, where the policies state them (CI's show "-"). */
  payin?: Limits;
  /** Payout limits (refunds are transfers too). */
  payout: Limits;
}

/**
 * The three pairs Hub2 is the second route of. `orange` is quoted verbatim in Hub2's transfer
 * guide; `moov` follows its "lowercase" rule. MTN and Wave, which Hub2 also carries, are left out:
 * their own APIs already give them a second route, and their Hub2 codes are not quoted.
 */
const pairs: Partial<Record<string, Hub2Pair>> = {
  ORANGE_CI: { provider: 'orange', currency: 'XOF', payout: { min: 200, max: 1_500_000, multiple: 5 } },
  MOOV_CI: { provider: 'moov', currency: 'XOF', payout: { min: 500, max: 2_000_000, multiple: 5 } },
  ORANGE_CM: {
    provider: 'orange',
    currency: 'XAF',
    payin: { min: 500, max: 500_000 },
    payout: { min: 500, max: 500_000, multiple: 5 },
  },
};

/** Our operator-facing ids, as Hub2's references carry them (they fit its character set). */
const ourId = /^(pr|rf)_[0-9a-f]{24}$/;

/** Hub2's references: letters, numbers, hyphen, underscore, dot, space. */
const referenceLimits: TextLimits = { max: 64, allowed: /[A-Za-z0-9\-_. ]/ };
const businessNameLimits: TextLimits = { max: 50, allowed: /[A-Za-z0-9\-_.,'& ]/ };
const descriptionLimits: TextLimits = { max: 100, allowed: /[A-Za-z0-9\-_.,'& ]/ };

/** How long a webhook's receipt is kept: Hub2's signature has no timestamp; 24 h is its rotation window. */
const replayWindowSec = 24 * 3600;

/** Hub2's payment failure causes → ours; any other becomes its upper-case form. */
const paymentCauses: Record<string, string> = {
  customer_insufficient_funds: 'INSUFFICIENT_FUNDS',
  customer_account_locked: 'PAYER_DECLINED',
  authentication_failed: 'OTP_INVALID',
  authentication_timeout: 'EXPIRED',
  timeout: 'EXPIRED',
  canceled_by_customer: 'DECLINED_BY_CUSTOMER',
  payer_quota_exceeded: 'PAYER_LIMIT_REACHED',
  invalid_msisdn: 'INVALID_MSISDN',
};

/** Hub2's transfer failure causes → ours; any other becomes its upper-case form. */
const transferCauses: Record<string, string> = {
  invalid_destination: 'INVALID_MSISDN',
  destination_not_allowed: 'PAYEE_REJECTED',
  blacklisted_msisdn: 'PAYEE_REJECTED',
};

const unknown: OperatorStatus = { outcome: 'unknown', operatorReference: '' };

/** Hub2's answers: errors by status, bodies by their documented schema. */
const answers = answersOf('hub2', errorCodeOf);

export class Hub2Connector implements Connector {
  readonly name = 'hub2' as const;
  readonly serves = [
    { operator: 'ORANGE' as OperatorCode, country: 'CI' as Country },
    { operator: 'ORANGE' as OperatorCode, country: 'CM' as Country },
    { operator: 'MOOV' as OperatorCode, country: 'CI' as Country },
  ];
  private readonly baseUrl: string;

  constructor(private readonly opts: Hub2ConnectorOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
  }

  /**
   * A refund is a transfer, with the pair's payout limits: the API refuses another amount when the
   * refund is asked, not after its 201 (docs/decisions/operators/provider-rules-checked-at-request.md).
   */
  rulesFor(
    operator: OperatorCode,
    country: Country,
    operation: 'payin' | 'payout' | 'refund',
  ): ConnectorRules {
    const limits = pairs[providerName(operator, country)]?.payout;
    if (operation !== 'refund' || !limits) return {};
    return {
      refundAmounts: {
        min: limits.min,
        max: limits.max,
        ...(limits.multiple ? { multipleOf: limits.multiple } : {}),
      },
    };
  }

  // ---- payins: one PaymentIntent, one Payment attempt on it ----

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    const pair = this.pairOf(req.operator, req.country, req.currency);
    checkAmount(pair.payin, req.amount, 'payins');
    const key = `collection:${req.transactionId}`;
    const intent =
      (await this.journal(() => this.opts.journal.find(key))) ?? (await this.createIntent(req, key));
    if (!intent.intentId || !intent.token)
      throw new OperatorUnavailableError('hub2: journal entry unreadable');
    // Never a second attempt on one intent: the marker is inserted once, before the attempt leaves.
    // A retry finds it and reads the status instead (the attempt may have reached Hub2 unanswered).
    const attemptKey = `${key}:attempt`;
    const marker = await this.journal(() => this.opts.journal.insertOnce({ key: attemptKey }));
    if (!marker.created) return this.afterEarlierSend(await this.collectionStatus(req.transactionId));
    const where = 'POST /payment-intents/:id/payments';
    const body = {
      token: intent.token,
      paymentMethod: 'mobile_money',
      country: req.country,
      provider: pair.provider,
      // Orange CI asks the customer's OTP: Hub2's good practice is to send it with the attempt.
      mobileMoney: { msisdn: e164(req.msisdn), ...(req.otp ? { otp: req.otp } : {}) },
    };
    const res = await this.send(
      attemptKey,
      `/payment-intents/${encodeURIComponent(intent.intentId)}/payments`,
      body,
    );
    answers.refuse(where, res);
    return intentStatus(answers.parse(where, res, paymentIntent));
  }

  /**
   * The intent of a payin, created once: a retry that created a second intent (its first answer
   * lost) finds the first in the journal and uses it; the second is abandoned, and an intent
   * without an attempt charges no one.
   */
  private async createIntent(req: CollectionRequest, key: string): Promise<Hub2JournalEntry> {
    const where = 'POST /payment-intents';
    const businessName = this.businessName(req.customerText);
    const body = {
      customerReference:
        customerLabel(
          req.customerText && { merchant: null, reference: req.customerText.reference },
          referenceLimits,
        ) ?? req.transactionId,
      purchaseReference: req.transactionId,
      amount: req.amount,
      currency: req.currency,
      ...(businessName ? { overrideBusinessName: businessName } : {}),
    };
    const res = await this.call('POST', '/payment-intents', body);
    answers.refuse(where, res);
    const created = answers.parse(where, res, createdIntent);
    const { entry } = await this.journal(() =>
      this.opts.journal.insertOnce({ key, intentId: created.id, token: created.token }),
    );
    return entry;
  }

  /**
   * By our id: without the journal's intent or attempt marker nothing was ever attempted (we attempt
   * only after both are written), so Hub2 cannot hold a payment of ours: `unknown`.
   */
  async collectionStatus(transactionId: string): Promise<OperatorStatus> {
    const key = `collection:${transactionId}`;
    const intent = await this.journal(() => this.opts.journal.find(key));
    if (!intent?.intentId) return unknown;
    if (!(await this.journal(() => this.opts.journal.find(`${key}:attempt`)))) return unknown;
    const where = 'GET /payment-intents/:id';
    const res = await this.call('GET', `/payment-intents/${encodeURIComponent(intent.intentId)}`);
    if (res.status === 404) return unknown;
    answers.read(where, res);
    return intentStatus(answers.parse(where, res, paymentIntent));
  }

  async partnerCheck(transactionId: string): Promise<PartnerCheckResult> {
    const s = await this.collectionStatus(transactionId);
    return {
      collected: s.outcome === 'completed',
      ...(s.operatorReference ? { operatorReference: s.operatorReference } : {}),
    };
  }

  // ---- payouts: transfers ----

  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    const pair = this.pairOf(req.operator, req.country, req.currency);
    checkAmount(pair.payout, req.amount, 'payouts');
    return this.sendTransfer('disbursement', req.transactionId, pair, req, req.msisdn);
  }

  disbursementStatus(transactionId: string): Promise<OperatorStatus> {
    return this.transferStatus(transactionId);
  }

  // ---- refunds: a transfer to the payin's payer ----

  /**
   * Hub2 documents no refund of a payin (its refunds are of its own transfers): the customer is
   * credited by a transfer to the number that paid, with our refund id as its reference.
   */
  async refund(req: RefundRequest): Promise<OperatorStatus> {
    const pair = this.pairOf(req.operator, req.country, req.currency);
    checkAmount(pair.payout, req.amount, 'refunds');
    // Pays out money: only for a payin Hub2 says it collected.
    const payin = await this.collectionStatus(req.transactionId);
    if (payin.outcome !== 'completed') throw new OperatorRejectedError('hub2: no completed payin to refund');
    const payer = this.opts.payerOfRefund ? await this.opts.payerOfRefund(req.refundId) : null;
    if (!payer) throw new OperatorUnavailableError('hub2: the refund’s payer is not known (yet)');
    return this.sendTransfer('refund', req.refundId, pair, req, payer);
  }

  refundStatus(refundId: string): Promise<OperatorStatus> {
    return this.transferStatus(refundId);
  }

  // ---- cancel, statements ----

  /**
   * Hub2 publishes no cancellation: the answer is the transaction's current status, which confirms
   * a cancellation only if it is already failed (and then not with CANCELLED: nothing of ours was).
   */
  cancel(kind: OperatorKind, id: string): Promise<OperatorStatus> {
    if (kind === 'collection') return this.collectionStatus(id);
    return this.transferStatus(id);
  }

  /** GET /payments and /transfers list by dates, but their filters are not documented enough to reconcile a day. */
  statement(): Promise<OperatorStatement> {
    return Promise.reject(new StatementsNotOfferedError('hub2: no statement through this connector'));
  }

  // ---- webhooks ----

  async verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> {
    const secret = this.opts.webhookSecret;
    const header = cb.headers['hub2-signature'];
    if (!secret || !header || cb.method.toUpperCase() !== 'POST') return null;
    const expected = createHmac('sha256', secret).update(cb.rawBody).digest();
    // s1 is signed with the current secret, s0 with the old one during a rotation: ours may be either.
    const signed = header.split(',').some((part) => {
      const eq = part.indexOf('=');
      const key = part.slice(0, eq).trim();
      const value = part
        .slice(eq + 1)
        .trim()
        .toLowerCase();
      return (
        eq > 0 &&
        (key === 's1' || key === 's0') &&
        /^[0-9a-f]{64}$/.test(value) &&
        timingSafeEqual(Buffer.from(value, 'hex'), expected)
      );
    });
    if (!signed) return null;
    let event: z.infer<typeof webhookEvent>;
    try {
      event = webhookEvent.parse(JSON.parse(cb.rawBody.toString('utf8')));
    } catch {
      return null;
    }
    const type = event.type ?? event.event ?? '';
    let kind: OperatorKind;
    let id: string | null | undefined;
    if (type.startsWith('transfer')) {
      id = event.data.reference;
      kind = id?.startsWith('rf_') ? 'refund' : 'disbursement';
    } else if (type.startsWith('payment')) {
      id = event.data.purchaseReference;
      kind = 'collection';
    } else return null;
    if (!id || !ourId.test(id) || (kind === 'collection' && !id.startsWith('pr_'))) return null;
    // Hub2's signature carries no timestamp: a replay is kept off for a day (the door's receipt).
    const acceptedUntil = Math.floor(Date.now() / 1000) + replayWindowSec;
    return { kind, id, signed: { content: cb.rawBody, acceptedUntil } };
  }

  // ---- transfers (payouts and refunds) ----

  /**
   * One transfer per id: the marker is inserted once before the POST; a retry finds it and reads
   * the transfer by its reference instead (Hub2 documents no idempotency for a reference).
   */
  private async sendTransfer(
    kind: 'disbursement' | 'refund',
    id: string,
    pair: Hub2Pair,
    req: { country: Country; amount: number; currency: string; customerText?: CustomerText },
    msisdn: string,
  ): Promise<OperatorStatus> {
    const key = `${kind}:${id}`;
    const marker = await this.journal(() => this.opts.journal.insertOnce({ key }));
    if (!marker.created) return this.afterEarlierSend(await this.transferStatus(id));
    const where = 'POST /transfers';
    const businessName = this.businessName(req.customerText);
    const body = {
      reference: id,
      amount: req.amount,
      currency: req.currency,
      description:
        customerLabel(req.customerText, descriptionLimits) ?? (kind === 'refund' ? 'Refund' : 'Payout'),
      destination: {
        type: 'mobile_money',
        country: req.country,
        msisdn: e164(msisdn),
        provider: pair.provider,
      },
      ...(businessName ? { overrideBusinessName: businessName } : {}),
    };
    const res = await this.send(key, '/transfers', body);
    answers.refuse(where, res);
    return transferStatusOf(answers.parse(where, res, transfer));
  }

  /**
   * `GET /transfers?reference=<our id>`: an empty list is Hub2's word that it holds no transfer
   * with our reference (`unknown`). A list holding another reference means the filter was not
   * applied (a page of everything): that proves nothing, so it is no answer.
   */
  private async transferStatus(id: string): Promise<OperatorStatus> {
    const where = 'GET /transfers';
    const res = await this.call('GET', `/transfers?reference=${encodeURIComponent(id)}`);
    answers.read(where, res);
    const list = answers.parse(where, res, transferList);
    if (list.some((t) => t.reference !== id))
      throw new OperatorUnavailableError(`hub2 ${where}: the reference filter was not applied`);
    const t = list.find((x) => x.status !== 'failed') ?? list.at(-1);
    return t ? transferStatusOf(t) : unknown;
  }

  // ---- helpers ----

  private pairOf(operator: OperatorCode, country: Country, currency: string): Hub2Pair {
    const pair = pairs[providerName(operator, country)];
    if (!pair || pair.currency !== currency)
      throw new OperatorRejectedError('hub2: serves ORANGE CI, MOOV CI (XOF) and ORANGE CM (XAF) only');
    return pair;
  }

  private businessName(text: CustomerText | undefined): string | null {
    const merchant = text?.merchant
      ? customerLabel({ merchant: null, reference: text.merchant }, businessNameLimits)
      : null;
    return merchant ?? this.opts.businessName;
  }

  /**
   * A request sent before (its marker found): what Hub2 says of it now. Not seen there (yet) is no
   * answer: the earlier send may still land, so it is never sent again.
   */
  private afterEarlierSend(s: OperatorStatus): OperatorStatus {
    if (s.outcome === 'unknown')
      throw new OperatorUnavailableError('hub2: sent before and not seen at Hub2 (yet); never sent twice');
    return s;
  }

  /**
   * Sends a request guarded by its journal marker. When it certainly did not reach Hub2 (the
   * connection was refused, or Hub2 refused our key before doing anything) the marker goes, so a
   * retry may send it; in every other case it stays, and a retry reads instead.
   */
  private async send(markerKey: string, path: string, body: unknown): Promise<ProviderAnswer> {
    let res: ProviderAnswer;
    try {
      res = await this.call('POST', path, body);
    } catch (err) {
      if (err instanceof OperatorNotTakenError) await this.journal(() => this.opts.journal.remove(markerKey));
      throw err;
    }
    if (res.status === 401 || res.status === 403)
      await this.journal(() => this.opts.journal.remove(markerKey));
    return res;
  }

  /** The journal is our store: its failure is an outage (retried), never an answer. */
  private async journal<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch {
      throw new OperatorUnavailableError('hub2: journal unavailable');
    }
  }

  private call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ProviderAnswer> {
    const where = `${method} ${path.split('?')[0]!.replace(/\/(pi|tr)_[^/]+/, '/:id')}`;
    return exchange(
      'hub2',
      where,
      `${this.baseUrl}${path}`,
      {
        method,
        headers: {
          ApiKey: this.opts.apiKey,
          MerchantId: this.opts.merchantId,
          Environment: this.opts.environment,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      this.opts.timeoutMs,
    );
  }
}

/** Hub2's published limits, checked before anything is sent: outside them, Hub2 would refuse. */
function checkAmount(limits: Limits | undefined, amount: number, what: string): void {
  if (!limits) return;
  if (amount < limits.min || amount > limits.max || (limits.multiple && amount % limits.multiple !== 0))
    throw new OperatorRejectedError(`hub2: the amount is outside Hub2's published limits for ${what}`);
}

/** E.164 with its `+`, as Hub2's transfer guide writes numbers. */
const e164 = (msisdn: string) => (msisdn.startsWith('+') ? msisdn : `+${msisdn}`);

/** Hub2's error code (`code` of the standardized body), when it is a short word. */
function errorCodeOf(json: unknown): string {
  const parsed = hub2Error.safeParse(json);
  const code = parsed.success ? parsed.data.code : undefined;
  return code && /^[A-Za-z0-9_ .-]{1,64}$/.test(code) ? code : 'unknown-error';
}

const upper = (cause: string) => cause.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/** A PaymentIntent's state is its last Payment's: none yet is `unknown` (nothing attempted there). */
function intentStatus(pi: PaymentIntent): OperatorStatus {
  const p: Payment | undefined = pi.payments.at(-1);
  if (!p) return unknown;
  switch (p.status) {
    case 'successful':
      return { outcome: 'completed', operatorReference: p.id };
    case 'failed':
    case 'cancelled':
    case 'canceled':
    case 'expired': {
      const cause = p.failureCause ?? (p.status === 'failed' ? 'unknown_reason' : p.status);
      const code = paymentCauses[cause] ?? upper(cause);
      return { outcome: 'failed', operatorReference: p.id, failure: { code, message: `Hub2: ${cause}` } };
    }
    default:
      return { outcome: 'pending', operatorReference: p.id };
  }
}

function transferStatusOf(t: Transfer): OperatorStatus {
  switch (t.status) {
    case 'successful':
      return { outcome: 'completed', operatorReference: t.id };
    case 'failed':
    case 'cancelled':
    case 'canceled': {
      const cause = t.failureCause ?? (t.status === 'failed' ? 'unknown_reason' : 'canceled');
      const code = transferCauses[cause] ?? upper(cause);
      return { outcome: 'failed', operatorReference: t.id, failure: { code, message: `Hub2: ${cause}` } };
    }
    default:
      return { outcome: 'pending', operatorReference: t.id };
  }
}
