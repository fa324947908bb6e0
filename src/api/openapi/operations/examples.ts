// Examples shown in the reference for each operation; a test checks each against its schema.
import { fieldMessages } from '../../../contract/field-messages';

const createdAt = '2026-11-22T10:15:00.120Z';
const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };

export const directPayinExample = {
  reference: 'order-1001',
  sandboxScenario: 'completed',
  customerName: 'Awa Koné',
  payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
  action,
  // The customer pays the fee: the operator collects 5075, the merchant is credited 5000.
  payFee: false,
  metadata: { orderId: '1001', channel: 'web' },
};

export const payinRecordExample = {
  id: 'pr_0a1b2c3d4e5f60718293a4b5',
  type: 'payin',
  reference: 'order-1001',
  status: 'processing',
  confirmationRequired: true,
  confirmationStatus: 'none',
  paymentUrl: null,
  customer: { name: 'Awa Koné', phoneNumber: '+2250500000001' },
  mobileMoney: { provider: { name: 'MTN_CI' } },
  isDirect: true,
  payFee: false,
  createdAt,
  livemode: false,
  amount: 5000,
  fee: 75,
  chargedAmount: 5075,
  currency: 'XOF',
  failure: null,
  ussdCode: '*133#',
  metadata: { orderId: '1001', channel: 'web' },
};

export const sessionExample = {
  reference: '6d1f7f0e-3f7a-4a4e-9c55-2f3b1a9e8c10',
  amount: 5000,
  msisdn: '+2250700000001',
  customerName: 'Awa Koné',
  country: 'CI',
  action,
};

export const sessionRecordExample = {
  ...payinRecordExample,
  reference: sessionExample.reference,
  mobileMoney: undefined,
  isDirect: false,
  ussdCode: undefined,
  // The merchant's default (payFee true): the customer pays 5000, the merchant is credited 4925.
  payFee: true,
  chargedAmount: 5000,
  metadata: {},
  customer: { name: 'Awa Koné', phoneNumber: '+2250700000001' },
  paymentUrl: 'https://pay.example/checkout/pr_0a1b2c3d4e5f60718293a4b5',
};

export const directPayoutExample = {
  reference: 'payout-2001',
  customerName: 'Yao Kouassi',
  payout: { amount: 10000, msisdn: '+2250700000002', provider: 'ORANGE', country: 'CI' },
  metadata: { batch: 'salaries-2026-11' },
};

export const payoutRecordExample = {
  ...payinRecordExample,
  id: 'pr_1b2c3d4e5f60718293a4b5c6',
  type: 'payout',
  reference: 'payout-2001',
  status: 'processed',
  confirmationRequired: false,
  paymentUrl: null,
  customer: { name: 'Yao Kouassi', phoneNumber: '+2250700000002' },
  mobileMoney: { provider: { name: 'ORANGE_CI' } },
  amount: 10000,
  fee: 100,
  chargedAmount: 10100,
  payFee: true,
  ussdCode: undefined,
  metadata: { batch: 'salaries-2026-11' },
};

/** A payout cancelled before it was sent (POST …/payout/{reference}/cancel). */
export const cancelledPayoutRecordExample = {
  ...payoutRecordExample,
  status: 'reversed',
  failure: {
    code: 'CANCELLED',
    message: 'The payout was cancelled before it was sent to the operator',
    provider: 'ORANGE_CI',
  },
};

export const standardPayoutExample = {
  reference: '0b8a1c52-77d9-4a43-8f0e-1f6f3e0f3b2a',
  amount: 10000,
  msisdn: '+2250700000002',
  country: 'CI',
  customerName: 'Yao Kouassi',
};

export const accountPayoutExample = { ...standardPayoutExample, accountId: 'acc_5f0c9e1d2a3b4c5d6e7f8091' };

export const accountPayoutRecordExample = {
  type: 'payout',
  fee: 100,
  reference: 'mtr_5f0c9e1d2a3b4c5d6e7f8091',
  phoneNumber: '+2250700000002',
  customerName: 'Yao Kouassi',
  amount: 10000,
  chargedAmount: 10100,
  status: 'processing',
  currency: 'XOF',
  customerReference: standardPayoutExample.reference,
  confirmationRequired: false,
  confirmationStatus: 'none',
  transaction: {},
  createdAt,
  livemode: false,
  failure: null,
  metadata: {},
};

export const refundExample = {
  amount: 2000,
  reason: 'Item out of stock',
  externalReference: 'refund-1001-1',
  metadata: { ticket: 'SUP-4410' },
};

