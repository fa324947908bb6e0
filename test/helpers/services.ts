import { resolveFeeSchedule } from '../../src/domain/fees';
import { WorkflowStartLog } from '../../src/persistence/workflow-starts';
import { TransactionStore } from '../../src/persistence/transactions';
import { PayinService, type PayinServiceDeps } from '../../src/services/payin-service';
import type { TestStack } from './stack';

/**
 * A payin service on the stack's database and settings, for tests that need one of its
 * dependencies replaced (a Temporal client that fails, a store that crashes) or none of the API.
 */
export function testPayinService(
  stack: Pick<TestStack, 'mongo' | 'taskQueue' | 'config'>,
  deps: Partial<PayinServiceDeps> & Pick<PayinServiceDeps, 'temporal'>,
): PayinService {
  return new PayinService({
    transactions: TransactionStore.on(stack.mongo),
    starts: WorkflowStartLog.on(stack.mongo),
    taskQueue: stack.taskQueue,
    payinExpiryMs: stack.config.PAYIN_EXPIRY,
    refundWindowMs: stack.config.REFUND_WINDOW,
    sessionExpiryMs: stack.config.SESSION_EXPIRY,
    correctionWindowMs: stack.config.PAYIN_CORRECTION_WINDOW,
    partnerCheckIntervalMs: stack.config.PAYIN_PARTNER_CHECK_INTERVAL,
    operatorAnswerWaitMs: 0,
    feeSchedule: resolveFeeSchedule(undefined),
    ...deps,
  });
}
