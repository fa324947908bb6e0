import { z } from 'zod';
import { defineOperations, type OperationSpec } from '../registry';

// POST and PUT /provider-callbacks/{name} (src/api/routes/provider-callbacks.ts): real providers'
// callbacks, each in its provider's own format, checked by its connector.

const callback = (method: 'post' | 'put'): OperationSpec => ({
  method,
  path: '/provider-callbacks/{name}',
  operationId: method === 'post' ? 'providerCallback' : 'providerCallbackPut',
  summary: `Callback from a provider's own API (${method.toUpperCase()})`,
  description:
    "In the provider's own format, checked by its connector as the provider documents it: pawaPay's RFC 9421 " +
    'signature and Content-Digest, Wave-Signature, or for MTN (which signs nothing) the token of the ' +
    'X-Callback-Url we gave. Only a trigger: the transaction re-reads its status from the provider. MTN ' +
    'may call back with PUT or POST. At most OPERATOR_CALLBACKS_PER_MINUTE (20) a minute per transaction.',
  tag: 'Operators',
  auth: false,
  pathParams: {
    name: { description: 'The connector', schema: z.enum(['pawapay', 'mtn', 'wave']) },
  },
  body: { schemas: [{ name: 'ProviderCallback', schema: z.record(z.string(), z.unknown()) }] },
  responses: {
    202: {
      description: 'Received (known transaction or not)',
      name: 'CallbackReceipt',
      schema: z.object({ received: z.literal(true) }),
    },
  },
  errors: ['OPERATOR_SIGNATURE_INVALID', 'NOT_FOUND', 'RATE_LIMITED'],
});

defineOperations(callback('post'), callback('put'));
