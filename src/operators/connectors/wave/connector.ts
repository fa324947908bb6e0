// Wave (Côte d'Ivoire, XOF) direct: payins through the Checkout API, refunds as checkout-session
// refunds, payouts through the Payout API. Documentation followed (docs.wave.com):
//   - "Checkout API" https://docs.wave.com/checkout — Authentication (Bearer API key), "Create a
//     checkout session" (POST /v1/checkout/sessions: amount, currency, client_reference,
//     success_url, error_url, restrict_payer_mobile; Idempotency-Key header), "The checkout
//     session object" (checkout_status open|complete|expired, payment_status processing|succeeded|
//     cancelled, last_payment_error, wave_launch_url, transaction_id), "Retrieve a checkout"
//     (GET /v1/checkout/sessions/:id), "Search checkouts" (GET /v1/checkout/sessions/search?
//     client_reference=), "Expire a checkout" (POST /v1/checkout/sessions/:id/expire), "Refund a
//     checkout" (POST /v1/checkout/sessions/:id/refund: the whole amount, no body), "Errors".
//   - "Payout API" https://docs.wave.com/payout — "Send a payout" (POST /v1/payout with the
//     required idempotency-key header: currency, receive_amount, mobile, client_reference),
//     "The payout object" (status processing|succeeded|failed|reversed, payout_error),
//     "Retrieve a payout" (GET /v1/payout/:id), "Search payouts" (GET /v1/payouts/search?
//     client_reference=), "Reverse a payout" (POST /v1/payout/:id/reverse), "Idempotency".
//   - "Webhooks" https://docs.wave.com/webhook — "The event object", events
//     checkout.session.completed / checkout.session.payment_failed, "Webhook security":
//     signing secret, header `Wave-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, the v1 being
//     HMAC-SHA256(secret, t + raw body).
// What the docs leave unclear, and how this connector reads it: docs/connectors/wave.md.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import type { Country, OperatorCode } from '../../../domain/operators';
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
} from '../../gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type ConnectorRules,
  type IncomingCallback,
  type VerifiedCallback,
} from '../connector';
import { answersOf, exchange, type ProviderAnswer } from '../provider-http';
import {
  checkoutSession,
  payout,
  payoutSearch,
  sessionSearch,
  waveError,
  webhookEvent,
  type CheckoutSession,
  type Payout,
} from './wire';

export interface WaveConnectorOptions {
  baseUrl: string;
  checkoutApiKey: string;
  payoutApiKey: string;
  webhookSecret: string | null;
  /** Configured defaults for the customer's return, when a payin names none. */
  successUrl: string | null;
  errorUrl: string | null;
  timeoutMs: number;
  refundOrigin: ((refundId: string) => Promise<string | null>) | null;
  /** Our hosted checkout page of a session, where its customer returns (null: none in https). */
  checkoutPage: ((transactionId: string) => string | null) | null;
  webhookToleranceSeconds: number;
}

/** Our operator-facing ids: Wave's client_reference and idempotency keys carry them as they are. */
const ourPayinId = /^pr_[0-9a-f]{24}$/;

/**
 * Wave's last_payment_error codes → ours. They only count once the session has expired (until
 * then the customer may try again): by then Wave says nothing was paid, so each is definitive.
 */
const paymentErrorCodes: Record<string, string> = {
  'insufficient-funds': 'INSUFFICIENT_FUNDS',
  'payer-mobile-mismatch': 'INVALID_MSISDN',
  'blocked-account': 'PAYER_DECLINED',
  'customer-age-limit-exceeded': 'PAYER_DECLINED',
  'kyb-limit-exceeded': 'PAYER_DECLINED',
  'cross-border-payment-not-allowed': 'PAYER_DECLINED',
  'payer-limit-exceeded': 'PAYER_DECLINED',
};

