import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import type { TransactionStore } from '../persistence/transactions';
import type { WorkflowStartLog } from '../persistence/workflow-starts';
import type { Account, Ledger } from '../ledger';
import {
  currencyByCountry,
  isOffered,
  operatorCodes,
  operatorsByCountry,
  providerName,
} from '../domain/operators';
import type { Country, OperatorCode } from '../domain/operators';
import { toMinor } from '../domain/money';
import { computeFee, splitFee, type FeeSchedule } from '../domain/fees';
import { newId } from '../domain/ids';
import type { Metadata } from '../domain/metadata';
import { normalizeMsisdn } from '../domain/msisdn';
import { belongsToAnotherOperator, predictCarrier } from '../domain/operator-prefixes';
import { providerInfo } from '../domain/providers';
import type { PayoutDetails, SandboxScenario, Transaction } from '../domain/transaction';
import { transactionWorkflowId } from '../temporal/workflow-ids';
import { ApiProblem } from '../contract/problems';
import {
  duplicateReference,
  fieldMessages,
  invalidField,
  problemAt,
  providerRuleProblem,
} from '../contract/field-messages';
import { TransactionWorkflows } from './transaction-workflows';
import { isFinal } from '../domain/final-status';
import { fingerprintsDiffer } from '../security/request-fingerprint';
import { RETRY_AFTER_SECONDS } from '../persistence/unavailable';
import { cancelPayoutUpdate, type PayoutCancelAnswer } from '../../workflows/payout/payout-api';

/** How long a cancellation waits for the payout's workflow to decide before answering 503. */
const CANCEL_DECISION_WAIT_MS = 10_000;

/** Cancelled by its merchant before it was sent (workflows/payout/payout.ts): the code its record keeps. */
export const isCancelledBeforeSending = (tx: Transaction): boolean =>
  tx.status === 'reversed' && tx.failure?.code === 'CANCELLED' && !tx.payout?.operatorStatus;

const notCancellable = () => new ApiProblem('PAYOUT_NOT_CANCELLABLE');
const undecided = () =>
  new ApiProblem('DECISION_PENDING', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });

export interface PayoutServiceDeps {
  transactions: TransactionStore;
  /** Markers of workflows about to start, for the recovery sweep. */
  starts: WorkflowStartLog;
  ledger: Ledger;
  temporal: Client;
  taskQueue: string;
  payoutExpiryMs: number;
  feeSchedule: FeeSchedule;
}

/** A payout request of any of the three shapes, with where its fields sit in the body (for errors). */
export interface PayoutInput {
  shape: PayoutDetails['shape'];
  reference: string;
  sandboxScenario?: SandboxScenario | undefined;
  customerName?: string | undefined;
  /** Whole units. */
  amount: number;
  msisdn: string;
  provider?: OperatorCode | undefined;
  country: Country;
  /** Shape B only. */
  accountId?: string | undefined;
  /** `payout.` for the direct flow, '' for the flat standard shapes. */
  pathPrefix: string;
  /** The merchant's own pairs, stored on the payout (never in its workflow's input). */
  metadata?: Metadata | undefined;
}

const insufficient = () =>
  new ApiProblem('INSUFFICIENT_BALANCE', {
    detail: {
      en: 'The account balance does not cover the amount plus the fee (chargedAmount).',
      fr: 'Le solde du compte ne couvre pas le montant augmenté des frais (chargedAmount).',
    },
  });

export class PayoutService {
  private readonly workflows: TransactionWorkflows;

  constructor(private readonly deps: PayoutServiceDeps) {
    this.workflows = new TransactionWorkflows({
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      starts: deps.starts,
      transactions: deps.transactions,
      ledger: deps.ledger,
      payoutExpiryMs: deps.payoutExpiryMs,
    });
  }

  /**
   * Debits the account, then starts the payout's workflow, so the answer tells whether the money
   * was there. Order: start marker, record (pending; reserves the reference), debit (fixed
   * sourceRef), workflow (fixed id), marker removed. Each step is idempotent, so a retry with the
   * same key after a crash completes the job, and without a retry the recovery sweep does; a refused
   * debit removes the record, leaving no workflow, no entry and no record.
   */
  async create(
    merchantId: string,
    input: PayoutInput,
    idempotencyKey?: string,
    requestFingerprint?: string,
    /** The hold of an atomic bulk payout that funds it (its balance was checked when held). */
    fundedFrom?: string,
  ): Promise<{ created: boolean; transaction: Transaction }> {
    const existing = await this.deps.transactions.find(merchantId, 'payout', input.reference);
    if (existing) return this.resume(existing, idempotencyKey, requestFingerprint);
    const draft = await this.prepare(merchantId, input, idempotencyKey, requestFingerprint);
    // Refused before anything is written; the ledger's own check decides races.
    if (fundedFrom) draft.transaction.payout!.fundedFrom = fundedFrom;
    else if (draft.balance < draft.transaction.chargedAmount) throw insufficient();
    return this.store(draft.transaction, idempotencyKey, requestFingerprint);
  }

