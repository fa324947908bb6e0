import type { Client } from '@temporalio/client';
import type { TransactionStore } from '../persistence/transactions';
import type { WorkflowStartLog } from '../persistence/workflow-starts';
import type { OtpStore } from '../persistence/otp-store';
import type { DirectPayinRequest } from '../contract/schemas/payin';
import type { PayinSessionRequest } from '../contract/schemas/payin-session';
import { checkPayinForProvider, providersOf } from '../domain/providers';
import {
  currencyByCountry,
  isOffered,
  operatorsByCountry,
  providerName,
  type Country,
  type OperatorCode,
} from '../domain/operators';
import { toMinor, type Currency } from '../domain/money';
import { computeFee, splitFee, type FeeSchedule } from '../domain/fees';
import { newId } from '../domain/ids';
import { normalizeMsisdn } from '../domain/msisdn';
import type { Transaction } from '../domain/transaction';
import { transactionWorkflowId } from '../temporal/workflow-ids';
import { ApiProblem } from '../contract/problems';
import {
  duplicateReference,
  fieldMessages,
  invalidField,
  problemAt,
  providerRuleProblem,
} from '../contract/field-messages';
import { operatorAnswerUpdate } from '../../workflows/payin/payin-api';
import { TransactionWorkflows } from './transaction-workflows';
import { fingerprintsDiffer } from '../security/request-fingerprint';
import { refuseClosedPayin, refuseWhenAllClosed, type PayinStateReader } from '../operators/health/guard';
import type { RulesOf } from '../operators/connectors/connector';
import { modeOfScope } from '../domain/modes';

export interface PayinServiceDeps {
  transactions: TransactionStore;
  /** Markers of workflows about to start, for the recovery sweep. */
  starts: WorkflowStartLog;
  temporal: Client;
  taskQueue: string;
  payinExpiryMs: number;
  refundWindowMs: number;
  /** The merchant's own refund window, fixed into each payin at its creation; null: refundWindowMs. */
  refundWindowMsOf?: (merchantId: string) => Promise<number | null>;
  sessionExpiryMs: number;
  correctionWindowMs: number;
  partnerCheckIntervalMs: number;
  /** PAYIN_LOCAL_ACTIVITIES (src/services/transaction-workflows.ts). */
  localActivities?: boolean | undefined;
  /** How long the create call waits for WAVE's redirect address before answering without it. */
  operatorAnswerWaitMs: number;
  feeSchedule: FeeSchedule;
  /** PUBLIC_BASE_URL: where customers reach the checkout page; unset, the request's own origin. */
  publicBaseUrl?: string | undefined;
  /** Where an OTP waits for its workflow (sealed, by id): never in the workflow's input. */
  otps?: OtpStore | undefined;
  /** Provider states: a payin to a closed provider is refused (503). Unset: every provider is open. */
  providerHealth?: PayinStateReader | undefined;
  /** Who pays payin fees by the merchant's setting (a request's `payFee` wins). Unset: the merchant. */
  payFeeOf?: ((merchantId: string) => Promise<boolean>) | undefined;
  /** The rules of the provider a request is routed to (live mode's connectors). Unset: none. */
  rulesOf?: RulesOf | undefined;
}

export class PayinService {
  private readonly workflows: TransactionWorkflows;

  constructor(private readonly deps: PayinServiceDeps) {
    this.workflows = new TransactionWorkflows({
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      starts: deps.starts,
      transactions: deps.transactions,
      payin: {
        payinExpiryMs: deps.payinExpiryMs,
        sessionExpiryMs: deps.sessionExpiryMs,
        correctionWindowMs: deps.correctionWindowMs,
        partnerCheckIntervalMs: deps.partnerCheckIntervalMs,
        localActivities: deps.localActivities,
        refundWindowMs: deps.refundWindowMs,
        refundWindowMsOf: deps.refundWindowMsOf,
        otpLifetimeMs: deps.otps?.lifetimeMs,
      },
    });
  }

