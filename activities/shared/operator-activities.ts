import { Context } from '@temporalio/activity';
import type { OperatorGateway, OperatorKind, OperatorStatus } from '../../src/operators/gateway';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { RefundStore } from '../../src/persistence/refunds';
import { operatorUnresolved } from '../../src/infra/metrics';

export interface OperatorActivityDeps {
  operators: OperatorGateway;
  transactions: TransactionStore;
  refunds: RefundStore;
}

/** What a workflow flags for ops: a transaction the operator neither settled nor cancelled in time. */
export interface FlagForOps {
  kind: 'payin' | 'payout' | 'refund';
  id: string;
  reason: 'OPERATOR_UNRESOLVED';
  /** Payins and payouts: the workflow's next state-write sequence number. */
  seq?: number;
}

/** Activities every transaction workflow shares around its operator. */
export function createOperatorActivities({ operators, transactions, refunds }: OperatorActivityDeps) {
  return {
    /** Asks the operator to cancel what it has not settled; only `failed`/`CANCELLED` confirms it. */
    async cancelAtOperator(
      kind: OperatorKind,
      id: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<OperatorStatus> {
      return operators.cancel(kind, id, operator, country);
    },

    /**
     * Marks the record `attention` (shown to ops, cleared by the final state), counts it and logs
     * it: an on-call alert fires on `payments_operator_unresolved_total`. Ids only, never personal data.
     */
    async flagForOps(flag: FlagForOps): Promise<void> {
      const attention = { reason: flag.reason, since: new Date().toISOString() };
      if (flag.kind === 'refund') await refunds.flag(flag.id, attention);
      else if (flag.seq === undefined) await transactions.update(flag.id, { attention });
      else await transactions.applyState(flag.id, flag.seq, { attention });
      operatorUnresolved.inc({ kind: flag.kind });
      Context.current().log.warn('operator neither settled nor cancelled past our deadline: needs ops', {
        kind: flag.kind,
        id: flag.id,
        reason: flag.reason,
      });
    },
  };
}