/** Wave's payout_error codes → ours; any other becomes its upper-case form (WAVE's word, final). */
const payoutErrorCodes: Record<string, string> = {
  'insufficient-funds': 'INSUFFICIENT_FUNDS',
  'recipient-limit-exceeded': 'PAYEE_REJECTED',
  'blocked-account': 'PAYEE_REJECTED',
  'name-mismatch': 'PAYEE_REJECTED',
  'national-id-mismatch': 'PAYEE_REJECTED',
  'invalid-mobile': 'INVALID_MSISDN',
};

type Answer = ProviderAnswer;

/** Wave's answers: errors by status, bodies by their documented schema. */
const answers = answersOf('wave', errorCodeOf);

export class WaveConnector implements Connector {
  readonly name = 'wave' as const;
  readonly serves = [{ operator: 'WAVE' as OperatorCode, country: 'CI' as Country }];
  /**
   * Wave redirects the customer only to https addresses (success_url, error_url), and its checkout
   * refund returns the whole payment (no amount): both are refused when the request arrives.
   */
  readonly rules: ConnectorRules = { httpsReturnUrls: true, fullRefundsOnly: true };
  readonly sessionRefusal: string | null;
  private readonly baseUrl: string;

  constructor(private readonly opts: WaveConnectorOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    // A session names no URL of its own: without an https place to return to, Wave would refuse
    // every one after its customer confirmed.
    this.sessionRefusal =
      opts.checkoutPage || (opts.successUrl && opts.errorUrl)
        ? null
        : "a payin session's customer must come back from Wave's page to an https address: set an https PUBLIC_BASE_URL, or WAVE_SUCCESS_URL and WAVE_ERROR_URL";
  }

