import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { toPublicRecord } from '../contract/records/payout-record';
import { refundedTotal } from '../domain/refund';
import type { RecordEventInput } from '../events/event-store';
import type { RefundStore } from '../persistence/refunds';
import type { TransactionStore } from '../persistence/transactions';
import { startOnce } from '../temporal/start-once';
import { eventPublishWorkflowId } from '../temporal/workflow-ids';
import { publishEventWorkflow } from '../../workflows/operations/publish-event';

// What reconciliation needs of the rest of the service besides stores: whether a transaction's
// workflow still runs, and telling the merchant of a corrected payin. Each has two ways in: from the
// reconciliation activity (inside the worker) and from the CLI (a process of its own).

export interface WorkflowProbe {
  /** True while the workflow with this id runs: it will resolve its transaction itself. */
  isRunning(workflowId: string): Promise<boolean>;
}

/** Asks Temporal; a workflow it does not know is not running. The client is connected on first use. */
export function temporalProbe(client: () => Promise<Client>): WorkflowProbe {
  return {
    async isRunning(workflowId) {
      try {
        const described = await (await client()).workflow.getHandle(workflowId).describe();
        return described.status.name === 'RUNNING';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },
  };
}

export interface CorrectionNotifier {
  /** Records `payin.corrected` (once per payin: its emission key) and delivers it to the merchant's webhooks. */
  payinCorrected(transactionId: string): Promise<void>;
}

/**
 * Outside the worker (the CLI): the event as the payin workflow's activity records it (its data is
 * the record the status read returns, refunds included), handed to the worker through
 * `publishEventWorkflow`, which records it and delivers its webhooks durably. The workflow id
 * follows from the payin, so a second correction run starts nothing.
 */
export function eventNotifier(deps: {
  transactions: TransactionStore;
  refunds: RefundStore;
  temporal: () => Promise<Client>;
  taskQueue: string;
}): CorrectionNotifier {
  return {
    async payinCorrected(transactionId) {
      const tx = await deps.transactions.findById(transactionId);
      if (!tx) throw new Error(`no transaction ${transactionId}`);
      const refunds = await deps.refunds.ofPayin(tx);
      const event: RecordEventInput = {
        merchantId: tx.merchantId,
        type: 'payin.corrected',
        subjectId: tx.id,
        reference: tx.reference,
        data: toPublicRecord(tx, { refunds, refunded: refundedTotal(refunds) }),
      };
      await startOnce(await deps.temporal(), publishEventWorkflow, {
        taskQueue: deps.taskQueue,
        workflowId: eventPublishWorkflowId(tx.id, event.type),
        args: [event],
      });
    },
  };
}
