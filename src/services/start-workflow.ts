import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Transaction } from '../domain/transaction';
import { saKind, saMerchantId, saProvider, saReference, saStatus } from '../temporal/search-attributes';
import { startOnce, type StartResult } from '../temporal/start-once';
import { payinWorkflow, type PayinWorkflowInput } from '../../workflows/payin/payin';
import { payoutWorkflow, type PayoutWorkflowInput } from '../../workflows/payout/payout';
import { payinRefundDeskWorkflow } from '../../workflows/refund/payin-refund-desk';
import { requestRefundUpdate, type RefundAsk } from '../../workflows/refund/refund-api';
import { refundDeskWorkflowId } from '../temporal/workflow-ids';

// A transaction's start imports its workflows by value (function references); startOnce lives in
// start-once.ts so that modules activities reach (the webhook dispatch) import no workflow.
export { startOnce, type StartResult };

/** A transaction's workflow and its input: the kind says which. */
export type TransactionStart =
  { kind: 'payin'; input: PayinWorkflowInput } | { kind: 'payout'; input: PayoutWorkflowInput };

type StartedTransaction = Pick<
  Transaction,
  | 'workflowId'
  | 'merchantId'
  | 'kind'
  | 'reference'
  | 'provider'
  | 'status'
  | 'amount'
  | 'currency'
  | 'payout'
>;

/**
 * Starts a payin's or payout's workflow under its stored id, with the search attributes ops filter
 * on in the Temporal UI and the memo they read: the one way a transaction's workflow starts (the API
 * and the recovery sweep alike).
 */
export async function startTransactionWorkflow(
  client: Client,
  taskQueue: string,
  tx: StartedTransaction,
  start: TransactionStart,
): Promise<StartResult> {
  if (start.kind !== tx.kind) throw new Error(`a ${tx.kind} cannot run a ${start.kind} workflow`);
  const common = {
    taskQueue,
    workflowId: tx.workflowId,
    typedSearchAttributes: [
      { key: saMerchantId, value: tx.merchantId },
      { key: saKind, value: tx.kind },
      { key: saReference, value: tx.reference },
      // A session has no provider until the customer picks one; the workflow sets it then.
      ...(tx.provider ? [{ key: saProvider, value: tx.provider }] : []),
      { key: saStatus, value: tx.status },
    ],
  };
  const memo = { amount: tx.amount, currency: tx.currency };
  return start.kind === 'payin'
    ? startOnce(client, payinWorkflow, { ...common, args: [start.input], memo })
    : startOnce(client, payoutWorkflow, {
        ...common,
        args: [start.input],
        memo: { ...memo, shape: tx.payout!.shape },
      });
}

/**
 * A refund request to the refund desk of a payin whose workflow closed at its final status: one
 * update-with-start, which starts the desk if none runs (one per payin: USE_EXISTING) and waits for
 * its answer. A desk that closed as the call reached it (it had just answered the one before) is
 * asked again, which starts a new one. `updateId` makes a retry attach to the Update its first
 * attempt sent.
 */
export async function askRefundDesk(
  client: Client,
  taskQueue: string,
  payin: { merchantId: string; id: string },
  ask: RefundAsk,
  updateId?: string,
): Promise<{ refundId: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.workflow.executeUpdateWithStart(requestRefundUpdate, {
        args: [ask],
        ...(updateId ? { updateId } : {}),
        startWorkflowOperation: new WithStartWorkflowOperation(payinRefundDeskWorkflow, {
          workflowId: refundDeskWorkflowId(payin.merchantId, payin.id),
          taskQueue,
          args: [{ merchantId: payin.merchantId, payinId: payin.id }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: [
            { key: saMerchantId, value: payin.merchantId },
            { key: saKind, value: 'refund-desk' },
            { key: saReference, value: payin.id },
          ],
        }),
      });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || attempt >= 2) throw err;
    }
  }
}