  /**
   * Every check of a payout request, nothing written: the payout it would store and the balance
   * of the account it would debit. Throws the request's problem (400, 404) when it cannot be made.
   */
  async prepare(
    merchantId: string,
    input: PayoutInput,
    idempotencyKey?: string,
    requestFingerprint?: string,
  ): Promise<{ transaction: Transaction; balance: number }> {
    const p = input.pathPrefix;
    const phone = normalizeMsisdn(input.msisdn, input.country);
    if (!phone) throw invalidField(`${p}msisdn`, fieldMessages.invalidMsisdn(input.country));
    const operator = this.operatorFor(input, phone);
    const limits = providerInfo(operator, input.country);
    if (input.amount < limits.minAmount || input.amount > limits.maxAmount) {
      throw providerRuleProblem(
        { code: 'AMOUNT_OUT_OF_RANGE', path: 'amount', min: limits.minAmount, max: limits.maxAmount },
        { operator, country: input.country },
        p,
      );
    }
    const currency = currencyByCountry[input.country];
    const amount = toMinor(input.amount, currency);
    const fee = computeFee('payout', operator, input.country, amount, currency, this.deps.feeSchedule);
    const { chargedAmount } = splitFee('payout', amount, fee, true);
    const account = await this.accountToDebit(merchantId, input, currency);

    const now = new Date();
    const draft: Transaction = {
      id: newId('pr'),
      merchantId,
      kind: 'payout',
      reference: input.reference,
      flow: input.shape === 'direct' ? 'direct' : 'standard',
      status: 'pending',
      confirmationRequired: false,
      confirmationStatus: 'none',
      paymentUrl: null,
      customer: { name: input.customerName ?? '', phoneNumber: phone },
      country: input.country,
      provider: providerName(operator, input.country),
      currency,
      amount,
      fee,
      chargedAmount,
      // The merchant bears payout fees: it is debited amount + fee, the beneficiary gets amount.
      payFee: true,
      sandboxScenario: input.sandboxScenario ?? null,
      failure: null,
      ...(input.metadata ? { metadata: input.metadata } : {}),
      payout: {
        shape: input.shape,
        accountId: account!.id,
        transferReference: newId('mtr'),
        operatorReference: null,
        processedAt: null,
        operatorStatus: null,
      },
      workflowId: transactionWorkflowId('payout', merchantId, input.reference),
      idempotencyKey: idempotencyKey ?? null,
      requestFingerprint: requestFingerprint ?? null,
      createdAt: now,
      updatedAt: now,
    };
    return { transaction: draft, balance: account?.balance ?? 0 };
  }

  private async store(
    draft: Transaction,
    idempotencyKey: string | undefined,
    requestFingerprint: string | undefined,
  ): Promise<{ created: boolean; transaction: Transaction }> {
    // The start marker beside the reference's claim: both land before the record is stored.
    const stored = await this.deps.transactions.insertOrGet(draft, {
      alongside: () => this.workflows.mark(draft),
    });
    if (!stored.created) return this.resume(stored.transaction, idempotencyKey, requestFingerprint);
    return { created: true, transaction: await this.debitAndStart(stored.transaction) };
  }

  /**
   * The reference is taken. By this very request (its retry after a crash, the idempotency record
   * gone): carry on. By another key, or by this key with another body: refuse (a payout stored
   * before fingerprints existed is answered as before). A final payout is only answered.
   */
  private async resume(
    tx: Transaction,
    idempotencyKey: string | undefined,
    requestFingerprint: string | undefined,
  ): Promise<{ created: boolean; transaction: Transaction }> {
    if (!idempotencyKey || tx.idempotencyKey !== idempotencyKey) {
      throw duplicateReference('payout');
    }
    if (fingerprintsDiffer(tx.requestFingerprint, requestFingerprint))
      throw new ApiProblem('IDEMPOTENCY_KEY_REUSED');
    // A record whose creating request left no marker (stored before markers existed) gets one now.
    if (!isFinal(tx.kind, tx.status)) await this.workflows.mark(tx);
    return { created: false, transaction: await this.debitAndStart(tx) };
  }

  /** The API's debit, then the workflow; nothing for a final payout (it ran once already). */
  private async debitAndStart(tx: Transaction): Promise<Transaction> {
    if ((await this.workflows.startPayout(tx, { answerFirst: true })) === 'refused') throw insufficient();
    return tx;
  }

