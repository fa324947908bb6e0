import type { DisbursementRequest, OperatorGateway, OperatorStatus } from '../../src/operators/gateway';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { Failure, PayoutDetails, Transaction } from '../../src/domain/transaction';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { Ledger } from '../../src/ledger';
import { debitPayout, payoutSourceRefs, reversePayout, settlePayoutFee } from '../../src/ledger/postings';
import { debitOrRefuse } from '../shared/ledger-refusals';
import { missingRecord } from '../../src/temporal/permanent-errors';
import { modeOfScope } from '../../src/domain/modes';
import type { HealthState, ProviderStateReader } from '../../src/operators/health';

/** The provider's health as the payout workflow sees it. */
export interface PayoutProviderState {
  state: HealthState;
  /** When to look again; null: the workflow's default. */
  retryAfterSeconds: number | null;
}

/** The provider's live health (`ProviderHealth.stateOf`): the activities need only this reader. */
export type { ProviderStateReader };

export interface PayoutActivityDeps {
  transactions: TransactionStore;
  operators: OperatorGateway;
  ledger: Ledger;
  /** Unset: every provider is taken as operational (payouts are sent at once, as before). */
  providerHealth?: ProviderStateReader | undefined;
}

/** What a payout workflow may change on its record; everything else is fixed at creation. */
export interface PayoutStateUpdate {
  status?: Transaction['status'];
  failure?: Failure | null;
  confirmationStatus?: Transaction['confirmationStatus'];
  operatorReference?: string | null;
  processedAt?: string | null;
  operatorStatus?: PayoutDetails['operatorStatus'];
  attention?: Transaction['attention'];
}

/** Activities of the payout workflow. Each is idempotent: a retry or a replay changes nothing twice. */
export function createPayoutActivities({
  transactions,
  operators,
  ledger,
  providerHealth,
}: PayoutActivityDeps) {
  async function payout(id: string): Promise<Transaction> {
    const tx = await transactions.findById(id);
    if (!tx?.payout) throw missingRecord(`payout ${id} not found`);
    return tx;
  }
  /**
   * The payout's fields fixed at creation (merchant, amounts, fee, currency, reference), for a step
   * that uses only those: from this process's memory of it, else its document alone. A versioned
   * write after it leaves the record as written for its event (TransactionStore.applyState).
   */
  async function payoutFixed(id: string): Promise<Transaction> {
    const tx = await transactions.fixedOf(id);
    if (!tx?.payout) throw missingRecord(`payout ${id} not found`);
    return tx;
  }

  return {
    /**
     * Makes sure the account was debited before the operator is asked. The API already applied this
     * very transfer (same sourceRef), so this is normally a replay that writes nothing.
     */
    async ensurePayoutDebited(transactionId: string): Promise<{ applied: boolean }> {
      // A payout's workflow is started only by TransactionWorkflows.startPayout, which applies this
      // debit, both legs, before starting it (the sweep's restart goes through it too): a transfer
      // recorded under its sourceRef is then a complete one, and one `_id` read says so where the
      // replay below costs eight commands and two scans. Not recorded: the debit is applied here.
      if (await ledger.findTransfer(payoutSourceRefs(transactionId).debit)) return { applied: false };
      const tx = await payout(transactionId);
      return { applied: (await debitOrRefuse(() => debitPayout(ledger, tx))).applied };
    },

    /**
     * Whether the payout's provider takes payouts now (docs/payouts.md, "Held for the provider"), in
     * the payout's own mode (its record's scope): a delayed or closed one holds the payout, unsent.
     */
    async payoutProviderState(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<PayoutProviderState> {
      if (!providerHealth) return { state: 'operational', retryAfterSeconds: null };
      // Only its merchant (its mode) is used: fixed at creation.
      const tx = await payoutFixed(transactionId);
      const { state, retryAfterSeconds } = await providerHealth.stateOf(
        modeOfScope(tx.merchantId),
        operator,
        country,
        'payout',
      );
      return { state, retryAfterSeconds: retryAfterSeconds ?? null };
    },

    /** Our transaction id is the operator's idempotency key: a retry after a timeout pays once. */
    async requestDisbursement(req: DisbursementRequest): Promise<OperatorStatus> {
      return operators.disburse(req);
    },

    async readDisbursementStatus(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<OperatorStatus> {
      return operators.disbursementStatus(transactionId, operator, country);
    },

    /**
     * Records the workflow's view of the payout; setting the same state twice is harmless. `seq` (the
     * workflow's count of its state writes) makes it write `seq` of TransactionStore.applyState: a late
     * attempt never lands over a later write. Histories from before it replay without one.
     */
    async recordPayoutState(transactionId: string, update: PayoutStateUpdate, seq?: number): Promise<void> {
      const { operatorReference, processedAt, operatorStatus, ...fields } = update;
      const changes = {
        ...fields,
        ...(operatorReference !== undefined ? { 'payout.operatorReference': operatorReference } : {}),
        ...(processedAt !== undefined ? { 'payout.processedAt': processedAt } : {}),
        ...(operatorStatus !== undefined ? { 'payout.operatorStatus': operatorStatus } : {}),
      };
      if (seq === undefined) await transactions.update(transactionId, changes);
      else await transactions.applyState(transactionId, seq, changes);
    },

    async settlePayoutFee(transactionId: string): Promise<void> {
      // The fee, the merchant and the currency: fixed at creation.
      await settlePayoutFee(ledger, await payoutFixed(transactionId));
    },

    /** Credits the gross amount back, once whatever the retries (fixed sourceRef). */
    async reversePayout(transactionId: string): Promise<{ applied: boolean }> {
      return { applied: (await reversePayout(ledger, await payout(transactionId))).applied };
    },
  };
}
