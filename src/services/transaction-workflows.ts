import type { Client } from '@temporalio/client';
import type { TransactionStore } from '../persistence/transactions';
import type { StartOutcome, WorkflowStartLog } from '../persistence/workflow-starts';
import type { OperatorCode } from '../domain/operators';
import type { Transaction } from '../domain/transaction';
import type { PayinTiming } from '../domain/payin-timing';
import { isFinal } from '../domain/final-status';
import { InsufficientFundsError, type Ledger } from '../ledger';
import { startTransactionWorkflow, type StartResult, type TransactionStart } from './start-workflow';
import { debitPayout } from '../ledger/postings';
import type { PayinCollection, PayinWorkflowInput } from '../../workflows/payin/payin-api';
import type { PayoutWorkflowInput } from '../../workflows/payout/payout';

// When and with what a payin's or payout's workflow is started: the input built from the stored
// record, its start marker, and the payout's debit before it. One place, shared by the API (services)
// and the recovery sweep (src/recovery/sweep.ts), so a recovered transaction runs exactly as the API
// would have run it; the start itself (options, id policy) is src/services/start-workflow.ts.
//
// Every transaction runs once: the start rejects a workflow id that was ever used (REJECT_DUPLICATE:
// a closed run is never followed by a second one), and a transaction whose stored status is final
// (src/domain/final-status.ts) is never started at all (its closed run may have left Temporal's
// retention by the time a retry comes).

/** Operator code of a stored provider name (`MTN_CI` -> `MTN`). */
export const operatorOf = (provider: string): OperatorCode => provider.split('_')[0] as OperatorCode;

export interface TransactionWorkflowsDeps {
  temporal: Client;
  taskQueue: string;
  starts: WorkflowStartLog;
  transactions: TransactionStore;
  /** Payins only. */
  payin?: PayinTiming | undefined;
  /** Payouts only. */
  payoutExpiryMs?: number | undefined;
  /** Payouts only: the debit that precedes the workflow. */
  ledger?: Ledger | undefined;
}

/**
 * The collection a direct payin asks of the operator, from its stored record. The OTP (Orange) is
 * not in the record: the creating request stored it apart (src/persistence/otp-store.ts) and the
 * workflow gets its id only; without one (the sweep) the operator refuses the payin.
 */
export function directCollectionOf(tx: Transaction, otpId?: string): PayinCollection {
  if (tx.kind !== 'payin' || tx.flow !== 'direct' || !tx.provider)
    throw new Error(`transaction ${tx.id} is not a direct payin`);
  return {
    transactionId: tx.id,
    operator: operatorOf(tx.provider),
    country: tx.country,
    msisdn: tx.customer.phoneNumber,
    // What the customer pays: amount + fee when the customer bears the fee (docs/fees.md).
    amount: tx.chargedAmount,
    currency: tx.currency,
    ...(otpId ? { otpId } : {}),
    sandboxScenario: tx.sandboxScenario,
    scope: tx.merchantId,
    ...(tx.action ? { successUrl: tx.action.successUrl, failureUrl: tx.action.failureUrl } : {}),
  };
}

export interface StartOptions {
  /**
   * The API's requests: answer without waiting for the start marker's removal (one store round trip
   * off the creation's latency). A removal that never lands leaves a marker of a running workflow,
   * which the sweep removes when it finds the workflow (src/recovery/sweep.ts).
   */
  answerFirst?: boolean;
}

export class TransactionWorkflows {
  constructor(private readonly deps: TransactionWorkflowsDeps) {}

  /** Written before the record is stored: a crash from here until the start leaves it for the sweep. */
  async mark(tx: Pick<Transaction, 'workflowId' | 'kind' | 'merchantId' | 'reference'>): Promise<void> {
    await this.deps.starts.mark({
      _id: tx.workflowId,
      kind: tx.kind,
      merchantId: tx.merchantId,
      reference: tx.reference,
    });
  }

  /**
   * Done with the marker. Failing to remove it is harmless: the sweep finds the workflow running and
   * removes it then, so the caller's answer does not depend on it.
   */
  async unmark(workflowId: string): Promise<void> {
    await this.deps.starts.clear(workflowId).catch(() => undefined);
  }

