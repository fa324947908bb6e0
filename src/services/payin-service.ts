import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { TransactionStore } from '../persistence/transactions';
import type { DirectPayinRequest } from '../api/schemas/payin';
import type { PayinSessionRequest } from '../api/schemas/payin-session';
import type { CollectionRequest } from '../operators/gateway';
import { providersOf } from '../domain/providers';
import { assertPayinFitsProvider } from './provider-rules';
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
import { saKind, saMerchantId, saProvider, saReference, saStatus } from '../temporal/search-attributes';
import { ApiProblem } from '../api/problem';
import { operatorAnswerUpdate, type PayinWorkflowInput } from '../../workflows/payin-api';
import { CODE_REVISION } from '../../workflows/code-revision';

export interface PayinServiceDeps {
  transactions: TransactionStore;
  temporal: Client;
  taskQueue: string;
  payinExpiryMs: number;
  refundWindowMs: number;
  /** The merchant's own refund window, fixed into each payin at its creation; null: refundWindowMs. */
  refundWindowMsOf?: (merchantId: string) => Promise<number | null>;
  sessionExpiryMs: number;
  correctionWindowMs: number;
  partnerCheckIntervalMs: number;
  /** How long the create call waits for WAVE's redirect address before answering without it. */
  operatorAnswerWaitMs: number;
  feeSchedule: FeeSchedule;
  /** PUBLIC_BASE_URL: where customers reach the checkout page; unset, the request's own origin. */
  publicBaseUrl?: string | undefined;
}

function fieldProblem(path: string, en: string, fr: string): ApiProblem {
  return new ApiProblem('VALIDATION_ERROR', { detail: { en, fr }, errors: [{ path, message: { en, fr } }] });
}

export class PayinService {
  constructor(private readonly deps: PayinServiceDeps) {}

