import { defineOperations } from '../registry';
import { createPayoutBatchRequestDoc, payoutBatchRecord } from '../../../contract/schemas/payout-batch';
import * as ex from './examples';

// Bulk payouts: POST /v1/payouts/bulk and its read (docs/bulk-payouts.md).

defineOperations(
  {
    method: 'post',
    path: '/v1/payouts/bulk',
    operationId: 'createPayoutBatch',
    summary: 'Pay up to 100 beneficiaries at once',
    description:
      'Each item has the shape of `POST /v1/payout` (shape B when it has `accountId`), its own `reference` ' +
      'and optional `metadata`, and becomes a normal payout with its own workflow, readable by its reference. ' +
      'Answers 201 with a result per item: `accepted` with the payout record, or `refused` with the problem ' +
      "`POST /v1/payout` would have answered (paths are the item's own): invalid item, duplicate reference " +
      '(also within the batch), insufficient balance. Items are independent, paid in order; with ' +
      '`"atomic": true` the whole batch must be valid and covered by the balance before any is debited, ' +
      'else every item is refused (the valid ones with `BATCH_REFUSED`). The same idempotency key answers ' +
      'the same batch (200) and pays nothing twice. `payout.batch.completed` is sent when every accepted ' +
      'item is final.',
    tag: 'Payouts',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'CreatePayoutBatchRequest', schema: createPayoutBatchRequestDoc }],
      required: true,
      example: ex.payoutBatchRequestExample,
    },
    responses: {
      201: {
        description: 'The batch, every item with its result',
        name: 'PayoutBatch',
        schema: payoutBatchRecord,
        example: ex.payoutBatchExample,
      },
      200: {
        description: 'The batch this idempotency key already made',
        name: 'PayoutBatch',
        schema: payoutBatchRecord,
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/payouts/bulk/{id}',
    operationId: 'getPayoutBatch',
    summary: 'Read a bulk payout',
    description:
      'The summary (items accepted and refused, accepted items by status, totals by currency in major ' +
      'units) and every item with its payout as it is now. `status` is `completed` once every accepted ' +
      'item is final.',
    tag: 'Payouts',
    auth: true,
    pathParams: { id: { description: 'The batch id (pb_…)' } },
    responses: {
      200: {
        description: 'The batch',
        name: 'PayoutBatch',
        schema: payoutBatchRecord,
        example: ex.refusedPayoutBatchExample,
      },
    },
    errors: ['BATCH_NOT_FOUND'],
  },
);
