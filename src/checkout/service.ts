import {
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { TransactionStore } from '../persistence/transactions';
import type { OtpStore } from '../persistence/otp-store';
import type { Transaction } from '../domain/transaction';
import { toMajor } from '../domain/money';
import { isFinal } from '../domain/final-status';
import { normalizeTypedMsisdn } from '../domain/msisdn';
import { checkPayinForProvider, providersOf, ussdCodeOf, type ProviderInfo } from '../domain/providers';
import { predictCarrier } from '../domain/operator-prefixes';
import type { OperatorCode } from '../domain/operators';
import { ApiProblem, type FieldError } from '../contract/problems';
import { fieldMessages } from '../contract/field-messages';
import { RETRY_AFTER_SECONDS } from '../persistence/unavailable';
import type { CheckoutConfirmRequest } from '../contract/schemas/checkout';
import { isUpdateLimitReached } from '../services/update-limits';
import { isWorkflowNotReady } from '../temporal/workflow-not-ready';
import { confirmSessionUpdate, declineSessionUpdate, type PayinState } from '../../workflows/payin/payin-api';
import { SessionCache } from './session-cache';
import { refuseClosedPayin, type PayinStateReader } from '../operators/health/guard';

// The customer's side of a payin session: what the hosted checkout page shows, and the customer's
// answer, handed to the session's workflow as an Update (the workflow decides; we only relay).

export interface CheckoutServiceDeps {
  transactions: TransactionStore;
  temporal: Client;
  merchantName(merchantId: string): Promise<string | null>;
  /** How long the customer's answer waits for the workflow (CHECKOUT_DECISION_WAIT). */
  decisionWaitMs: number;
  /** How long a session's record read serves the page and its polls again; default 2 s, 0 disables. */
  cacheTtlMs?: number;
  /** PUBLIC_BASE_URL, which session links start with (unset: the creating request's origin). */
  publicBaseUrl?: string | undefined;
  /** The customer's OTP is stored here (sealed) and the Update carries its id only. */
  otps: OtpStore;
  /** Provider states: a closed provider is shown unavailable and refused on confirm. Unset: all open. */
  providerHealth?: PayinStateReader | undefined;
}

export interface CheckoutView {
  tx: Transaction;
  merchantName: string;
  providers: ProviderInfo[];
  /** The operator the session's number belongs to, preselected on the page. */
  suggested: OperatorCode | null;
  /** Offered providers that are temporarily closed: shown, not selectable. */
  unavailable: OperatorCode[];
  state: CheckoutState;
}

/** What the page polls (GET /checkout/:id/status) and what confirm and decline answer. */
export interface CheckoutState {
  id: string;
  status: PayinState['status'];
  confirmationStatus: PayinState['confirmationStatus'];
  failure: PayinState['failure'];
  awaitingCustomer: boolean;
  /** The operator's own page (WAVE): the customer goes there first. */
  paymentUrl: string | null;
  /** What to dial when the operator's prompt does not appear (MTN, MOOV in CI). */
  ussdCode: string | null;
  /** The customer has nothing more to do here; the page leaves for `redirectUrl`. */
  final: boolean;
  redirectUrl: string | null;
}

const isWebUrl = (u: string | null | undefined): u is string => !!u && /^https?:\/\//i.test(u);

function toCheckoutState(tx: Transaction, s: PayinState): CheckoutState {
  const declined = s.confirmationStatus === 'declined';
  const final = declined || isFinal('payin', s.status);
  const target = s.status === 'success' && !declined ? tx.action?.successUrl : tx.action?.failureUrl;
  return {
    id: tx.id,
    status: s.status,
    confirmationStatus: s.confirmationStatus,
    failure: s.failure,
    awaitingCustomer: s.awaitingCustomer,
    paymentUrl: isWebUrl(s.paymentUrl) ? s.paymentUrl : null,
    ussdCode: s.ussdCode,
    final,
    redirectUrl: final && isWebUrl(target) ? target : null,
  };
}

/**
 * What the page shows, from the record the session's workflow writes at each step. Not a Temporal
 * Query: each is a billed action and a worker task, and a page polls every 1.5 s. The workflow
 * records the provider right after the customer's answer, so a record with one is answered.
 */
function storedState(tx: Transaction, publicBaseUrl: string | undefined): PayinState {
  const answered = tx.provider !== null || tx.confirmationStatus !== 'none';
  // Until the operator hands out its own page (WAVE), paymentUrl is this checkout page's link.
  const operatorPage =
    isWebUrl(tx.paymentUrl) && !isCheckoutLink(tx.paymentUrl, tx.id, publicBaseUrl) ? tx.paymentUrl : null;
  return {
    status: tx.status,
    confirmationStatus: tx.confirmationStatus,
    failure: tx.failure,
    awaitingCustomer: tx.status === 'processing' && !answered,
    paymentUrl: operatorPage,
    ussdCode: tx.provider ? ussdCodeOf(tx.provider) : null,
  };
}

/** The link session creation stored: `<PUBLIC_BASE_URL or the request's origin>/checkout/<id>`. */
function isCheckoutLink(url: string, id: string, publicBaseUrl: string | undefined): boolean {
  if (publicBaseUrl && url === `${publicBaseUrl.replace(/\/+$/, '')}/checkout/${id}`) return true;
  try {
    return new URL(url).pathname === `/checkout/${id}`;
  } catch {
    return false;
  }
}

const sessionClosed = () => new ApiProblem('SESSION_CLOSED');

export class CheckoutService {
  /** Session records by id, for a few seconds: polls of many pages cost a read each only once in a while. */
  private readonly recent: SessionCache<Transaction>;

  constructor(private readonly deps: CheckoutServiceDeps) {
    this.recent = new SessionCache(deps.cacheTtlMs ?? 2_000, 10_000);
  }

  /** Only sessions have a checkout page; a direct payin's id is as unknown here as a made-up one. */
  private async session(id: string): Promise<Transaction> {
    const cached = this.recent.get(id);
    if (cached) return cached;
    const tx = /^pr_[0-9a-f]{24}$/.test(id) ? await this.deps.transactions.findById(id) : null;
    if (!tx || tx.kind !== 'payin' || tx.flow !== 'session') throw new ApiProblem('SESSION_NOT_FOUND');
    this.recent.set(id, tx);
    return tx;
  }

  /**
   * The session for an answer (confirm, decline): only fields fixed at creation are used (country,
   * amounts, links, its workflow), and whether it still awaits the customer is the workflow's
   * validator's to say, so its document alone serves (no version probe), or the page's recent read.
   */
  private async sessionAsCreated(id: string): Promise<Transaction> {
    const cached = this.recent.get(id);
    if (cached) return cached;
    const tx = /^pr_[0-9a-f]{24}$/.test(id) ? await this.deps.transactions.findAsCreated(id) : null;
    if (!tx || tx.kind !== 'payin' || tx.flow !== 'session') throw new ApiProblem('SESSION_NOT_FOUND');
    return tx;
  }

  async view(id: string): Promise<CheckoutView> {
    const tx = await this.session(id);
    const merchantName = await this.deps.merchantName(tx.merchantId);
    const state = toCheckoutState(tx, storedState(tx, this.deps.publicBaseUrl));
    const providers = choosable(tx);
    const unavailable: OperatorCode[] = [];
    for (const p of providers) {
      const closed = await refuseClosedPayin(
        this.deps.providerHealth,
        tx.merchantId,
        p.code,
        tx.country,
      ).then(
        () => false,
        (err: unknown) => err instanceof ApiProblem && err.code === 'PROVIDER_UNAVAILABLE',
      );
      if (closed) unavailable.push(p.code);
    }
    const carrier = predictCarrier(tx.customer.phoneNumber)?.carrier;
    const suggested =
      providers.find((p) => p.code === carrier && !unavailable.includes(p.code))?.code ?? null;
    return { tx, merchantName: merchantName ?? '', providers, suggested, unavailable, state };
  }

  async status(id: string): Promise<CheckoutState> {
    const tx = await this.session(id);
    return toCheckoutState(tx, storedState(tx, this.deps.publicBaseUrl));
  }

  async confirm(id: string, answer: CheckoutConfirmRequest): Promise<CheckoutState> {
    const tx = await this.sessionAsCreated(id);
    const msisdn = this.validate(tx, answer);
    await refuseClosedPayin(this.deps.providerHealth, tx.merchantId, answer.provider, tx.country);
    const otpId = answer.otp ? (await this.deps.otps.put(answer.otp)).id : undefined;
    const state = await this.update(tx, () =>
      this.deps.temporal.workflow.getHandle(tx.workflowId).executeUpdate(confirmSessionUpdate, {
        args: [{ provider: answer.provider, msisdn, ...(otpId ? { otpId } : {}) }],
      }),
    ).catch(async (err: unknown) => {
      // Refused, not queued: no workflow holds this OTP's id, so nobody else would delete it.
      const notQueued = err instanceof ApiProblem && err.code !== 'ANSWER_PENDING';
      if (otpId && notQueued) await this.deps.otps.forget(otpId).catch(() => undefined);
      throw err;
    });
    return toCheckoutState(tx, state);
  }

  async decline(id: string): Promise<CheckoutState> {
    const tx = await this.session(id);
    const state = await this.update(tx, () =>
      this.deps.temporal.workflow.getHandle(tx.workflowId).executeUpdate(declineSessionUpdate),
    );
    // Accepted means decided: the workflow records the decline right after answering.
    return toCheckoutState(tx, { ...state, confirmationStatus: 'declined', awaitingCustomer: false });
  }

  /** The customer's choice against the session's country and the provider's rules; the E.164 number. */
  private validate(tx: Transaction, answer: CheckoutConfirmRequest): string {
    const errors: FieldError[] = [];
    const offered = choosable(tx).find((p) => p.code === answer.provider);
    if (!offered) {
      const allowed = choosable(tx)
        .map((p) => p.code)
        .join(', ');
      errors.push({
        path: 'provider',
        message: fieldMessages.customer.providerNotOffered(tx.country, allowed),
      });
    }
    const msisdn = normalizeTypedMsisdn(answer.msisdn, tx.country);
    if (!msisdn) {
      errors.push({ path: 'msisdn', message: fieldMessages.invalidMsisdn(tx.country) });
    }
    if (offered && msisdn) {
      const violations = checkPayinForProvider({
        operator: answer.provider,
        country: tx.country,
        msisdn,
        // What the operator collects: with payFee false the customer pays the fee too.
        amount: toMajor(tx.chargedAmount, tx.currency),
        otp: answer.otp,
      });
      const name = offered.displayName;
      for (const v of violations) {
        if (v.code === 'OTP_REQUIRED') {
          errors.push({
            path: 'otp',
            message: fieldMessages.customer.otpRequired(name, offered.otpUssdCode ?? ''),
          });
        } else if (v.code === 'MSISDN_PROVIDER_MISMATCH') {
          errors.push({ path: 'msisdn', message: fieldMessages.customer.numberOfAnotherOperator(name) });
        } else {
          // The page has no amount field: the customer can only choose another provider.
          errors.push({
            path: 'provider',
            message: fieldMessages.customer.amountOutOfRange(name, v.min, v.max, tx.currency),
          });
        }
      }
    }
    if (errors.length > 0 || !msisdn) throw new ApiProblem('VALIDATION_ERROR', { errors });
    return msisdn;
  }

  /** Runs an Update; a session that no longer awaits the customer (or whose workflow ended) is a 409. */
  private async update(tx: Transaction, run: () => Promise<PayinState>): Promise<PayinState> {
    try {
      // Bounded: with the worker down or backlogged the customer would wait without end. The answer
      // stays queued and is applied when the workflow runs; the page then follows the session's state.
      return await this.deps.temporal.withDeadline(Date.now() + this.deps.decisionWaitMs, run);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError)
        throw sessionClosed();
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
        throw new ApiProblem('ANSWER_PENDING', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
      // Too many Updates in flight on this session: this answer was not queued (unlike ANSWER_PENDING),
      // so the page unlocks its form and the customer answers again.
      if (isUpdateLimitReached(err))
        throw notQueued({
          en: 'Too many answers are waiting on this payment right now. Try again in a few seconds.',
          fr: 'Trop de réponses sont en attente sur ce paiement. Réessayez dans quelques secondes.',
        });
      // Temporal dropped the answer with the workflow task that held it: not queued either.
      if (isWorkflowNotReady(err))
        throw notQueued({
          en: 'This payment could not take your answer just now. Try again in a few seconds.',
          fr: "Ce paiement n'a pas pu prendre votre réponse. Réessayez dans quelques secondes.",
        });
      throw err;
    } finally {
      // Whatever the outcome, the next read of this session is the workflow's latest record.
      this.recent.delete(tx.id);
    }
  }
}

/** An answer the workflow did not take: 503, and the page lets the customer answer again. */
function notQueued(detail: { en: string; fr: string }): ApiProblem {
  return new ApiProblem('SERVICE_UNAVAILABLE', {
    detail,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/** The providers the customer may choose: the country's, narrowed to a payment link's operators. */
function choosable(tx: Transaction): ProviderInfo[] {
  return providersOf(tx.country).filter(
    (p) => p.available && (!tx.operators || tx.operators.includes(p.code)),
  );
}
