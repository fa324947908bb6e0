// Everything the worker's workflow bundle exports.
export { payinWorkflow } from './payin';