  // ---- payins: checkout sessions ----

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    // A direct payin names its URLs (the API made sure they are https); a session names none: its
    // customer comes back to our checkout page, which leaves for the merchant's URLs; else the
    // configured defaults.
    const page =
      req.successUrl || req.failureUrl ? null : (this.opts.checkoutPage?.(req.transactionId) ?? null);
    const successUrl = req.successUrl ?? page ?? this.opts.successUrl;
    const errorUrl = req.failureUrl ?? page ?? this.opts.errorUrl;
    if (!successUrl || !errorUrl)
      throw new OperatorRejectedError('wave: a checkout needs success and error URLs (none configured)');
    // A retry after a lost answer finds the session the first attempt made (client_reference is
    // our id), whether or not Wave still holds the Idempotency-Key.
    const existing = await this.sessionOf(req.transactionId);
    if (existing) {
      if (Number(existing.amount) !== req.amount || existing.currency !== req.currency)
        throw new OperatorConflictError(
          'wave: a checkout session with this client_reference has other terms',
        );
      return this.sessionStatus(existing);
    }
    const body = {
      amount: String(req.amount),
      currency: req.currency,
      client_reference: req.transactionId,
      success_url: successUrl,
      error_url: errorUrl,
      // Only the payin's customer can pay the session (Wave refuses another payer).
      restrict_payer_mobile: req.msisdn,
    };
    const res = await this.call('POST', '/v1/checkout/sessions', this.opts.checkoutApiKey, {
      body,
      idempotencyKey: req.transactionId,
    });
    answers.refuse('POST /v1/checkout/sessions', res);
    return this.sessionStatus(answers.parse('POST /v1/checkout/sessions', res, checkoutSession));
  }

  async collectionStatus(transactionId: string): Promise<OperatorStatus> {
    const s = await this.sessionOf(transactionId);
    return s ? this.sessionStatus(s) : { outcome: 'unknown', operatorReference: '' };
  }

  async partnerCheck(transactionId: string): Promise<PartnerCheckResult> {
    const s = await this.collectionStatus(transactionId);
    return {
      collected: s.outcome === 'completed',
      ...(s.operatorReference ? { operatorReference: s.operatorReference } : {}),
    };
  }

  // ---- payouts ----

  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    const existing = await this.payoutOf(req.transactionId);
    if (existing) {
      if (Number(existing.receive_amount) !== req.amount || existing.currency !== req.currency)
        throw new OperatorConflictError('wave: a payout with this client_reference has other terms');
      return payoutStatus(existing);
    }
    const body = {
      currency: req.currency,
      receive_amount: String(req.amount),
      mobile: req.msisdn,
      client_reference: req.transactionId,
    };
    const res = await this.call('POST', '/v1/payout', this.opts.payoutApiKey, {
      body,
      idempotencyKey: req.transactionId,
    });
    answers.refuse('POST /v1/payout', res);
    return payoutStatus(answers.parse('POST /v1/payout', res, payout));
  }

  async disbursementStatus(transactionId: string): Promise<OperatorStatus> {
    const p = await this.payoutOf(transactionId);
    return p ? payoutStatus(p) : { outcome: 'unknown', operatorReference: '' };
  }

  /**
   * Takes a completed payout back from the recipient (Wave: "Reverse a payout", within its time
   * limit and if the recipient still holds the money). Not the gateway's cancel (which is for what
   * is not settled yet): an ops tool, answering the payout's status after the attempt.
   */
  async reversePayout(transactionId: string): Promise<OperatorStatus> {
    const p = await this.payoutOf(transactionId);
    if (!p) return { outcome: 'unknown', operatorReference: '' };
    if (p.status === 'succeeded') {
      const where = 'POST /v1/payout/:id/reverse';
      const res = await this.call(
        'POST',
        `/v1/payout/${encodeURIComponent(p.id)}/reverse`,
        this.opts.payoutApiKey,
      );
      answers.refuse(where, res);
    }
    return this.disbursementStatus(transactionId);
  }

  // ---- refunds: a checkout session refunded in full ----

  async refund(req: RefundRequest): Promise<OperatorStatus> {
    this.checkServed(req.operator, req.country, req.currency);
    const s = await this.sessionOf(req.transactionId);
    if (!s || s.checkout_status !== 'complete')
      throw new OperatorRejectedError('wave: no completed checkout session to refund');
    // Wave's checkout refund has no amount: it returns the whole payment.
    if (Number(s.amount) !== req.amount)
      throw new OperatorRejectedError('wave: a checkout is refunded in full only');
    if (s.payment_status === 'refunded') return refundStatusOf(s);
    if (s.payment_status !== 'succeeded') throw new OperatorRejectedError('wave: the checkout was not paid');
    // Refunding a session twice makes no second refund (Wave answers 200 again), so a retry after
    // a lost answer simply asks again: that is how a refund's outcome is known for sure.
    const where = 'POST /v1/checkout/sessions/:id/refund';
    const res = await this.call(
      'POST',
      `/v1/checkout/sessions/${encodeURIComponent(s.id)}/refund`,
      this.opts.checkoutApiKey,
    );
    answers.refuse(where, res);
    // A 200 is Wave's word that the refund was made (it answers no refund object to poll).
    return { outcome: 'completed', operatorReference: s.transaction_id ?? s.id };
  }

  /**
   * Best effort: Wave keeps no refund object, so this reads the payin's session, which shows the
   * refund only if Wave marks it there (`refunded`); otherwise `unknown`, never `failed`. The
   * refund call itself (retried with the same id) is the sure answer.
   */
  async refundStatus(refundId: string): Promise<OperatorStatus> {
    const payinId = this.opts.refundOrigin ? await this.opts.refundOrigin(refundId) : null;
    if (!payinId) throw new OperatorUnavailableError('wave: the refund’s payin is not known (yet)');
    const s = await this.sessionOf(payinId);
    return s ? refundStatusOf(s) : { outcome: 'unknown', operatorReference: '' };
  }

  // ---- cancel, statements ----

  /**
   * A payin's open session is expired (Wave: "Expire a checkout"), which Wave accepts only while
   * nobody paid: that is our confirmed cancellation. Payouts and refunds have no cancel at Wave:
   * the answer is their current status, which confirms nothing unless final.
   */
  async cancel(kind: OperatorKind, id: string): Promise<OperatorStatus> {
    if (kind === 'disbursement') return this.disbursementStatus(id);
    if (kind === 'refund') return this.refundStatus(id);
    const s = await this.sessionOf(id);
    if (!s) return { outcome: 'unknown', operatorReference: '' };
    if (s.checkout_status !== 'open') return this.sessionStatus(s);
    const res = await this.call(
      'POST',
      `/v1/checkout/sessions/${encodeURIComponent(s.id)}/expire`,
      this.opts.checkoutApiKey,
    );
    if (res.status >= 200 && res.status < 300)
      return {
        outcome: 'failed',
        operatorReference: s.id,
        failure: {
          code: operatorFailureCodes.cancelled,
          message: 'Wave checkout session expired on our request',
        },
      };
    // Refused (paid meanwhile, or already expired): what the session says now is the answer.
    return this.collectionStatus(id);
  }

  /** Wave's reconciliation data is not wired here (docs/connectors/wave.md). */
  statement(): Promise<OperatorStatement> {
    return Promise.reject(new StatementsNotOfferedError('wave: no statement through this connector'));
  }

  // ---- webhooks ----

  async verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> {
    const secret = this.opts.webhookSecret;
    const header = cb.headers['wave-signature'];
    if (!secret || !header || cb.method.toUpperCase() !== 'POST') return null;
    let t: string | null = null;
    const v1s: string[] = [];
    for (const part of header.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      if (key === 't') t = value;
      else if (key === 'v1') v1s.push(value.toLowerCase());
    }
    if (!t || !/^\d{1,12}$/.test(t) || v1s.length === 0) return null;
    const nowMs = Date.now();
    const ageSeconds = Math.abs(nowMs / 1000 - Number(t));
    if (ageSeconds > this.opts.webhookToleranceSeconds) return null;
    const expected = createHmac('sha256', secret).update(t).update(cb.rawBody).digest();
    const match = v1s.find((v) => {
      const got = /^[0-9a-f]{64}$/.test(v) ? Buffer.from(v, 'hex') : null;
      return got !== null && timingSafeEqual(got, expected);
    });
    if (!match) return null;
    let event: z.infer<typeof webhookEvent>;
    try {
      event = webhookEvent.parse(JSON.parse(cb.rawBody.toString('utf8')));
    } catch {
      return null;
    }
    const ref = event.data.client_reference;
    if (!event.type.startsWith('checkout.session.') || !ref || !ourPayinId.test(ref)) return null;
    // What the v1 HMAC covers: the timestamp and the body, accepted while t is within the tolerance.
    const content = Buffer.concat([Buffer.from(t), cb.rawBody]);
    const acceptedUntil = Number(t) + this.opts.webhookToleranceSeconds;
    return { kind: 'collection', id: ref, signed: { content, acceptedUntil } };
  }

  // ---- mapping ----

  private sessionStatus(s: CheckoutSession): OperatorStatus {
    if (
      s.payment_status === 'succeeded' ||
      s.payment_status === 'refunded' ||
      s.checkout_status === 'complete'
    )
      return { outcome: 'completed', operatorReference: s.transaction_id ?? s.id };
    if (s.checkout_status === 'expired') {
      const waveCode = s.last_payment_error?.code;
      // Expired unpaid: Wave's final word that nothing was paid. With no payment error, the
      // customer never approved the payment before the session expired.
      const code = waveCode ? (paymentErrorCodes[waveCode] ?? 'PAYER_DECLINED') : 'DECLINED_BY_CUSTOMER';
      return {
        outcome: 'failed',
        operatorReference: s.id,
        failure: { code, message: waveCode ? `Wave: ${waveCode}` : 'Wave checkout session expired unpaid' },
      };
    }
    return {
      outcome: 'pending',
      operatorReference: s.id,
      ...(s.wave_launch_url ? { paymentUrl: s.wave_launch_url } : {}),
    };
  }

  private checkServed(operator: OperatorCode, country: Country, currency: string): void {
    if (operator !== 'WAVE' || country !== 'CI' || currency !== 'XOF')
      throw new OperatorRejectedError('wave: serves WAVE in CI, in XOF only');
  }

  // ---- lookups by our id ----

  /** The session whose client_reference is our id: a paid one first, else an open one, else the latest. */
  private async sessionOf(transactionId: string): Promise<CheckoutSession | null> {
    const where = 'GET /v1/checkout/sessions/search';
    const res = await this.call(
      'GET',
      `/v1/checkout/sessions/search?client_reference=${encodeURIComponent(transactionId)}`,
      this.opts.checkoutApiKey,
    );
    if (res.status === 404) return null;
    answers.read(where, res);
    const found = answers
      .parse(where, res, sessionSearch)
      .result.filter((s) => s.client_reference === transactionId);
    return (
      found.find((s) => s.checkout_status === 'complete') ??
      found.find((s) => s.checkout_status === 'open') ??
      found.at(-1) ??
      null
    );
  }

  private async payoutOf(transactionId: string): Promise<Payout | null> {
    const where = 'GET /v1/payouts/search';
    const res = await this.call(
      'GET',
      `/v1/payouts/search?client_reference=${encodeURIComponent(transactionId)}`,
      this.opts.payoutApiKey,
    );
    if (res.status === 404) return null;
    answers.read(where, res);
    const found = answers
      .parse(where, res, payoutSearch)
      .result.filter((p) => p.client_reference === transactionId);
    return found.find((p) => p.status !== 'failed') ?? found.at(-1) ?? null;
  }

  // ---- HTTP ----

  private async call(
    method: 'GET' | 'POST',
    path: string,
    apiKey: string,
    opts: { body?: unknown; idempotencyKey?: string } = {},
  ): Promise<Answer> {
    const where = `${method} ${path.split('?')[0]}`;
    return exchange(
      'wave',
      where,
      `${this.baseUrl}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: 'application/json',
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
        },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      },
      this.opts.timeoutMs,
    );
  }
}

/** Wave's error code: documented as `code`; `error_code` / `error.code` are read too (see the docs page). */
function errorCodeOf(json: unknown): string {
  const parsed = waveError.safeParse(json);
  if (!parsed.success) return 'unknown-error';
  const code = parsed.data.code ?? parsed.data.error_code ?? parsed.data.error?.code;
  // A code is a short slug; anything else is not passed on (it could echo the request).
  return code && /^[a-z0-9_.-]{1,64}$/i.test(code) ? code : 'unknown-error';
}

function payoutStatus(p: Payout): OperatorStatus {
  switch (p.status) {
    case 'succeeded':
      return { outcome: 'completed', operatorReference: p.id };
    case 'processing':
      return { outcome: 'pending', operatorReference: p.id };
    case 'reversed':
      // The money came back to our wallet: the payout is undone, as a confirmed cancellation is.
      return {
        outcome: 'failed',
        operatorReference: p.id,
        failure: { code: operatorFailureCodes.cancelled, message: 'Wave payout reversed' },
      };
    case 'failed': {
      const waveCode = p.payout_error?.error_code ?? 'payout-failed';
      const code = payoutErrorCodes[waveCode] ?? waveCode.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
      return { outcome: 'failed', operatorReference: p.id, failure: { code, message: `Wave: ${waveCode}` } };
    }
  }
}

function refundStatusOf(s: CheckoutSession): OperatorStatus {
  return s.payment_status === 'refunded'
    ? { outcome: 'completed', operatorReference: s.transaction_id ?? s.id }
    : { outcome: 'unknown', operatorReference: '' };
}
