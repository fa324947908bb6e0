import {
  condition,
  defineQuery,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  ApplicationFailure,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CollectionRequest, OperatorStatus } from '../src/operators/gateway';
import type { Failure, TransactionStatus } from '../src/domain/transaction';
import type { ProviderName } from '../src/domain/operators';
import { saStatus } from '../src/temporal/search-attributes';

export interface PayinWorkflowInput {
  transactionId: string;
  collection: CollectionRequest;
  provider: ProviderName;
  /** Milliseconds the customer has to answer before the payin expires. */
  expiryMs: number;
  /** Milliseconds after success during which the payin stays refundable; the workflow stays open. */
  refundWindowMs: number;
}

export interface PayinState {
  status: TransactionStatus;
  failure: Failure | null;
}

export const payinStateQuery = defineQuery<PayinState>('payinState');

const { requestCollection, readCollectionStatus, recordPayinState } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

/** Polling backoff while the operator has no final answer: 5s, 10s, 20s ... capped at 5 minutes. */
function pollDelayMs(attempt: number): number {
  return Math.min(5_000 * 2 ** attempt, 300_000);
}

export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinState> {
  const state: PayinState = { status: 'processing', failure: null };
  setHandler(payinStateQuery, () => state);

  const setStatus = async (status: TransactionStatus, failure: Failure | null = null) => {
    state.status = status;
    state.failure = failure;
    upsertSearchAttributes([{ key: saStatus, value: status }]);
    await recordPayinState(input.transactionId, { status, failure });
  };

  let answer: OperatorStatus = await requestCollection(input.collection);
  let deadlinePassed = false;
  let attempt = 0;
  const started = Date.now(); // workflow time: deterministic
  while (answer.outcome === 'pending') {
    const waitMs = Math.min(pollDelayMs(attempt++), Math.max(0, started + input.expiryMs - Date.now()));
    if (waitMs <= 0) {
      deadlinePassed = true;
      break;
    }
    await condition(() => false, waitMs);
    answer = await readCollectionStatus(input.transactionId);
  }

  if (deadlinePassed) {
    await setStatus('expired', {
      code: 'EXPIRED',
      message: 'The customer did not answer in time',
      provider: input.provider,
    });
    return state;
  }
  if (answer.outcome === 'failed') {
    const f = answer.failure ?? { code: 'OPERATOR_ERROR', message: 'The operator refused the payment' };
    await setStatus('failed', { ...f, provider: input.provider });
    return state;
  }
  if (answer.outcome !== 'completed') throw ApplicationFailure.nonRetryable(`unexpected operator outcome`);
  await setStatus('success');

  // The payin stays open, and so refundable, for the refund window: a durable timer, not a date check.
  await condition(() => false, input.refundWindowMs);
  return state;
}
