// Everything the worker's workflow bundle exports.
export { payinWorkflow } from './payin/payin';
export { refundWorkflow } from './refund/refund';
export { payinRefundDeskWorkflow } from './refund/payin-refund-desk';
export { payoutWorkflow } from './payout/payout';
export { webhookDeliveryWorkflow } from './webhooks/webhook-delivery';
export { webhookDispatcherWorkflow } from './webhooks/webhook-dispatcher';
export { publishEventWorkflow } from './operations/publish-event';
export { reconciliationWorkflow } from './operations/reconciliation';
export { recoverySweepWorkflow } from './operations/recovery-sweep';
export { statementWorkflow } from './operations/statement';
export { payoutBatchWorkflow } from './payout/payout-batch';
export { webhookReplayWorkflow } from './webhooks/webhook-replay';
