// Everything the worker's workflow bundle exports.
export { payinWorkflow } from './payin';
export { refundWorkflow } from './refund';
export { payinRefundDeskWorkflow } from './payin-refund-desk';
export { payoutWorkflow } from './payout';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { webhookDispatcherWorkflow } from './webhook-dispatcher';
export { publishEventWorkflow } from './publish-event';
export { reconciliationWorkflow } from './reconciliation';
export { recoverySweepWorkflow } from './recovery-sweep';
export { statementWorkflow } from './statement';
export { payoutBatchWorkflow } from './payout-batch';
export { webhookReplayWorkflow } from './webhook-replay';
