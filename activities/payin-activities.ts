import type { CollectionRequest, OperatorGateway, OperatorStatus } from '../src/operators/gateway';
import type { TransactionStore } from '../src/persistence/transactions';
import type { Transaction } from '../src/domain/transaction';
import type { Country, OperatorCode } from '../src/domain/operators';
import type { Ledger } from '../src/ledger';
import { missingRecord } from '../src/temporal/permanent-errors';
import { creditPayin } from '../src/services/payin-ledger';

export interface PayinActivityDeps {
  transactions: TransactionStore;
  operators: OperatorGateway;
  ledger: Ledger;
}

/** The fields of a payin its workflow may change; everything else is fixed at creation. */
export type PayinStateUpdate = Partial<
  Pick<Transaction, 'status' | 'confirmationStatus' | 'failure' | 'provider' | 'paymentUrl' | 'attention'>
> & { customerPhone?: string };

/** Activities of the payin workflow. Each is idempotent: a retry or a replay changes nothing twice. */
export function createPayinActivities({ transactions, operators, ledger }: PayinActivityDeps) {
  return {
    /** Asks the operator to push a payment request; our transaction id is its idempotency key. */
    async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
      return operators.requestCollection(req);
    },

    async readCollectionStatus(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<OperatorStatus> {
      return operators.collectionStatus(transactionId, operator, country);
    },

    /** Asks the operator's partner whether the funds of a failed collection were collected after all. */
    async partnerCheck(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<{ collected: boolean; operatorReference?: string }> {
      return operators.partnerCheck(transactionId, operator, country);
    },

    /**
     * Records the workflow's view of the payin; setting the same state twice is harmless. `seq` (the
     * workflow's count of its state writes) makes it write `seq` of TransactionStore.applyState: a late
     * attempt never lands over a later write. Histories from before it replay without one.
     */
    async recordPayinState(transactionId: string, update: PayinStateUpdate, seq?: number): Promise<void> {
      const { customerPhone, ...fields } = update;
      const changes = { ...fields, ...(customerPhone ? { 'customer.phoneNumber': customerPhone } : {}) };
      if (seq === undefined) await transactions.update(transactionId, changes);
      else await transactions.applyState(transactionId, seq, changes);
    },

    /**
     * Credits the merchant for a collected payin: the net amount to its main account and the fee to
     * the fees account, both from operator clearing. Each movement has its own sourceRef, so a
     * retried or replayed credit never applies twice.
     */
    async creditMerchantForPayin(transactionId: string): Promise<{ credited: number; fee: number }> {
      const tx = await transactions.findById(transactionId);
      if (!tx) throw missingRecord(`payin ${transactionId} not found`);
      return creditPayin(ledger, tx);
    },
  };
}