export const refundRecordExample = {
  type: 'refund',
  reference: 'rf_2c3d4e5f60718293a4b5c6d7',
  originalReference: 'order-1001',
  externalReference: 'refund-1001-1',
  amount: 2000,
  fee: 0,
  currency: 'XOF',
  status: 'processing',
  reason: 'Item out of stock',
  refundType: 'partial',
  customerMsisdn: '+2250500000001',
  customerName: 'Awa Koné',
  createdAt,
  livemode: false,
  transaction: { reference: 'tr_3d4e5f60718293a4b5c6d7e8', status: 'pending', processedAt: null },
  failure: null,
  metadata: { ticket: 'SUP-4410' },
};

export const accountExample = {
  id: 'acc_5f0c9e1d2a3b4c5d6e7f8091',
  currency: 'XOF',
  kind: 'main',
  name: 'main',
  available: 125000,
  pending: 0,
  createdAt,
  livemode: false,
};

export const entryExample = {
  id: 'ent_6a7b8c9d0e1f2a3b4c5d6e7f',
  accountId: accountExample.id,
  direction: 'credit',
  amount: 4925,
  balanceAfter: 125000,
  currency: 'XOF',
  reason: 'payin order-1001',
  transactionId: payinRecordExample.id,
  createdAt,
};

export const webhookEndpointExample = {
  id: 'we_7b8c9d0e1f2a3b4c5d6e7f80',
  url: 'https://shop.example/hooks/payments',
  eventTypes: ['payin.completed', 'payin.failed'],
  description: 'Order service',
  status: 'enabled',
  disabledReason: null,
  createdAt,
  livemode: false,
  updatedAt: createdAt,
};

export const webhookEndpointWithHealthExample = {
  ...webhookEndpointExample,
  health: {
    since: '2026-11-21T10:15:00.120Z',
    attempts: 1250,
    successRate: 0.992,
    latencyP50Ms: 84,
    latencyP99Ms: 1210,
    lastError: { at: '2026-11-22T09:02:11.031Z', statusCode: 502, error: 'HTTP 502' },
    consecutiveFailures: 0,
    complete: true,
  },
};

export const replayRequestExample = {
  from: '2026-11-21T00:00:00Z',
  to: '2026-11-22T00:00:00Z',
  onlyFailed: true,
  dryRun: false,
};

export const replayExample = {
  id: 'rp_0e1f2a3b4c5d6e7f80910a1b',
  endpointId: 'we_7b8c9d0e1f2a3b4c5d6e7f80',
  from: '2026-11-21T00:00:00.000Z',
  to: '2026-11-22T00:00:00.000Z',
  onlyFailed: true,
  dryRun: false,
  count: 42,
};

export const eventExample = {
  id: 'evt_5f0c9e1d2a3b4c5d6e7f8091',
  type: 'payin.completed',
  createdAt: '2026-11-22T10:15:02.120Z',
  livemode: false,
  data: { ...payinRecordExample, status: 'success' },
};

export const problemExample = {
  type: '/docs/errors#VALIDATION_ERROR',
  title: 'Invalid request',
  status: 400,
  detail: 'One or more fields are invalid.',
  code: 'VALIDATION_ERROR',
  instance: '/v1/direct/payin',
  errors: [{ path: 'payin.amount', message: 'Must be greater than 0.' }],
};

export const statementRequestExample = {
  accountId: 'acc_5f0c9e1d2a3b4c5d6e7f8091',
  from: '2026-11-01T00:00:00Z',
  to: '2026-12-01T00:00:00Z',
  format: 'csv',
};

export const pendingStatementExample = {
  id: 'st_4e5f60718293a4b5c6d7e8f9',
  status: 'pending',
  accountId: statementRequestExample.accountId,
  currency: 'XOF',
  from: '2026-11-01T00:00:00.000Z',
  to: '2026-12-01T00:00:00.000Z',
  format: 'csv',
  createdAt,
  livemode: false,
  entryCount: null,
  openingBalance: null,
  closingBalance: null,
  readyAt: null,
  download: null,
};

export const readyStatementExample = {
  ...pendingStatementExample,
  status: 'ready',
  entryCount: 2,
  openingBalance: 10000,
  closingBalance: 14825,
  readyAt: '2026-11-22T10:15:03.480Z',
  download: {
    url: 'https://pay.example/v1/statements/st_4e5f60718293a4b5c6d7e8f9/download?expires=1795349403&signature=3f1c…',
    expiresAt: '2026-11-22T10:30:03.000Z',
  },
};

