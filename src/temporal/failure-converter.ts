import { DefaultFailureConverter } from '@temporalio/common';

// Loaded by path (DataConverter.failureConverterPath) in the worker, the client and the workflow
// bundle: a failure's message and stack trace move into an encoded payload, which the payload codec
// encrypts, so a message naming a customer never reaches history in clear. Workflow-safe (bundled).
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
