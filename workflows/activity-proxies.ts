import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// The two ways every transaction workflow calls its activities, and how it polls an operator.

/**
 * Ledger and record activities: retried until they apply (each money movement has a fixed
 * sourceRef). A permanent error (a record that does not exist, a sourceRef reused with other
 * terms) and a real insufficient balance are not retried: retrying cannot help.
 */
export const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    nonRetryableErrorTypes: ['PermanentError', 'InsufficientFundsError', 'SourceRefConflictError'],
  },
});

/**
 * Operator calls give up after a few tries: an unreachable operator is something the workflow
 * decides about (re-check, correction, reversal), never a hang.
 */
export const operator = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    // A 4xx refusal of the request is the operator's answer: asking again gets the same one.
    nonRetryableErrorTypes: ['OperatorRejectedError'],
  },
});

/** Polling while the operator has no final answer: 5 s, 10 s, 20 s ... capped (5 minutes by default). */
export const pollDelayMs = (attempt: number, capMs = 300_000) => Math.min(5_000 * 2 ** attempt, capMs);
