// Everything the worker's workflow bundle exports.
export { payinWorkflow } from './payin';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { publishEventWorkflow } from './publish-event';
