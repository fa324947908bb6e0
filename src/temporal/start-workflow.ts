import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  type Client,
  type Workflow,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Transaction } from '../domain/transaction';
import { saKind, saMerchantId, saProvider, saReference, saStatus } from './search-attributes';
import { payinWorkflow, type PayinWorkflowInput } from '../../workflows/payin';
import { payoutWorkflow, type PayoutWorkflowInput } from '../../workflows/payout';

// How we start workflows: by function reference (the compiler checks the workflow's name and its
// arguments against the function the worker registers), under a deterministic id
// (src/temporal/workflow-ids.ts) that is never run twice.

/** `started` now, or `exists`: a run with this id exists or existed (nothing was started). */
export type StartResult = 'started' | 'exists';

/**
 * Starts `workflow` under `options.workflowId` unless that id was ever used: REJECT_DUPLICATE, so a
 * closed run is never followed by a second one, and a repeated start (a retry, a replayed activity)
 * answers `exists` instead of failing.
 */
export async function startOnce<W extends Workflow>(
  client: Client,
  workflow: W | string,
  options: Omit<WorkflowStartOptions<W>, 'workflowIdReusePolicy'>,
): Promise<StartResult> {
  try {
    await client.workflow.start<W>(workflow, {
      ...options,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    } as WorkflowStartOptions<W>);
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
    throw err;
  }
}

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
