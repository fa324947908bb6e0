import type { OperatorGateway, OperatorStatus, CollectionRequest } from '../src/operators/gateway';
import type { TransactionStore } from '../src/persistence/transactions';
import type { Failure, Transaction } from '../src/domain/transaction';

export interface PayinActivityDeps {
  transactions: TransactionStore;
  operators: OperatorGateway;
}

/** Activities of the payin workflow. Each is idempotent: a retry or a replay changes nothing twice. */
export function createPayinActivities({ transactions, operators }: PayinActivityDeps) {
  return {
    /** Asks the operator to push a payment request to the customer's phone. */
    async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
      return operators.requestCollection(req);
    },

    async readCollectionStatus(transactionId: string): Promise<OperatorStatus> {
      return operators.collectionStatus(transactionId);
    },

    /** Records the workflow's view of the payin; setting the same state twice is harmless. */
    async recordPayinState(
      transactionId: string,
      state: Pick<Transaction, 'status'> &
        Partial<Pick<Transaction, 'confirmationStatus'>> & { failure?: Failure | null },
    ): Promise<void> {
      await transactions.update(transactionId, state);
    },
  };
}
