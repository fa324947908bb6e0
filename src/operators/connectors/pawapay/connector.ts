// pawaPay (Merchant API v2) for every operator we offer: MTN, Orange, Moov and Wave in Côte
// d'Ivoire, MTN and Orange in Cameroon. Documentation followed (docs.pawapay.io):
//   - "Using the API" https://docs.pawapay.io/using_the_api — base URLs, Bearer API token.
//   - "Deposits" guide https://docs.pawapay.io/v2/docs/deposits and API reference "Initiate deposit"
//     (POST /v2/deposits: depositId UUIDv4, amount as a string in major units, currency,
//     payer {type MMO, accountDetails {phoneNumber, provider}}, clientReferenceId; answer status
//     ACCEPTED | REJECTED | DUPLICATE_IGNORED with failureReason) https://docs.pawapay.io/v2/api-reference/deposits/initiate-deposit
//     and "Check deposit status" (GET /v2/deposits/{depositId}: FOUND with data | NOT_FOUND)
//     https://docs.pawapay.io/v2/api-reference/deposits/check-deposit-status
//   - "Payouts" https://docs.pawapay.io/v2/docs/payouts, "Initiate payout" (POST /v2/payouts),
//     "Check payout status" (GET /v2/payouts/{payoutId}), "Cancel enqueued payout"
//     (POST /v2/payouts/fail-enqueued/{payoutId} → FAILED with MANUALLY_CANCELLED).
//   - "Initiate refund" (POST /v2/refunds: refundId, depositId, amount, currency)
//     https://docs.pawapay.io/v2/api-reference/refunds/initiate-refund and "Check refund status".
//   - Callbacks: "Deposit callback" https://docs.pawapay.io/v2/api-reference/deposits/deposit-callback
//     (and the payout and refund callbacks): sent once the payment is final; signed callbacks carry
//     Content-Digest, Signature, Signature-Input, Signature-Date.
//   - "Signatures" https://docs.pawapay.io/v2/docs/signatures — RFC 9421 signatures, RFC 9530
//     Content-Digest (SHA-256 or SHA-512), both for our financial requests (optional) and for
//     pawaPay's callbacks; pawaPay's sample code https://github.com/pawaPay/signatures-node-example
//     (label sig-pp; @method @authority @path signature-date content-digest content-type
//     content-length; ecdsa-p256-sha256).
//   - Toolkit: "Active configuration" (GET /v2/active-conf) https://docs.pawapay.io/v2/api-reference/toolkit/active-configuration,
//     "Predict Provider" (POST /v2/predict-provider) https://docs.pawapay.io/v2/api-reference/toolkit/predict-provider,
//     "Provider Availability" (GET /v2/availability: OPERATIONAL | DELAYED | CLOSED per DEPOSIT,
//     PAYOUT, REFUND) https://docs.pawapay.io/v2/api-reference/toolkit/availability.
//   - "Failure codes" https://docs.pawapay.io/v2/docs/failure_codes (technical codes with their HTTP
//     status; transaction failure codes in failureReason.failureCode).
//   - "Upgrading from V1" https://docs.pawapay.io/v2/docs/upgrade_from_v1 — "If the payment FAILED,
//     no funds have been deposited"; provider replaces correspondent.
// What the docs leave unclear, and how this connector reads it: docs/connectors/pawapay.md.

