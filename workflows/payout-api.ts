import type { DisbursementRequest } from '../src/operators/gateway';
import type { Failure } from '../src/domain/transaction';
import type { AskState } from './ask-operator';

/** How a payout workflow is started, once the API has debited the account (docs/payouts.md). */
export interface PayoutWorkflowInput {
  transactionId: string;
  disbursement: DisbursementRequest;
  timing: {
    /** Without a final answer from the operator by then, it is asked to cancel (docs/payouts.md). */
    expiryMs: number;
    /** Status reads in one run before continuing as new (tests lower it). */
    readsPerRun?: number;
  };
  /** Only in workflows started by revisions 2-3 (workflows/code-revision.ts); new ones go without. */
  codeRevision?: number;
  /** Set when the workflow continued as new while asking the operator. */
  resume?: PayoutResume;
}

export interface PayoutResume {
  ask: AskState;
  /** Workflow time (ms) of the deadline, fixed by the first run. */
  deadline: number;
  /** Last sequence number of a state write (src/persistence: monotonic writes). */
  seq: number;
}

export interface PayoutResult {
  status: 'completed' | 'reversed' | 'failed';
  failure: Failure | null;
}