  /**
   * Marks the start, stores the payin, starts its workflow, clears the mark. Each step is idempotent
   * (marker and reference unique, workflow id fixed), so a retry after a crash completes the job,
   * and without a retry the recovery sweep does (src/recovery/sweep.ts).
   */
  async createDirect(
    merchantId: string,
    body: DirectPayinRequest,
    idempotencyKey?: string,
    requestFingerprint?: string,
  ): Promise<{ created: boolean; transaction: Transaction }> {
    const { payin } = body;
    if (!isOffered(payin.provider, payin.country)) {
      const allowed = operatorsByCountry[payin.country].join(', ');
      throw invalidField(
        'payin.provider',
        fieldMessages.providerNotOffered(payin.provider, payin.country, allowed),
      );
    }
    const phone = normalizeMsisdn(payin.msisdn, payin.country);
    if (!phone) throw invalidField('payin.msisdn', fieldMessages.invalidMsisdn(payin.country));
    // Refused as a 400 naming the field: the chosen provider would refuse it anyway.
    const [broken] = checkPayinForProvider({
      operator: payin.provider,
      country: payin.country,
      msisdn: phone,
      amount: payin.amount,
      otp: payin.otp,
    });
    if (broken)
      throw providerRuleProblem(broken, { operator: payin.provider, country: payin.country }, 'payin.');
    // The routed provider's own rules, answered now rather than by a failure after the 201.
    const rules = this.deps.rulesOf?.(modeOfScope(merchantId), payin.provider, payin.country, 'payin');
    if (rules?.httpsReturnUrls) refuseNonHttpsReturn(body.action, payin.provider, payin.country);
    await refuseClosedPayin(this.deps.providerHealth, merchantId, payin.provider, payin.country);
    const currency = currencyByCountry[payin.country];
    const amount = toMinor(payin.amount, currency);
    const provider = providerName(payin.provider, payin.country);
    const now = new Date();
    const draft: Transaction = {
      id: newId('pr'),
      merchantId,
      kind: 'payin',
      refundIds: [],
      reference: body.reference,
      flow: 'direct',
      status: 'processing',
      confirmationRequired: true,
      confirmationStatus: 'none',
      paymentUrl: null,
      customer: { name: body.customerName ?? '', phoneNumber: phone },
      // Providers that redirect the customer (Wave's checkout) send them back here.
      ...(body.action ? { action: body.action } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}),
      country: payin.country,
      provider,
      currency,
      amount,
      ...this.pricing(payin.provider, payin.country, amount, currency, await this.payFee(merchantId, body)),
      sandboxScenario: body.sandboxScenario ?? null,
      failure: null,
      workflowId: transactionWorkflowId('payin', merchantId, body.reference),
      idempotencyKey: idempotencyKey ?? null,
      requestFingerprint: requestFingerprint ?? null,
      createdAt: now,
      updatedAt: now,
    };
    // The start marker beside the reference's claim: both land before the record is stored.
    const stored = await this.deps.transactions.insertOrGet(draft, {
      alongside: () => this.workflows.mark(draft),
    });
    if (!stored.created) assertSameRequest(stored.transaction, idempotencyKey, requestFingerprint);
    const tx = stored.transaction;
    const otpId = payin.otp ? await this.storeOtp(payin.otp) : undefined;
    const started = await this.workflows.startPayin(tx, { otpId, answerFirst: true });
    // Not taken by a workflow (a retry finding it running or ended): nobody else will delete it. A
    // failed start keeps it, as the start may have happened; its expiry or the next put removes it.
    if (otpId && started !== 'started') await this.deps.otps!.forget(otpId).catch(() => undefined);
    // WAVE's customer pays on Wave's own page: the merchant needs its address in this very answer,
    // so wait (briefly) for the operator's first answer. Other operators push to the phone. Bounded:
    // with no worker up (or a slow operator) the answer comes without it, and GET shows it later.
    if (payin.provider === 'WAVE' && !tx.paymentUrl && started !== 'final') {
      const handle = this.deps.temporal.workflow.getHandle(tx.workflowId);
      const state = await this.deps.temporal
        .withDeadline(Date.now() + this.deps.operatorAnswerWaitMs, () =>
          handle.executeUpdate(operatorAnswerUpdate),
        )
        .catch(() => null);
      if (state?.paymentUrl) return { ...stored, transaction: { ...tx, paymentUrl: state.paymentUrl } };
    }
    return stored;
  }

  /**
   * Endpoint 3: a payment intent. Nothing is collected until the customer confirms on the hosted
   * checkout page (`paymentUrl`); its workflow waits for that, for a decline, or for the expiry.
   */
  async createSession(
    merchantId: string,
    body: PayinSessionRequest,
    opts: {
      idempotencyKey?: string | undefined;
      requestFingerprint?: string | undefined;
      requestOrigin: string;
      /** The payment link whose page asks for this session (docs/payment-links.md). */
      paymentLinkId?: string | undefined;
      /** The operators the checkout offers (a payment link's); omitted: every one of the country. */
      operators?: OperatorCode[] | undefined;
    },
  ): Promise<{ created: boolean; transaction: Transaction }> {
    const phone = normalizeMsisdn(body.msisdn, body.country);
    if (!phone) throw invalidField('msisdn', fieldMessages.invalidMsisdn(body.country));
    // The customer chooses the operator later: refuse now an amount that no operator would take.
    const offers = providersOf(body.country).filter((p) => p.available);
    if (!offers.some((p) => body.amount >= p.minAmount && body.amount <= p.maxAmount)) {
      const min = Math.min(...offers.map((p) => p.minAmount));
      const max = Math.max(...offers.map((p) => p.maxAmount));
      throw problemAt(
        'AMOUNT_OUT_OF_RANGE',
        'amount',
        fieldMessages.amountOutOfCountryRange(min, max, body.country),
      );
    }
    // The customer chooses later: refuse only when no offered provider could take the payin now.
    await refuseWhenAllClosed(this.deps.providerHealth, merchantId, offers, body.country);
    const currency = currencyByCountry[body.country];
    const amount = toMinor(body.amount, currency);
    const id = newId('pr');
    const base = (this.deps.publicBaseUrl ?? opts.requestOrigin).replace(/\/+$/, '');
    const now = new Date();
    const draft: Transaction = {
      id,
      merchantId,
      kind: 'payin',
      refundIds: [],
      reference: body.reference,
      flow: 'session',
      status: 'processing',
      confirmationRequired: true,
      confirmationStatus: 'none',
      paymentUrl: `${base}/checkout/${id}`,
      customer: { name: body.customerName ?? '', phoneNumber: phone },
      country: body.country,
      provider: null,
      currency,
      amount,
      ...this.pricing(null, body.country, amount, currency, await this.payFee(merchantId, body)),
      sandboxScenario: body.sandboxScenario ?? null,
      failure: null,
      action: { successUrl: body.action.successUrl, failureUrl: body.action.failureUrl },
      ...(body.metadata ? { metadata: body.metadata } : {}),
      ...(opts.paymentLinkId ? { paymentLinkId: opts.paymentLinkId } : {}),
      ...(opts.operators ? { operators: opts.operators } : {}),
      workflowId: transactionWorkflowId('payin', merchantId, body.reference),
      idempotencyKey: opts.idempotencyKey ?? null,
      requestFingerprint: opts.requestFingerprint ?? null,
      createdAt: now,
      updatedAt: now,
    };
    // The start marker beside the reference's claim: both land before the record is stored.
    const stored = await this.deps.transactions.insertOrGet(draft, {
      alongside: () => this.workflows.mark(draft),
    });
    // Same rule as the direct flow: only this very request (its retry) may get the stored one back.
    if (!stored.created) assertSameRequest(stored.transaction, opts.idempotencyKey, opts.requestFingerprint);
    await this.workflows.startPayin(stored.transaction, { answerFirst: true });
    return stored;
  }

  /** Stores the OTP apart (sealed, short-lived); the workflow gets its id only. */
  private async storeOtp(otp: string): Promise<string> {
    if (!this.deps.otps) throw new Error('an OTP needs the OTP store: it never enters a workflow');
    return (await this.deps.otps.put(otp)).id;
  }

  /** The request's choice, else the merchant's setting, else the merchant bears the fee. */
  private async payFee(merchantId: string, body: { payFee?: boolean | undefined }): Promise<boolean> {
    return body.payFee ?? (await this.deps.payFeeOf?.(merchantId)) ?? true;
  }

  /**
   * Fee and charged amount from the fee schedule (docs/fees.md). payFee true, the merchant bears
   * the fee: the customer pays `amount`, the merchant is credited amount - fee. payFee false, the
   * customer pays amount + fee (what the operator collects) and the merchant is credited `amount`.
   * A session's operator is unknown at creation, so its fee is the country's.
   */
  private pricing(
    provider: OperatorCode | null,
    country: Country,
    amount: number,
    currency: Currency,
    payFee: boolean,
  ) {
    const fee = computeFee('payin', provider, country, amount, currency, this.deps.feeSchedule);
    return { fee, chargedAmount: splitFee('payin', amount, fee, payFee).chargedAmount, payFee };
  }

  async get(merchantId: string, reference: string): Promise<Transaction | null> {
    return this.deps.transactions.find(merchantId, 'payin', reference);
  }
}