  private operatorFor(input: PayoutInput, phone: string): OperatorCode {
    const path = `${input.pathPrefix}provider`;
    if (input.provider) {
      if (!isOffered(input.provider, input.country)) {
        const allowed = operatorsByCountry[input.country].join(', ');
        throw invalidField(path, fieldMessages.providerNotOffered(input.provider, input.country, allowed));
      }
      if (belongsToAnotherOperator(phone, input.provider)) {
        throw providerRuleProblem(
          { code: 'MSISDN_PROVIDER_MISMATCH', path: 'msisdn' },
          { operator: input.provider, country: input.country },
          input.pathPrefix,
        );
      }
      return input.provider;
    }
    const carrier = predictCarrier(phone)?.carrier ?? null;
    const predicted = operatorCodes.find((c) => c === carrier);
    if (!predicted || !isOffered(predicted, input.country)) {
      throw invalidField(path, fieldMessages.operatorNotPredictable);
    }
    return predicted;
  }

  /** Shape B: the merchant's own main or sub-account, in the country's currency; else its main account. */
  private async accountToDebit(
    merchantId: string,
    input: PayoutInput,
    currency: Transaction['currency'],
  ): Promise<Account | null> {
    if (input.shape !== 'B') {
      // Looked up, not created: a merchant without an account simply has no balance.
      const accounts = await this.deps.ledger.listAccounts(merchantId);
      const main = accounts.find((a) => a.kind === 'main' && a.currency === currency) ?? null;
      if (!main) throw insufficient();
      return main;
    }
    const account = input.accountId ? await this.deps.ledger.getAccount(input.accountId) : null;
    if (!account || account.merchantId !== merchantId || account.kind === 'system')
      throw problemAt('ACCOUNT_NOT_FOUND', 'accountId', fieldMessages.unknownAccount);
    if (account.currency !== currency) {
      throw invalidField(
        'accountId',
        fieldMessages.accountCurrency(account.currency, input.country, currency),
      );
    }
    return account;
  }

  /**
   * Cancels a payout not yet sent to the operator (held for its provider, or not yet taken up): its
   * workflow decides (the `cancelPayout` Update), returns the debit once and records it `reversed`
   * (failure CANCELLED). Asked again, a cancelled payout is answered as it is; one with the operator
   * or ended otherwise is 409 PAYOUT_NOT_CANCELLABLE; an unknown reference 404.
   */
  async cancel(merchantId: string, reference: string, flow: 'direct' | 'standard'): Promise<Transaction> {
    const tx = await this.get(merchantId, reference, flow);
    if (!tx) throw new ApiProblem('PAYOUT_NOT_FOUND');
    if (isCancelledBeforeSending(tx)) return tx;
    if (isFinal(tx.kind, tx.status) || tx.status !== 'pending') throw notCancellable();

    let answer: PayoutCancelAnswer;
    try {
      const handle = this.deps.temporal.workflow.getHandle(tx.workflowId);
      answer = await this.deps.temporal.withDeadline(Date.now() + CANCEL_DECISION_WAIT_MS, () =>
        handle.executeUpdate(cancelPayoutUpdate),
      );
    } catch (err) {
      // Ended meanwhile (by this cancellation's twin, or otherwise), or a workflow of code from
      // before cancellations (it has no handler: it was sent when it started): the record says.
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) {
        const now = await this.settled(tx.id, () => true);
        if (now && isCancelledBeforeSending(now)) return now;
        // Not started yet (the recovery sweep starts it): cancellable in a moment.
        if (err instanceof WorkflowNotFoundError && now?.status === 'pending') throw undecided();
        throw notCancellable();
      }
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) throw undecided();
      throw err;
    }
    if (answer.outcome !== 'cancelled') throw notCancellable();
    // The workflow wrote `reversed` before answering; a read may trail that write under load.
    const done = await this.settled(tx.id, isCancelledBeforeSending);
    if (!done) throw undecided();
    return done;
  }

  /** The payout read again for up to about two seconds until `ok` holds (null if it never does). */
  private async settled(id: string, ok: (tx: Transaction) => boolean): Promise<Transaction | null> {
    for (let attempt = 0; ; attempt++) {
      const tx = await this.deps.transactions.findById(id);
      if ((tx && ok(tx)) || attempt === 10) return tx && ok(tx) ? tx : null;
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  /** Endpoint 5 reads direct payouts, endpoint 7 standard ones (shape A or B). */
  async get(merchantId: string, reference: string, flow: 'direct' | 'standard'): Promise<Transaction | null> {
    const tx = await this.deps.transactions.find(merchantId, 'payout', reference);
    return tx && tx.flow === flow ? tx : null;
  }
}
