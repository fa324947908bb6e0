import { z } from 'zod';
import { defineOperations } from '../registry';
import { transactionRecord } from '../../../contract/schemas/transaction-record';
import { accountPayoutRecord } from '../../../contract/schemas/payout';
import { refundRecord } from '../../../contract/schemas/refund';
import {
  sandboxCollectedRequest,
  sandboxPayinSettleRequest,
  sandboxRouteControlList,
  sandboxRouteControlRequest,
  sandboxSettleRequest,
} from '../../../contract/schemas/sandbox';
import * as ex from './examples';

// The test helpers (src/api/routes/sandbox.ts): test mode only, on the merchant's own transactions.

const referenceParam = { reference: { description: 'The reference the merchant gave the transaction' } };
const waits = `Test mode only (a live key: \`403 TEST_MODE_ONLY\`). The helper waits up to 5 s for the
transaction's request to reach the sandbox operator (it is sent moments after the create answers),
then answers \`503 NOT_AT_OPERATOR_YET\` with \`Retry-After\`: retry with the same X-Idempotency-Key.
The operator then calls the service back as a real one would, and the answer waits up to 3 s for the
record to follow (the usual case); webhooks are sent as for any outcome.`;
const errors = ['TEST_MODE_ONLY', 'NOT_AT_OPERATOR_YET', 'ALREADY_FINAL'] as const;

defineOperations(
  {
    method: 'post',
    path: '/v1/sandbox/payins/{reference}/settle',
    operationId: 'sandboxSettlePayin',
    summary: 'Test helper: the operator settles a payin',
    description: `The sandbox operator ends a pending payin now, \`completed\` or \`failed\` (with a chosen failure),
whatever its \`sandboxScenario\` (create it with \`"sandboxScenario": "pending"\` to decide its end here).
A session's payin reaches the operator once its customer confirms on the checkout page. ${waits}`,
    tag: 'Sandbox',
    auth: true,
    idempotent: true,
    pathParams: referenceParam,
    body: {
      schemas: [{ name: 'SandboxPayinSettleRequest', schema: sandboxPayinSettleRequest }],
      example: { outcome: 'completed' },
    },
    responses: {
      200: {
        description: 'Settled at the operator: the payin as it stands (final once the callback arrived)',
        name: 'TransactionRecord',
        schema: transactionRecord,
        example: { ...ex.payinRecordExample, status: 'success' },
      },
    },
    errors: ['PAYMENT_NOT_FOUND', ...errors],
  },
  {
    method: 'post',
    path: '/v1/sandbox/payins/{reference}/collected',
    operationId: 'sandboxPayinCollected',
    summary: "Test helper: the operator's partner finds a payin's funds",
    description: `For a payin that failed ambiguously (\`OPERATOR_TIMEOUT\`: settled so, or a number ending in 9901):
from now on the operator's partner check answers that the customer was debited, so the payin's next
check corrects it to \`success\` (PAYIN_PARTNER_CHECK_INTERVAL). ${waits}`,
    tag: 'Sandbox',
    auth: true,
    idempotent: true,
    pathParams: referenceParam,
    body: {
      schemas: [{ name: 'SandboxCollectedRequest', schema: sandboxCollectedRequest }],
      required: false,
      example: {},
    },
    responses: {
      200: {
        description: 'Marked collected at the operator: the payin as it stands',
        name: 'TransactionRecord',
        schema: transactionRecord,
      },
    },
    errors: ['PAYMENT_NOT_FOUND', 'TEST_MODE_ONLY', 'NOT_AT_OPERATOR_YET'],
  },
  {
    method: 'post',
    path: '/v1/sandbox/payouts/{reference}/settle',
    operationId: 'sandboxSettlePayout',
    summary: 'Test helper: the operator settles a payout',
    description: `The sandbox operator ends a pending payout (direct or standard) now, \`completed\` or \`failed\`. ${waits}`,
    tag: 'Sandbox',
    auth: true,
    idempotent: true,
    pathParams: referenceParam,
    body: {
      schemas: [{ name: 'SandboxSettleRequest', schema: sandboxSettleRequest }],
      example: { outcome: 'failed' },
    },
    responses: {
      200: {
        description: 'Settled at the operator: the payout in the shape it was created with',
        name: 'StandardPayoutResult',
        schema: z.union([transactionRecord, accountPayoutRecord]),
        example: { ...ex.payoutRecordExample, status: 'failed' },
      },
    },
    errors: ['PAYOUT_NOT_FOUND', ...errors],
  },
  {
    method: 'post',
    path: '/v1/sandbox/refunds/{reference}/settle',
    operationId: 'sandboxSettleRefund',
    summary: 'Test helper: the operator settles a refund',
    description: `The sandbox operator ends a pending refund now, \`completed\` or \`failed\`. ${waits}`,
    tag: 'Sandbox',
    auth: true,
    idempotent: true,
    pathParams: { reference: { description: 'The refund reference (rf_…)' } },
    body: {
      schemas: [{ name: 'SandboxSettleRequest', schema: sandboxSettleRequest }],
      example: { outcome: 'completed' },
    },
    responses: {
      200: {
        description: 'Settled at the operator: the refund as it stands',
        name: 'RefundRecord',
        schema: refundRecord,
        example: { ...ex.refundRecordExample, status: 'completed' },
      },
    },
    errors: ['REFUND_NOT_FOUND', ...errors],
  },
  {
    method: 'post',
    path: '/v1/sandbox/routes',
    operationId: 'sandboxControlRoute',
    summary: 'Test helper: take a sandbox route down, degrade it or slow it',
    description: `Every operator × country has two sandbox routes, asked in order (docs/sandbox.md, "Two routes per
pair"). For a while (\`forSeconds\`), route 1 or 2 of one pair takes none of your new test payins or
payouts (\`closed\`), only a share of them (\`degraded\`), or answers slowly (\`slow\`); \`operational\`
lifts the control. It acts on your own test traffic only. A transaction the route refuses is failed over
to the other route, as in live mode, and its timeline says so; a transaction the route already holds is
always followed there. Test mode only (a live key: \`403 TEST_MODE_ONLY\`).`,
    tag: 'Sandbox',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'SandboxRouteControlRequest', schema: sandboxRouteControlRequest }],
      example: {
        operator: 'MTN',
        country: 'CI',
        operation: 'payin',
        route: 1,
        state: 'closed',
        forSeconds: 300,
      },
    },
    responses: {
      200: {
        description: 'Your route controls in force',
        name: 'SandboxRouteControlList',
        schema: sandboxRouteControlList,
        example: {
          data: [
            {
              route: 1,
              operator: 'MTN',
              country: 'CI',
              operation: 'payin',
              state: 'closed',
              successRate: 0,
              delayMs: 0,
              until: '2026-11-28T10:05:00.000Z',
            },
          ],
        },
      },
    },
    errors: ['TEST_MODE_ONLY'],
  },
  {
    method: 'get',
    path: '/v1/sandbox/routes',
    operationId: 'sandboxListRouteControls',
    summary: 'Test helper: your sandbox route controls in force',
    description: 'The outages you set with POST /v1/sandbox/routes that have not ended. Test mode only.',
    tag: 'Sandbox',
    auth: true,
    responses: {
      200: {
        description: 'Your route controls in force',
        name: 'SandboxRouteControlList',
        schema: sandboxRouteControlList,
        example: { data: [] },
      },
    },
    errors: ['TEST_MODE_ONLY'],
  },
);