import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import type { Country, OperatorCode } from '../../../domain/operators';
import { fromProviderUuid, toProviderUuid } from '../../provider-ids';
import { customerLabel, type TextLimits } from '../customer-text';
import {
  OperatorConflictError,
  OperatorNotTakenError,
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
import {
  StatementsNotOfferedError,
  type Connector,
  type IncomingCallback,
  type PublishedAvailability,
  type RecipientInfo,
  type VerifiedCallback,
} from '../connector';
import { answersOf, exchange, type ProviderAnswer } from '../provider-http';
import {
  digestMatches,
  parseSignature,
  parseSignatureInput,
  signRequest,
  signatureBase,
  verifyWith,
} from './http-signature';
import {
  activeConf,
  availabilityAnswer,
  failureReason,
  initiationAnswer,
  operationConf,
  payment,
  predictAnswer,
  statusAnswer,
  type ActiveConf,
  type InitiationAnswer,
  type Payment,
} from './wire';

/** pawaPay's provider codes for our operator × country pairs ("Providers" in the docs). */
export const pawapayProviders: ReadonlyArray<{ operator: OperatorCode; country: Country; provider: string }> =
  [
    { operator: 'MTN', country: 'CI', provider: 'MTN_MOMO_CIV' },
    { operator: 'ORANGE', country: 'CI', provider: 'ORANGE_CIV' },
    { operator: 'MOOV', country: 'CI', provider: 'MOOV_CIV' },
    { operator: 'WAVE', country: 'CI', provider: 'WAVE_CIV' },
    { operator: 'MTN', country: 'CM', provider: 'MTN_MOMO_CMR' },
    { operator: 'ORANGE', country: 'CM', provider: 'ORANGE_CMR' },
  ];

/** ISO 3166-1 alpha-3, as pawaPay writes countries. */
const alpha3: Record<Country, string> = { CI: 'CIV', CM: 'CMR' };
const currencyOf: Record<Country, string> = { CI: 'XOF', CM: 'XAF' };

/**
 * pawaPay's transaction failure codes → ours. pawaPay says a FAILED payment moved no money, so
 * the codes below are definitive; any other code travels as `PAWAPAY_<CODE>` (ambiguous for
 * src/domain/failures.ts, so a payin still gets its partner check, which is one more status read).
 */
const failureCodes: Record<string, string> = {
  PAYER_NOT_FOUND: 'INVALID_MSISDN',
  RECIPIENT_NOT_FOUND: 'INVALID_MSISDN',
  PAYMENT_NOT_APPROVED: 'DECLINED_BY_CUSTOMER',
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_FUNDS',
  PAYER_LIMIT_REACHED: 'PAYER_DECLINED',
  PAYMENT_IN_PROGRESS: 'PAYER_DECLINED',
  WALLET_LIMIT_REACHED: 'PAYER_DECLINED',
  INVALID_PHONE_NUMBER: 'INVALID_MSISDN',
  MANUALLY_CANCELLED: operatorFailureCodes.cancelled,
};

export interface PawapayConnectorOptions {
  baseUrl: string;
  apiToken: string;
  /** pawaPay's public key for signed callbacks; without it every callback is refused. */
  callbackPublicKey: KeyObject | null;
  /** The key id pawaPay signs with (Signature-Input keyid); null accepts any keyid. */
  callbackKeyId: string | null;
  /** Our key for signed financial requests ("Only accept signed requests"), when enabled. */
  requestSigning: { privateKeyPem: string; keyId: string } | null;
  timeoutMs: number;
  /** Signatures older than this (created / Signature-Date) are refused; default 300 s. */
  callbackToleranceSeconds: number;
  /** How long the active configuration is reused before it is read again. */
  activeConfTtlMs: number;
  now?: () => number;
}

type Answer = ProviderAnswer;
type Operation = 'DEPOSIT' | 'PAYOUT' | 'REFUND';
const pathOf: Record<Operation, string> = { DEPOSIT: 'deposits', PAYOUT: 'payouts', REFUND: 'refunds' };
const idField: Record<Operation, 'depositId' | 'payoutId' | 'refundId'> = {
  DEPOSIT: 'depositId',
  PAYOUT: 'payoutId',
  REFUND: 'refundId',
};

/** pawaPay's answers: errors by status, bodies by their documented schema. */
const answers = answersOf('pawapay', codeOf);

export class PawapayConnector implements Connector {
  readonly name = 'pawapay' as const;
  readonly serves = pawapayProviders.map(({ operator, country }) => ({ operator, country }));
  private readonly baseUrl: string;
  private readonly authority: string;
  private readonly now: () => number;
  private conf: { value: ActiveConf; until: number } | null = null;
  private confFailedUntil = 0;

  constructor(private readonly opts: PawapayConnectorOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.authority = new URL(this.baseUrl).host;
    this.now = opts.now ?? Date.now;
  }

  // ---- payins: deposits ----

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    const provider = this.providerOf(req.operator, req.country, req.currency);
    const amount = await this.amountFor('DEPOSIT', provider, req.currency, req.amount);
    const depositId = toProviderUuid(req.transactionId);
    const body = {
      depositId,
      amount,
      currency: req.currency,
      payer: { type: 'MMO', accountDetails: { phoneNumber: digits(req.msisdn), provider } },
      clientReferenceId: req.transactionId,
      ...customerMessage(req.customerText),
      // Providers whose authType is PREAUTH take the customer's OTP here (Orange CI, CM).
      ...(req.otp ? { preAuthorisationCode: req.otp } : {}),
      // Providers whose authType is REDIRECT_AUTH (Wave) send the customer back to these; others
      // are not sent them (pawaPay refuses parameters an endpoint does not support).
      ...(provider === 'WAVE_CIV' && req.successUrl ? { successfulUrl: req.successUrl } : {}),
      ...(provider === 'WAVE_CIV' && req.failureUrl ? { failedUrl: req.failureUrl } : {}),
    };
    return this.initiate(
      'DEPOSIT',
      depositId,
      body,
      (p) =>
        sameTerms(p, amount, req.currency) && p.payer?.accountDetails?.phoneNumber === digits(req.msisdn),
    );
  }

  collectionStatus(transactionId: string): Promise<OperatorStatus> {
    return this.statusOf('DEPOSIT', toProviderUuid(transactionId));
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
    const provider = this.providerOf(req.operator, req.country, req.currency);
    const amount = await this.amountFor('PAYOUT', provider, req.currency, req.amount);
    const payoutId = toProviderUuid(req.transactionId);
    const body = {
      payoutId,
      amount,
      currency: req.currency,
      recipient: { type: 'MMO', accountDetails: { phoneNumber: digits(req.msisdn), provider } },
      clientReferenceId: req.transactionId,
      ...customerMessage(req.customerText),
    };
    return this.initiate(
      'PAYOUT',
      payoutId,
      body,
      (p) =>
        sameTerms(p, amount, req.currency) && p.recipient?.accountDetails?.phoneNumber === digits(req.msisdn),
    );
  }

  disbursementStatus(transactionId: string): Promise<OperatorStatus> {
    return this.statusOf('PAYOUT', toProviderUuid(transactionId));
  }

  // ---- refunds ----

  async refund(req: RefundRequest): Promise<OperatorStatus> {
    const provider = this.providerOf(req.operator, req.country, req.currency);
    const amount = await this.amountFor('REFUND', provider, req.currency, req.amount);
    const refundId = toProviderUuid(req.refundId);
    const body = {
      refundId,
      depositId: toProviderUuid(req.transactionId),
      amount,
      currency: req.currency,
      clientReferenceId: req.refundId,
      // No customerMessage: pawaPay documents none for refunds and fails a refund that has one.
    };
    return this.initiate('REFUND', refundId, body, (p) => sameTerms(p, amount, req.currency));
  }

  refundStatus(refundId: string): Promise<OperatorStatus> {
    return this.statusOf('REFUND', toProviderUuid(refundId));
  }

  // ---- cancel, statements ----

  /**
   * pawaPay cancels only a payout still ENQUEUED (its provider DELAYED): "Cancel enqueued payout"
   * fails it with MANUALLY_CANCELLED, which maps to our CANCELLED. Deposits and refunds have no
   * cancel: the answer is their status, which confirms nothing unless final.
   */
  async cancel(kind: OperatorKind, id: string): Promise<OperatorStatus> {
    if (kind === 'collection') return this.collectionStatus(id);
    if (kind === 'refund') return this.refundStatus(id);
    const payoutId = toProviderUuid(id);
    const where = 'POST /v2/payouts/fail-enqueued';
    const res = await this.call('POST', `/v2/payouts/fail-enqueued/${payoutId}`, { body: {} });
    // REJECTED (not enqueued, unknown) or any error: the payout's status is the answer.
    if (res.status >= 400 && res.status !== 404) this.refuseIfUnavailable(where, res);
    return this.disbursementStatus(id);
  }

  /** pawaPay's statements ("Finances") are generated asynchronously as files: not wired here. */
  statement(): Promise<OperatorStatement> {
    return Promise.reject(new StatementsNotOfferedError('pawapay: no statement through this connector'));
  }

  // ---- toolkit ----

  /** predict-provider: which operator a number belongs to (pawaPay says nothing of the holder). */
  async recipient(msisdn: string, country: Country): Promise<RecipientInfo> {
    const where = 'POST /v2/predict-provider';
    const res = await this.call('POST', '/v2/predict-provider', { body: { phoneNumber: digits(msisdn) } });
    const unknown: RecipientInfo = { operator: null, country, active: null, holderName: null };
    // A number pawaPay cannot place (400 INVALID_PHONE_NUMBER and the like) has no prediction.
    if (res.status === 400) return unknown;
    answers.read(where, res);
    const p = answers.parse(where, res, predictAnswer);
    const found = pawapayProviders.find((x) => x.provider === p.provider);
    if (!found || alpha3[country] !== p.country) return unknown;
    return { operator: found.operator, country, active: null, holderName: null };
  }

  /** GET /v2/availability, for the pairs we serve. */
  async availability(): Promise<PublishedAvailability[]> {
    const where = 'GET /v2/availability';
    const res = await this.call('GET', '/v2/availability');
    answers.read(where, res);
    const out: PublishedAvailability[] = [];
    const operations: Record<string, PublishedAvailability['operation']> = {
      DEPOSIT: 'payin',
      PAYOUT: 'payout',
      REFUND: 'refund',
    };
    for (const c of answers.parse(where, res, availabilityAnswer))
      for (const p of c.providers) {
        const ours = pawapayProviders.find(
          (x) => x.provider === p.provider && alpha3[x.country] === c.country,
        );
        if (!ours) continue;
        for (const o of p.operationTypes) {
          const operation = operations[o.operationType];
          const status = ({ OPERATIONAL: 'operational', DELAYED: 'delayed', CLOSED: 'closed' } as const)[
            o.status as 'OPERATIONAL' | 'DELAYED' | 'CLOSED'
          ];
          if (operation && status)
            out.push({ operator: ours.operator, country: ours.country, operation, status });
        }
      }
    return out;
  }

  /** GET /v2/active-conf, reused for activeConfTtlMs. */
  async activeConfiguration(): Promise<ActiveConf> {
    const t = this.now();
    if (this.conf && this.conf.until > t) return this.conf.value;
    const where = 'GET /v2/active-conf';
    const res = await this.call('GET', '/v2/active-conf');
    answers.read(where, res);
    const value = answers.parse(where, res, activeConf);
    this.conf = { value, until: t + this.opts.activeConfTtlMs };
    return value;
  }

  // ---- callbacks ----

  async verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> {
    const key = this.opts.callbackPublicKey;
    if (!key || cb.method.toUpperCase() !== 'POST') return null;
    // The digest binds the body to the signature (content-digest is a covered component).
    if (!digestMatches(cb.headers['content-digest'], cb.rawBody)) return null;
    const signatures = parseSignature(cb.headers.signature);
    const nowMs = this.now();
    // The receipt is of what was signed (the signature base, which binds the body through
    // content-digest), never the Signature bytes: one ECDSA signature has several encodings (DER,
    // r||s) and a second valid value (s and n − s).
    let signedBase: string | null = null;
    for (const p of parseSignatureInput(cb.headers['signature-input'])) {
      const sig = signatures.get(p.label);
      if (!sig) continue;
      if (!['@method', '@path', 'content-digest'].every((c) => p.components.includes(c))) continue;
      if (this.opts.callbackKeyId !== null && p.keyid !== this.opts.callbackKeyId) continue;
      const signatureDate = p.components.includes('signature-date')
        ? cb.headers['signature-date']
        : undefined;
      if (!this.fresh(p.created, p.expires, signatureDate, nowMs)) continue;
      const base = signatureBase(
        { method: cb.method, authority: cb.headers.host ?? '', target: cb.path, headers: cb.headers },
        p.components,
        p.serialized,
      );
      if (base !== null && verifyWith(key, p.alg, base, sig)) {
        signedBase = base;
        break;
      }
    }
    if (signedBase === null) return null;
    let body: Payment;
    try {
      body = payment.parse(JSON.parse(cb.rawBody.toString('utf8')));
    } catch {
      return null;
    }
    // A refund callback may name its deposit too: the most specific id decides.
    const [kind, uuid, prefix]: [OperatorKind, string | undefined, string] = body.refundId
      ? ['refund', body.refundId, 'rf_']
      : body.payoutId
        ? ['disbursement', body.payoutId, 'pr_']
        : ['collection', body.depositId, 'pr_'];
    const id = uuid ? fromProviderUuid(uuid) : null;
    // Fresh means signed within the tolerance of now, either side: accepted at most 2× it from now.
    const acceptedUntil = Math.ceil(nowMs / 1000) + 2 * this.opts.callbackToleranceSeconds;
    return id && id.startsWith(prefix) ? { kind, id, signed: { content: signedBase, acceptedUntil } } : null;
  }

  /**
   * Fresh when the signature's `created` (or, without one, its signed Signature-Date) is within the
   * tolerance of now, and its `expires`, if any, has not passed.
   */
  private fresh(
    created: number | null,
    expires: number | null,
    signatureDate: string | undefined,
    nowMs: number,
  ): boolean {
    const tol = this.opts.callbackToleranceSeconds * 1000;
    if (expires !== null && expires * 1000 < nowMs) return false;
    let at = created !== null ? created * 1000 : null;
    if (at === null && signatureDate) {
      const parsed = Date.parse(signatureDate);
      at = Number.isNaN(parsed) ? null : parsed;
    }
    return at !== null && Math.abs(nowMs - at) <= tol;
  }

  // ---- shared paths ----

  /**
   * POST of a financial request. ACCEPTED: pending. DUPLICATE_IGNORED: pawaPay already holds this
   * id, so its status says what happened, and its terms must be ours (else a conflict). REJECTED:
   * nothing was done.
   */
  private async initiate(
    op: Operation,
    id: string,
    body: Record<string, unknown>,
    same: (p: Payment) => boolean,
  ): Promise<OperatorStatus> {
    const path = `/v2/${pathOf[op]}`;
    const where = `POST ${path}`;
    const res = await this.call('POST', path, { body, signed: true });
    this.refuseIfUnavailable(where, res);
    const parsed = initiationAnswer.safeParse(res.json);
    if (res.status >= 400 || !parsed.success) {
      if (res.status >= 400)
        throw new OperatorRejectedError(`pawapay ${where}: HTTP ${res.status} ${codeOf(res.json)}`);
      throw new OperatorUnavailableError(`pawapay ${where}: unreadable answer`);
    }
    const a: InitiationAnswer = parsed.data;
    if (a[idField[op]] !== undefined && a[idField[op]] !== id)
      throw new OperatorUnavailableError(`pawapay ${where}: answer names another id`);
    // A CLOSED provider's refusal is pawaPay's word that it is temporary, and a REJECTED id is not
    // kept: the same request may be sent again later, so it is an outage, not a refusal.
    if (a.status === 'REJECTED' && a.failureReason?.failureCode === 'PROVIDER_TEMPORARILY_UNAVAILABLE')
      throw new OperatorNotTakenError(`pawapay ${where}: REJECTED PROVIDER_TEMPORARILY_UNAVAILABLE`);
    if (a.status === 'REJECTED')
      throw new OperatorRejectedError(`pawapay ${where}: REJECTED ${safeCode(a.failureReason?.failureCode)}`);
    if (a.status !== 'DUPLICATE_IGNORED')
      // ACCEPTED (or PROCESSING, for a provider that redirects the customer to authorise).
      return {
        outcome: 'pending',
        operatorReference: id,
        ...(a.authorizationUrl ? { paymentUrl: a.authorizationUrl } : {}),
      };
    const found = await this.read(op, id);
    if (!found) return { outcome: 'pending', operatorReference: id };
    if (!same(found))
      throw new OperatorConflictError(`pawapay ${where}: this ${idField[op]} is held with other terms`);
    return statusOf(found, id);
  }

  private async statusOf(op: Operation, id: string): Promise<OperatorStatus> {
    const p = await this.read(op, id);
    return p ? statusOf(p, id) : { outcome: 'unknown', operatorReference: '' };
  }

  private async read(op: Operation, id: string): Promise<Payment | null> {
    const where = `GET /v2/${pathOf[op]}/{id}`;
    const res = await this.call('GET', `/v2/${pathOf[op]}/${id}`);
    if (res.status === 404) return null;
    answers.read(where, res);
    const s = answers.parse(where, res, statusAnswer);
    return s.status === 'FOUND' ? s.data : null;
  }

  private providerOf(operator: OperatorCode, country: Country, currency: string): string {
    const p = pawapayProviders.find((x) => x.operator === operator && x.country === country);
    if (!p || currencyOf[country] !== currency)
      throw new OperatorRejectedError(`pawapay: does not serve ${operator} in ${country} in ${currency}`);
    return p.provider;
  }

  /**
   * Our integer minor units as pawaPay's amount string in major units (XOF and XAF have no minor
   * unit: minor == major). The active configuration's limits are checked first when it can be
   * read: pawaPay would refuse the same amount with AMOUNT_OUT_OF_BOUNDS; if it cannot be read,
   * pawaPay's own check decides.
   */
  private async amountFor(op: Operation, provider: string, currency: string, minor: number): Promise<string> {
    if (!Number.isSafeInteger(minor) || minor <= 0)
      throw new OperatorRejectedError('pawapay: invalid amount');
    const amount = String(minor);
    // While the active configuration cannot be read, payments do not each wait for it.
    if (this.confFailedUntil > this.now()) return amount;
    let conf: ActiveConf;
    try {
      conf = await this.activeConfiguration();
    } catch {
      this.confFailedUntil = this.now() + 10_000;
      return amount;
    }
    const limits = operationConfOf(conf, provider, currency, op);
    if (limits) {
      const min = limits.minTransactionLimit !== undefined ? Number(limits.minTransactionLimit) : null;
      const max = limits.maxTransactionLimit !== undefined ? Number(limits.maxTransactionLimit) : null;
      if ((min !== null && minor < min) || (max !== null && minor > max))
        throw new OperatorRejectedError(
          `pawapay: ${op} amount outside ${provider} limits (AMOUNT_OUT_OF_BOUNDS)`,
        );
    }
    return amount;
  }

  // ---- HTTP ----

  private async call(
    method: 'GET' | 'POST',
    path: string,
    opts: { body?: unknown; signed?: boolean } = {},
  ): Promise<Answer> {
    const where = `${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '{id}')}`;
    const text = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.apiToken}`,
      accept: 'application/json',
      ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    if (text !== undefined && opts.signed && this.opts.requestSigning)
      Object.assign(
        headers,
        signRequest(
          { method, authority: this.authority, target: path, headers, body: text },
          this.opts.requestSigning,
          this.now(),
        ),
      );
    return exchange(
      'pawapay',
      where,
      `${this.baseUrl}${path}`,
      { method, headers, ...(text !== undefined ? { body: text } : {}) },
      this.opts.timeoutMs,
    );
  }

  /**
   * 401/403 (NO_AUTHENTICATION, AUTHENTICATION_ERROR, AUTHORISATION_ERROR, HTTP_SIGNATURE_ERROR):
   * a revoked token or a key mismatch is ours to fix, not the customer's: retried like an outage.
   */
  private refuseIfUnavailable(where: string, res: Answer): void {
    if (res.status === 401 || res.status === 403)
      throw new OperatorUnavailableError(`pawapay ${where}: HTTP ${res.status} ${codeOf(res.json)}`);
  }
}

/**
 * pawaPay's `customerMessage` ("a short narration … may be visible to the customer in the SMS
 * receipt or within their transaction history"; defaults to our company name): 4 to 22 letters,
 * digits or spaces. Without a text that fits, it is left out and pawaPay's default applies.
 */
export const pawapayMessageLimits: TextLimits = { min: 4, max: 22, allowed: /[A-Za-z0-9 ]/ };

function customerMessage(text: CustomerText | undefined): { customerMessage?: string } {
  const label = customerLabel(text, pawapayMessageLimits);
  return label ? { customerMessage: label } : {};
}

function digits(msisdn: string): string {
  return msisdn.replace(/\D/g, '');
}

function sameTerms(p: Payment, amount: string, currency: string): boolean {
  return p.amount !== undefined && Number(p.amount) === Number(amount) && p.currency === currency;
}

function statusOf(p: Payment, id: string): OperatorStatus {
  const reference = p.providerTransactionId ?? id;
  if (p.status === 'COMPLETED') return { outcome: 'completed', operatorReference: reference };
  if (p.status === 'FAILED') {
    const theirs = safeCode(p.failureReason?.failureCode);
    const code = failureCodes[theirs] ?? `PAWAPAY_${theirs}`;
    return {
      outcome: 'failed',
      operatorReference: reference,
      failure: { code, message: `pawaPay: ${theirs}` },
    };
  }
  // ACCEPTED, PROCESSING, IN_RECONCILIATION, ENQUEUED: in flight.
  return {
    outcome: 'pending',
    operatorReference: reference,
    ...(p.authorizationUrl ? { paymentUrl: p.authorizationUrl } : {}),
  };
}

/** A failure code is an upper-case slug; anything else is not passed on (it could echo input). */
function safeCode(code: string | undefined): string {
  return code && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'UNKNOWN_ERROR';
}

function codeOf(json: unknown): string {
  const direct = failureReason.safeParse(json);
  if (direct.success) return safeCode(direct.data.failureCode);
  const nested = initiationAnswer.partial().safeParse(json);
  return safeCode(nested.success ? nested.data.failureReason?.failureCode : undefined);
}

/** The active configuration's entry for provider × currency × operation, in either documented shape. */
function operationConfOf(
  conf: ActiveConf,
  provider: string,
  currency: string,
  op: Operation,
): z.infer<typeof operationConf> | null {
  for (const c of conf.countries)
    for (const p of c.providers) {
      if (p.provider !== provider) continue;
      for (const cur of p.currencies ?? []) {
        if (cur.currency !== currency) continue;
        for (const entry of cur.operationTypes ?? []) {
          const candidate = typeof entry.operationType === 'string' ? entry : (entry[op] ?? null);
          if (typeof entry.operationType === 'string' && entry.operationType !== op) continue;
          const parsed = operationConf.safeParse(candidate);
          if (candidate && parsed.success) return parsed.data;
        }
      }
    }
  return null;
}
