import { defineUpdate } from '@temporalio/workflow';
import type { DisbursementRequest } from '../../src/operators/gateway';
import type { Failure } from '../../src/domain/transaction';
import type { AskState } from '../shared/ask-operator';

/** How a payout workflow is started, once the API has debited the account (docs/payouts.md). */
export interface PayoutWorkflowInput {
  transactionId: string;
  disbursement: DisbursementRequest;
  timing: {
    /** Without a final answer from the operator by then, it is asked to cancel (docs/payouts.md). */
    expiryMs: number;
    /** Status reads (or health checks while held) in one run before continuing as new (tests lower it). */
    readsPerRun?: number;
  };
  /** Set when the workflow continued as new while asking the operator. */
  resume?: PayoutResume;
  /**
   * Set when the workflow continued as new while holding the payout for its provider (debited, not
   * sent): the next run goes on holding.
   */
  held?: PayoutHeld;
}

export interface PayoutHeld {
  /** Last sequence number of a state write. */
  seq: number;
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

/**
 * What a cancellation request came to (POST /v1/payout/{reference}/cancel): `cancelled` (never sent
 * to the operator: the payout is reversed, its money back once), `with-operator` (sent, or being
 * sent: only the operator can end it now), or `ended` (it ended otherwise, e.g. the debit refused).
 */
export interface PayoutCancelAnswer {
  outcome: 'cancelled' | 'with-operator' | 'ended';
}

/** Asks the payout's workflow to cancel it; answered once the money is back, or refused at once. */
export const cancelPayoutUpdate = defineUpdate<PayoutCancelAnswer, []>('cancelPayout');
