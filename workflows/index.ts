// Everything the worker's workflow bundle exports. One folder per flow (payin/, payout/, refund/,
// webhooks/, operations/), each with its workflows, steps and messages; what several flows use is in
// shared/; the activities each flow registers are listed in activities/<flow>/index.ts
// (docs/decisions/temporal/one-folder-per-flow.md).
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
