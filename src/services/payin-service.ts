import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { TransactionStore } from '../persistence/transactions';
import type { DirectPayinRequest } from '../api/schemas/payin';
import { currencyByCountry, isOffered, operatorsByCountry, providerName } from '../domain/operators';
import { toMinor } from '../domain/money';
import { newId } from '../domain/ids';
import { normalizeMsisdn } from '../domain/msisdn';
import type { Transaction } from '../domain/transaction';
import { transactionWorkflowId } from '../temporal/workflow-ids';
import { saKind, saMerchantId, saProvider, saReference, saStatus } from '../temporal/search-attributes';
import { ApiProblem } from '../api/problem';
import type { PayinWorkflowInput } from '../../workflows/payin';

export interface PayinServiceDeps {
  transactions: TransactionStore;
  temporal: Client;
  taskQueue: string;
  payinExpiryMs: number;
  refundWindowMs: number;
}

function fieldProblem(path: string, en: string, fr: string): ApiProblem {
  return new ApiProblem('VALIDATION_ERROR', { detail: { en, fr }, errors: [{ path, message: en }] });
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
    const currency = currencyByCountry[payin.country];
    const amount = toMinor(payin.amount, currency);
    const provider = providerName(payin.provider, payin.country);
    const now = new Date();
    const draft: Transaction = {
      id: newId('pr'),
      merchantId,
      kind: 'payin',
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
      fee: 0,
      chargedAmount: amount,
      payFee: true,
      sandboxScenario: body.sandboxScenario ?? null,
      failure: null,
      workflowId: transactionWorkflowId('payin', merchantId, body.reference),
      createdAt: now,
      updatedAt: now,
    };
    const stored = await this.deps.transactions.insertOrGet(draft);
    await this.startWorkflow(stored.transaction, payin.otp);
    return stored;
  }

  private async startWorkflow(tx: Transaction, otp: string | undefined): Promise<void> {
    const input: PayinWorkflowInput = {
      transactionId: tx.id,
      provider: tx.provider!,
      collection: {
        transactionId: tx.id,
        operator: tx.provider!.split('_')[0] as PayinWorkflowInput['collection']['operator'],
        country: tx.country,
        msisdn: tx.customer.phoneNumber,
        amount: tx.amount,
        currency: tx.currency,
        ...(otp ? { otp } : {}),
        sandboxScenario: tx.sandboxScenario,
      },
      expiryMs: this.deps.payinExpiryMs,
      refundWindowMs: this.deps.refundWindowMs,
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
          { key: saProvider, value: tx.provider! },
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
