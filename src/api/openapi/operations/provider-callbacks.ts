import { z } from 'zod';
import { defineOperations, type OperationSpec } from '../registry';

// POST and PUT /provider-callbacks/{name} (src/api/routes/callbacks.ts): real providers' callbacks,
// each in its provider's own format, checked by its connector, through the callback door
// (src/operators/callbacks.ts) the simulator's callbacks go through too.

const callback = (method: 'post' | 'put'): OperationSpec => ({
  method,
  path: '/provider-callbacks/{name}',
  operationId: method === 'post' ? 'providerCallback' : 'providerCallbackPut',
  summary: `Callback from a provider's own API (${method.toUpperCase()})`,
  description:
    "In the provider's own format, checked by its connector as the provider documents it: pawaPay's RFC 9421 " +
    'signature and Content-Digest, Wave-Signature, Hub2-Signature, or for MTN (which signs nothing) the token of the ' +
    'X-Callback-Url we gave. Only a trigger: the transaction re-reads its status from the provider. The ' +
    'same signed callback again answers 200 and is not delivered again; the same transaction with a new ' +
    'status is another callback. MTN may call back with PUT or POST. At most ' +
    'OPERATOR_CALLBACKS_PER_MINUTE (20) a minute per transaction, 429 beyond.',
  tag: 'Operators',
  auth: false,
  pathParams: {
    name: { description: 'The connector', schema: z.enum(['pawapay', 'mtn', 'wave', 'hub2']) },
  },
  body: { schemas: [{ name: 'ProviderCallback', schema: z.record(z.string(), z.unknown()) }] },
  responses: {
    200: {
      description: 'Already received (a replay of the same signed callback): not delivered again',
      name: 'CallbackReceipt',
      schema: z.object({ received: z.literal(true) }),
    },
    202: {
      description: 'Received (known transaction or not)',
      name: 'CallbackReceipt',
      schema: z.object({ received: z.literal(true) }),
    },
  },
  errors: ['OPERATOR_SIGNATURE_INVALID', 'NOT_FOUND', 'RATE_LIMITED'],
});

defineOperations(callback('post'), callback('put'));