  async payinInput(tx: Transaction, collection: PayinCollection | null): Promise<PayinWorkflowInput> {
    const t = this.deps.payin;
    if (!t) throw new Error('starting a payin needs its timing');
    return {
      transactionId: tx.id,
      merchantId: tx.merchantId,
      reference: tx.reference,
      flow: tx.flow === 'session' ? 'session' : 'direct',
      country: tx.country,
      currency: tx.currency,
      // What the operator collects and what refunds are bounded by: the amount the customer paid
      // (amount + fee when the customer pays the fee, docs/fees.md).
      amount: tx.chargedAmount,
      sandboxScenario: tx.sandboxScenario,
      collection,
      timing: {
        expiryMs: t.payinExpiryMs,
        sessionExpiryMs: t.sessionExpiryMs,
        correctionWindowMs: t.correctionWindowMs,
        partnerCheckIntervalMs: t.partnerCheckIntervalMs,
        refundWindowMs: (await t.refundWindowMsOf?.(tx.merchantId)) ?? t.refundWindowMs,
        ...(t.otpLifetimeMs !== undefined ? { otpLifetimeMs: t.otpLifetimeMs } : {}),
        // Only when off: a payin's input stays as it was by default.
        ...(t.localActivities === false ? { localActivities: false } : {}),
      },
    };
  }

  payoutInput(tx: Transaction): PayoutWorkflowInput {
    const expiryMs = this.deps.payoutExpiryMs;
    if (expiryMs === undefined) throw new Error('starting a payout needs its expiry');
    return {
      transactionId: tx.id,
      disbursement: {
        transactionId: tx.id,
        operator: operatorOf(tx.provider!),
        country: tx.country,
        msisdn: tx.customer.phoneNumber,
        amount: tx.amount,
        currency: tx.currency,
        sandboxScenario: tx.sandboxScenario,
        scope: tx.merchantId,
      },
      timing: { expiryMs },
    };
  }

  /**
   * Starts a payin's workflow unless its record is final; removes its marker either way. A direct
   * payin's collection is rebuilt from the record, with the id of its stored OTP if any (the sweep:
   * none).
   */
  async startPayin(
    tx: Transaction,
    opts: StartOptions & { otpId?: string | undefined } = {},
  ): Promise<StartOutcome> {
    if (isFinal(tx.kind, tx.status)) {
      await this.unmark(tx.workflowId);
      return 'final';
    }
    const collection = tx.flow === 'session' ? null : directCollectionOf(tx, opts.otpId);
    const outcome = await this.start(tx, { kind: 'payin', input: await this.payinInput(tx, collection) });
    await this.unmarkStarted(tx.workflowId, opts);
    return outcome;
  }

  /**
   * Debits a payout still `pending` (the API's debit; fixed sourceRef, so once), then starts its
   * workflow; nothing for a final one. A debit the balance does not cover removes the record (the
   * payout never happened) and answers `refused`.
   */
  async startPayout(tx: Transaction, opts: StartOptions = {}): Promise<StartOutcome> {
    if (isFinal(tx.kind, tx.status)) {
      await this.unmark(tx.workflowId);
      return 'final';
    }
    if (tx.status === 'pending') {
      if (!this.deps.ledger) throw new Error('starting a payout needs the ledger');
      try {
        await debitPayout(this.deps.ledger, tx);
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        // Nothing was debited and no workflow exists: the payout never happened.
        await this.deps.transactions.removeUnstarted(tx.id);
        await this.unmark(tx.workflowId);
        return 'refused';
      }
    }
    const outcome = await this.start(tx, { kind: 'payout', input: this.payoutInput(tx) });
    await this.unmarkStarted(tx.workflowId, opts);
    return outcome;
  }

  /** The marker of a workflow that runs: removed before answering, or meanwhile (`answerFirst`). */
  private async unmarkStarted(workflowId: string, opts: StartOptions): Promise<void> {
    const cleared = this.unmark(workflowId);
    if (!opts.answerFirst) await cleared;
  }

  private start(tx: Transaction, start: TransactionStart): Promise<StartResult> {
    return startTransactionWorkflow(this.deps.temporal, this.deps.taskQueue, tx, start);
  }
}