export const statementCsvExample = [
  'entryId,createdAt,type,direction,amount,fee,balanceAfter,transactionReference,operatorReference,description,metadata',
  ',2026-11-01T00:00:00.000Z,opening_balance,,,,10000,,,,',
  'le_0a1b2c3d4e5f60718293a4b5,2026-11-03T09:12:44.010Z,payin-credit,credit,4925,75,14925,order-1001,,payin order-1001,"{""orderId"":""1001""}"',
  'le_1b2c3d4e5f60718293a4b5c6,2026-11-04T16:40:02.551Z,refund-debit,debit,-100,0,14825,refund-1001-1,,refund refund-1001-1 of payin order-1001,',
  ',2026-12-01T00:00:00.000Z,closing_balance,,,,14825,,,,',
  '',
].join('\r\n');

export const payoutBatchRequestExample = {
  atomic: false,
  items: [
    { ...standardPayoutExample, reference: 'salary-2026-11-001', metadata: { employee: 'E-001' } },
    { ...standardPayoutExample, reference: 'salary-2026-11-002', amount: 5000 },
  ],
};

export const payoutBatchExample = {
  id: 'pb_5d6e7f8091a2b3c4d5e6f708',
  atomic: false,
  status: 'processing',
  createdAt,
  completedAt: null,
  livemode: false,
  summary: {
    items: 2,
    accepted: 1,
    refused: 1,
    byStatus: { pending: 1 },
    totals: [
      { currency: 'XOF', count: 1, amount: 10000, fee: 100, chargedAmount: 10100, completedAmount: 0 },
    ],
  },
  items: [
    {
      index: 0,
      reference: 'salary-2026-11-001',
      result: 'accepted',
      payout: {
        ...payoutRecordExample,
        reference: 'salary-2026-11-001',
        status: 'pending',
        mobileMoney: undefined,
        metadata: { employee: 'E-001' },
      },
      problem: null,
    },
    {
      index: 1,
      reference: 'salary-2026-11-002',
      result: 'refused',
      payout: null,
      problem: {
        type: '/docs/errors#VALIDATION_ERROR',
        title: 'Invalid request',
        status: 400,
        detail: 'One or more fields are invalid.',
        code: 'VALIDATION_ERROR',
        errors: [{ path: 'amount', message: 'Must be greater than 0.' }],
      },
    },
  ],
};

/** An atomic batch refused whole: one item's reference was taken, so the valid ones are not paid. */
export const refusedPayoutBatchExample = {
  ...payoutBatchExample,
  id: 'pb_6e7f8091a2b3c4d5e6f70819',
  atomic: true,
  status: 'processing',
  summary: { items: 2, accepted: 0, refused: 2, byStatus: {}, totals: [] },
  items: [
    {
      index: 0,
      reference: 'salary-2026-11-001',
      result: 'refused',
      payout: null,
      problem: {
        type: '/docs/errors#BATCH_REFUSED',
        title: 'Batch refused',
        status: 409,
        detail: 'This item is valid, but another item of this atomic batch was refused, so none was paid.',
        code: 'BATCH_REFUSED',
      },
    },
    {
      index: 1,
      reference: 'salary-2026-11-002',
      result: 'refused',
      payout: null,
      problem: {
        type: '/docs/errors#DUPLICATE_REFERENCE',
        title: 'Duplicate reference',
        status: 409,
        detail: 'This reference was already used for another transaction.',
        code: 'DUPLICATE_REFERENCE',
        errors: [{ path: 'reference', message: fieldMessages.referenceUsed.payout.en }],
      },
    },
  ],
};

/** POST /v1/webhooks/{id}/test: an example payin.completed and the receiver's answer. */
export const testWebhookResultExample = {
  endpointId: webhookEndpointExample.id,
  url: webhookEndpointExample.url,
  succeeded: true,
  statusCode: 200,
  durationMs: 48,
  error: null,
  event: {
    id: 'evt_test_6a1d0f3e9b2c4d5e6f708192',
    type: 'payin.completed',
    createdAt,
    livemode: false,
    test: true,
    data: {
      ...payinRecordExample,
      id: 'pr_7b2e1f4a0c3d5e6f70819203',
      reference: 'test-payin-1f2e3d4c',
      status: 'success',
      customer: { name: 'Test Customer', phoneNumber: '+2250500000001' },
      refundedAmount: 0,
      refunds: [],
      metadata: {},
    },
  },
};