/**
 * Wave's checkout sends the customer back to https addresses only
 * (docs/decisions/operators/provider-rules-checked-at-request.md).
 */
function refuseNonHttpsReturn(
  action: DirectPayinRequest['action'],
  operator: OperatorCode,
  country: Country,
): void {
  const message = fieldMessages.httpsReturnUrl(operator, country);
  const errors = (['successUrl', 'failureUrl'] as const)
    .filter((k) => new URL(action[k]).protocol !== 'https:')
    .map((k) => ({ path: `action.${k}`, message }));
  if (errors.length > 0) throw new ApiProblem('VALIDATION_ERROR', { detail: message, errors });
}

/**
 * The reference is taken. By this very request (its retry after a crash, the idempotency record
 * gone): carry on and answer it. By another request, another key: refuse, never a second payin.
 * The same key with another body: refused too, as the idempotency middleware does while it still
 * knows the key (a payin stored before fingerprints existed is answered as before).
 */
function assertSameRequest(
  tx: Transaction,
  idempotencyKey: string | undefined,
  requestFingerprint: string | undefined,
): void {
  if (!idempotencyKey || tx.idempotencyKey !== idempotencyKey) throw duplicateReference('payin');
  if (fingerprintsDiffer(tx.requestFingerprint, requestFingerprint))
    throw new ApiProblem('IDEMPOTENCY_KEY_REUSED');
}