  /**
   * Stores the payin, then starts its workflow. Both steps are idempotent (unique reference,
   * deterministic workflow id), so a retry after a crash between them completes the job.
   */
  async createDirect(
    merchantId: string,
    body: DirectPayinRequest,
    idempotencyKey?: string,
  ): Promise<{ created: boolean; transaction: Transaction }> {
    const { payin } = body;
    if (!isOffered(payin.provider, payin.country)) {
      const allowed = operatorsByCountry[payin.country].join(', ');
      throw fieldProblem(
        'payin.provider',
        `${payin.provider} is not offered in ${payin.country}; allowed: ${allowed}.`,
        `${payin.provider} n'est pas proposé en ${payin.country} ; valeurs possibles : ${allowed}.`,
      );
    }
    const phone = normalizeMsisdn(payin.msisdn, payin.country);
    if (!phone) {
      throw fieldProblem(
        'payin.msisdn',
        `Not a valid mobile number in ${payin.country}.`,
        `Ce n'est pas un numéro mobile valide en ${payin.country}.`,
      );
    }
    assertPayinFitsProvider(
      {
        operator: payin.provider,
        country: payin.country,
        msisdn: phone,
        amount: payin.amount,
        otp: payin.otp,
      },
      'payin.',
    );
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
      country: payin.country,
      provider,
      currency,
      amount,
      ...this.pricing(payin.provider, payin.country, amount, currency),
      sandboxScenario: body.sandboxScenario ?? null,
      failure: null,
      workflowId: transactionWorkflowId('payin', merchantId, body.reference),
      idempotencyKey: idempotencyKey ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const stored = await this.deps.transactions.insertOrGet(draft);
    // The reference is taken. By this very request (a retry after a crash): carry on and answer it.
    // By another request: refuse, never a second transaction.
    if (!stored.created && (!idempotencyKey || stored.transaction.idempotencyKey !== idempotencyKey)) {
      throw new ApiProblem('DUPLICATE_REFERENCE', {
        errors: [
          {
            path: 'reference',
            message: { en: 'Already used by another payin.', fr: 'Déjà utilisée par un autre paiement.' },
          },
        ],
      });
    }
    const tx = stored.transaction;
    await this.startWorkflow(tx, {
      transactionId: tx.id,
      operator: payin.provider,
      country: tx.country,
      msisdn: tx.customer.phoneNumber,
      amount: tx.amount,
      currency: tx.currency,
      ...(payin.otp ? { otp: payin.otp } : {}),
      sandboxScenario: tx.sandboxScenario,
    });
    // WAVE's customer pays on Wave's own page: the merchant needs its address in this very answer,
    // so wait (briefly) for the operator's first answer. Other operators push to the phone. Bounded:
    // with no worker up (or a slow operator) the answer comes without it, and GET shows it later.
    if (payin.provider === 'WAVE' && !tx.paymentUrl) {
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
    opts: { idempotencyKey?: string | undefined; requestOrigin: string },
  ): Promise<{ created: boolean; transaction: Transaction }> {
    const phone = normalizeMsisdn(body.msisdn, body.country);
    if (!phone) {
      throw fieldProblem(
        'msisdn',
        `Not a valid mobile number in ${body.country}.`,
        `Ce n'est pas un numéro mobile valide en ${body.country}.`,
      );
    }
    // The customer chooses the operator later: refuse now an amount that no operator would take.
    const offers = providersOf(body.country).filter((p) => p.available);
    if (!offers.some((p) => body.amount >= p.minAmount && body.amount <= p.maxAmount)) {
      const min = Math.min(...offers.map((p) => p.minAmount));
      const max = Math.max(...offers.map((p) => p.maxAmount));
      throw new ApiProblem('AMOUNT_OUT_OF_RANGE', {
        errors: [
          {
            path: 'amount',
            message: {
              en: `Must be between ${min} and ${max} in ${body.country}.`,
              fr: `Doit être compris entre ${min} et ${max} en ${body.country}.`,
            },
          },
        ],
      });
    }
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
      ...this.pricing(null, body.country, amount, currency),
      sandboxScenario: body.sandboxScenario ?? null,
      failure: null,
      action: { successUrl: body.action.successUrl, failureUrl: body.action.failureUrl },
      workflowId: transactionWorkflowId('payin', merchantId, body.reference),
      idempotencyKey: opts.idempotencyKey ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const stored = await this.deps.transactions.insertOrGet(draft);
    // Same rule as the direct flow: only this very request (its retry) may get the stored one back.
    if (
      !stored.created &&
      (!opts.idempotencyKey || stored.transaction.idempotencyKey !== opts.idempotencyKey)
    ) {
      throw new ApiProblem('DUPLICATE_REFERENCE', {
        errors: [
          {
            path: 'reference',
            message: { en: 'Already used by another payin.', fr: 'Déjà utilisée par un autre paiement.' },
          },
        ],
      });
    }
    await this.startWorkflow(stored.transaction, null);
    return stored;
  }

  /**
   * Fee and charged amount from the fee schedule. The merchant bears payin fees (payFee true):
   * the customer pays `amount`, the merchant is credited amount - fee (docs/fees.md). A session's
   * operator is unknown at creation, so its fee is the country's.
   */
  private pricing(provider: OperatorCode | null, country: Country, amount: number, currency: Currency) {
    const payFee = true;
    const fee = computeFee('payin', provider, country, amount, currency, this.deps.feeSchedule);
    return { fee, chargedAmount: splitFee('payin', amount, fee, payFee).chargedAmount, payFee };
  }

  /** `collection` is null for a session: the customer's choice on the checkout page supplies it. */
  private async startWorkflow(tx: Transaction, collection: CollectionRequest | null): Promise<void> {
    const input: PayinWorkflowInput = {
      transactionId: tx.id,
      merchantId: tx.merchantId,
      reference: tx.reference,
      flow: tx.flow === 'session' ? 'session' : 'direct',
      country: tx.country,
      currency: tx.currency,
      amount: tx.amount,
      sandboxScenario: tx.sandboxScenario,
      collection,
      timing: {
        expiryMs: this.deps.payinExpiryMs,
        sessionExpiryMs: this.deps.sessionExpiryMs,
        correctionWindowMs: this.deps.correctionWindowMs,
        partnerCheckIntervalMs: this.deps.partnerCheckIntervalMs,
        refundWindowMs: (await this.deps.refundWindowMsOf?.(tx.merchantId)) ?? this.deps.refundWindowMs,
      },
      codeRevision: CODE_REVISION,
    };
    try {
      await this.deps.temporal.workflow.start('payinWorkflow', {
        taskQueue: this.deps.taskQueue,
        workflowId: tx.workflowId,
        args: [input],
        typedSearchAttributes: [
          { key: saMerchantId, value: tx.merchantId },
          { key: saKind, value: 'payin' },
          { key: saReference, value: tx.reference },
          // A session has no provider until the customer picks one; the workflow sets it then.
          ...(tx.provider ? [{ key: saProvider, value: tx.provider }] : []),
          { key: saStatus, value: tx.status },
        ],
        memo: { amount: tx.amount, currency: tx.currency },
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  async get(merchantId: string, reference: string): Promise<Transaction | null> {
    return this.deps.transactions.find(merchantId, 'payin', reference);
  }
}
