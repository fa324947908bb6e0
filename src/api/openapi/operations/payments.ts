import { z } from 'zod';
import { defineOperations } from '../registry';
import { directPayinRequest, payinRecord } from '../../../contract/schemas/payin';
import { payinSessionRequest } from '../../../contract/schemas/payin-session';
import { transactionRecord } from '../../../contract/schemas/transaction-record';
import {
  accountPayoutRecord,
  accountPayoutRequest,
  directPayoutRequest,
  standardPayoutRequest,
} from '../../../contract/schemas/payout';
import { refundRecord, refundRequest } from '../../../contract/schemas/refund';
import * as ex from './examples';

// Payins, payouts and refunds: endpoints 1 to 8 of the interface.

const referenceParam = { reference: { description: 'The reference the merchant gave the transaction' } };
const created = (description: string, name: string, schema: z.ZodType, example: unknown) => ({
  201: { description, name, schema, example },
  200: {
    description:
      'The transaction already existed for this idempotency key (a retry after a lost answer): the same record',
    name,
    schema,
  },
});

defineOperations(
  {
    method: 'post',
    path: '/v1/direct/payin',
    operationId: 'createDirectPayin',
    summary: 'Trigger a direct payin',
    description:
      'Sends a mobile money payment request (push, STK or USSD) to the customer. The answer is the payin in ' +
      '`processing`; follow it with `GET /v1/payin/{reference}`, webhooks or the WebSocket stream. For WAVE ' +
      '`paymentUrl` holds the operator page to redirect the customer to; if the operator has not given it ' +
      'within 10 s (`OPERATOR_ANSWER_WAIT`) it is null here and appears in `GET /v1/payin/{reference}`.',
    tag: 'Payins',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'DirectPayinRequest', schema: directPayinRequest }],
      example: ex.directPayinExample,
    },
    responses: created('The payin, in processing', 'TransactionRecord', payinRecord, ex.payinRecordExample),
    errors: [
      'OTP_REQUIRED',
      'MSISDN_PROVIDER_MISMATCH',
      'AMOUNT_OUT_OF_RANGE',
      'DUPLICATE_REFERENCE',
      'PROVIDER_UNAVAILABLE',
    ],
  },
  {
    method: 'post',
    path: '/v1/payin/sessions',
    operationId: 'createPayinSession',
    summary: 'Create a payin session (wallet flow)',
    description:
      'Creates a payment intent; nothing is debited until the customer confirms on the hosted checkout page ' +
      'that `paymentUrl` opens. Amounts are whole units.',
    tag: 'Payins',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'PayinSessionRequest', schema: payinSessionRequest }],
      example: ex.sessionExample,
    },
    responses: created(
      'The session payin, in processing, without mobileMoney',
      'TransactionRecord',
      transactionRecord,
      ex.sessionRecordExample,
    ),
    errors: ['AMOUNT_OUT_OF_RANGE', 'DUPLICATE_REFERENCE', 'PROVIDER_UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/v1/payin/{reference}',
    operationId: 'getPayin',
    summary: 'Read a payin',
    tag: 'Payins',
    auth: true,
    pathParams: referenceParam,
    responses: {
      200: {
        description: 'The payin',
        name: 'TransactionRecord',
        schema: transactionRecord,
        example: { ...ex.payinRecordExample, status: 'success' },
      },
    },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/direct/payout',
    operationId: 'createDirectPayout',
    summary: 'Direct payout',
    description:
      'Moves funds from the merchant wallet to a beneficiary. The merchant is debited `chargedAmount` at once; ' +
      'a failed payout returns it. `provider` may be omitted: it is predicted from the number.',
    tag: 'Payouts',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'DirectPayoutRequest', schema: directPayoutRequest }],
      example: ex.directPayoutExample,
    },
    responses: created(
      'The payout (with mobileMoney)',
      'TransactionRecord',
      transactionRecord,
      ex.payoutRecordExample,
    ),
    errors: [
      'INSUFFICIENT_BALANCE',
      'MSISDN_PROVIDER_MISMATCH',
      'AMOUNT_OUT_OF_RANGE',
      'DUPLICATE_REFERENCE',
      'ACCOUNT_NOT_FOUND',
    ],
  },
  {
    method: 'get',
    path: '/v1/direct/payout/{reference}',
    operationId: 'getDirectPayout',
    summary: 'Read a direct payout',
    tag: 'Payouts',
    auth: true,
    pathParams: referenceParam,
    responses: {
      200: {
        description: 'The payout',
        name: 'TransactionRecord',
        schema: transactionRecord,
        example: ex.payoutRecordExample,
      },
    },
    errors: ['PAYOUT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/payout',
    operationId: 'createPayout',
    summary: 'Standard payout (shape A flat, or shape B with accountId)',
    description:
      'Two request shapes. Shape A (flat) debits the main account of the country currency and answers the ' +
      'transaction record without mobileMoney. Shape B carries `accountId` (main or sub-account) and answers ' +
      'the alternative payout record (`reference` mtr_…, `customerReference`, `transaction` filled once processed). ' +
      'The presence of `accountId` selects shape B.',
    tag: 'Payouts',
    auth: true,
    idempotent: true,
    body: {
      schemas: [
        { name: 'StandardPayoutRequest', schema: standardPayoutRequest },
        { name: 'AccountPayoutRequest', schema: accountPayoutRequest },
      ],
      example: ex.accountPayoutExample,
    },
    responses: {
      201: {
        description: 'Shape A: the transaction record; shape B: the alternative payout record',
        name: 'StandardPayoutResult',
        schema: z.union([transactionRecord, accountPayoutRecord]),
        example: ex.accountPayoutRecordExample,
      },
      200: {
        description: 'The payout already existed for this idempotency key: the same record',
        name: 'StandardPayoutResult',
        schema: z.union([transactionRecord, accountPayoutRecord]),
      },
    },
    errors: [
      'INSUFFICIENT_BALANCE',
      'ACCOUNT_NOT_FOUND',
      'MSISDN_PROVIDER_MISMATCH',
      'AMOUNT_OUT_OF_RANGE',
      'DUPLICATE_REFERENCE',
    ],
  },
  {
    method: 'get',
    path: '/v1/payout/{reference}',
    operationId: 'getPayout',
    summary: 'Read a standard payout',
    description: 'Answers in the shape the payout was created with (shape B: by the merchant reference).',
    tag: 'Payouts',
    auth: true,
    pathParams: referenceParam,
    responses: {
      200: {
        description: 'The payout',
        name: 'StandardPayoutResult',
        schema: z.union([transactionRecord, accountPayoutRecord]),
        example: { ...ex.accountPayoutRecordExample, status: 'completed' },
      },
    },
    errors: ['PAYOUT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/direct/payout/{reference}/cancel',
    operationId: 'cancelDirectPayout',
    summary: 'Cancel a direct payout not yet sent',
    description:
      'Cancels a payout not yet sent to the operator: one held `pending` while its provider is delayed or ' +
      'closed (`GET /v1/providers`). Its `chargedAmount` is credited back exactly once and the payout ends ' +
      '`reversed` with failure `CANCELLED` (event `payout.updated`). Asking again answers the cancelled payout; a ' +
      'payout already with the operator, or ended, is 409 `PAYOUT_NOT_CANCELLABLE`.',
    tag: 'Payouts',
    auth: true,
    idempotent: true,
    pathParams: referenceParam,
    responses: {
      200: {
        description: 'The cancelled payout (`reversed`, failure CANCELLED)',
        name: 'TransactionRecord',
        schema: transactionRecord,
        example: ex.cancelledPayoutRecordExample,
      },
    },
    errors: ['PAYOUT_NOT_FOUND', 'PAYOUT_NOT_CANCELLABLE', 'DECISION_PENDING'],
  },
  {
    method: 'post',
    path: '/v1/payout/{reference}/cancel',
    operationId: 'cancelPayout',
    summary: 'Cancel a standard payout not yet sent',
    description:
      'Cancels a payout not yet sent to the operator: one held `pending` while its provider is delayed or ' +
      'closed (`GET /v1/providers`). Its `chargedAmount` is credited back exactly once and the payout ends ' +
      '`reversed` with failure `CANCELLED` (event `payout.updated`). Asking again answers the cancelled payout; a ' +
      'payout already with the operator, or ended, is 409 `PAYOUT_NOT_CANCELLABLE`.',
    tag: 'Payouts',
    auth: true,
    idempotent: true,
    pathParams: referenceParam,
    responses: {
      200: {
        description: 'The cancelled payout, in the shape it was created with',
        name: 'StandardPayoutResult',
        schema: z.union([transactionRecord, accountPayoutRecord]),
        example: { ...ex.accountPayoutRecordExample, status: 'reversed' },
      },
    },
    errors: ['PAYOUT_NOT_FOUND', 'PAYOUT_NOT_CANCELLABLE', 'DECISION_PENDING'],
  },
  {
    method: 'post',
    path: '/v1/payin/{reference}/refund',
    operationId: 'refundPayin',
    summary: 'Refund a payin',
    description:
      'Refunds a successful payin fully or partly (several partial refunds while their sum does not exceed ' +
      'the payment). Without `amount` the whole remainder is refunded. The merchant balance must cover it.',
    tag: 'Refunds',
    auth: true,
    idempotent: true,
    pathParams: { reference: { description: 'Reference of the payin to refund' } },
    body: { schemas: [{ name: 'RefundRequest', schema: refundRequest }], example: ex.refundExample },
    responses: created('The refund, in processing', 'RefundRecord', refundRecord, ex.refundRecordExample),
    errors: [
      'INVALID_AMOUNT',
      'REFUND_NOT_ALLOWED',
      'PAYMENT_NOT_FOUND',
      'DUPLICATE_REFUND',
      'INSUFFICIENT_BALANCE',
      'DECISION_PENDING',
    ],
  },
  {
    method: 'get',
    path: '/v1/refunds/{reference}',
    operationId: 'getRefund',
    summary: 'Read a refund',
    tag: 'Refunds',
    auth: true,
    pathParams: { reference: { description: 'The refund reference (rf_…)' } },
    responses: {
      200: {
        description: 'The refund',
        name: 'RefundRecord',
        schema: refundRecord,
        example: { ...ex.refundRecordExample, status: 'completed' },
      },
    },
    errors: ['REFUND_NOT_FOUND'],
  },
);
