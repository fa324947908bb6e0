import { randomBytes } from 'node:crypto';
import { newId } from '../domain/ids';
import type { EventType, PublicEvent } from '../events/catalogue';

// Example events for POST /v1/webhooks/{id}/test: each `data` has the shape of the record its
// real event carries (checked against the record schemas in test/unit/webhook-test-events.test.ts),
// with fresh fake ids that match no object, a reference starting with `test-`, the sandbox's
// documented test number and no one's name. See docs/decisions/webhooks/test-events-not-stored.md.

/** An example event: a public event marked `test: true`, never stored, never about a real object. */
export type TestEvent = PublicEvent & { test: true };

/** The type sent when the request names none and the endpoint subscribes to every type. */
export const defaultTestEventType: EventType = 'payin.completed';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const testNumber = '+2250500000001';
const testName = 'Test Customer';

function transaction(kind: 'payin' | 'payout', status: string, livemode: boolean, at: string) {
  const failed = status === 'failed' || status === 'expired' || status === 'reversed';
  return {
    id: newId('pr'),
    type: kind,
    reference: `test-${kind}-${hex(4)}`,
    status,
    confirmationRequired: false,
    confirmationStatus: 'none',
    paymentUrl: null,
    customer: { name: testName, phoneNumber: testNumber },
    mobileMoney: { provider: { name: 'MTN_CI' } },
    isDirect: true,
    payFee: kind === 'payout',
    createdAt: at,
    livemode,
    amount: 5000,
    fee: 75,
    // A payin's customer pays the fee on top; a payout's fee is debited from the merchant.
    chargedAmount: 5075,
    currency: 'XOF',
    failure: !failed
      ? null
      : status === 'expired'
        ? { code: 'EXPIRED', message: 'The customer did not confirm in time', provider: 'MTN_CI' }
        : { code: 'PAYER_DECLINED', message: 'The customer declined the payment', provider: 'MTN_CI' },
    ...(kind === 'payin' ? { refundedAmount: 0, refunds: [] } : {}),
    metadata: {},
  };
}

function refund(status: 'processing' | 'completed' | 'failed', livemode: boolean, at: string) {
  return {
    type: 'refund',
    reference: newId('rf'),
    originalReference: `test-payin-${hex(4)}`,
    externalReference: `test-refund-${hex(4)}`,
    amount: 2000,
    fee: 0,
    currency: 'XOF',
    status,
    reason: 'Test refund',
    refundType: 'partial',
    customerMsisdn: testNumber,
    customerName: testName,
    createdAt: at,
    livemode,
    transaction: {
      reference: newId('tr'),
      status: status === 'processing' ? 'pending' : status,
      processedAt: status === 'processing' ? null : at,
    },
    failure:
      status === 'failed'
        ? { code: 'OPERATOR_REJECTED', message: 'The operator refused the refund', provider: 'MTN_CI' }
        : null,
    metadata: {},
  };
}

function payoutBatch(livemode: boolean, at: string) {
  const payout = { ...transaction('payout', 'completed', livemode, at) };
  return {
    id: newId('pb'),
    atomic: false,
    status: 'completed',
    createdAt: at,
    completedAt: at,
    livemode,
    summary: {
      items: 1,
      accepted: 1,
      refused: 0,
      byStatus: { completed: 1 },
      totals: [
        { currency: 'XOF', count: 1, amount: 5000, fee: 75, chargedAmount: 5075, completedAmount: 5000 },
      ],
    },
    items: [{ index: 0, reference: payout.reference, result: 'accepted', payout, problem: null }],
  };
}

function statement(livemode: boolean, at: string) {
  const now = new Date(at);
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(to.getTime() - 7 * 86_400_000);
  return {
    id: newId('st'),
    status: 'ready',
    accountId: newId('acc'),
    currency: 'XOF',
    from: from.toISOString(),
    to: to.toISOString(),
    format: 'csv',
    createdAt: at,
    livemode,
    entryCount: 0,
    openingBalance: 0,
    closingBalance: 0,
    readyAt: at,
    // A test statement has no file: its link goes nowhere rather than to another statement.
    download: null,
  };
}

function dataOf(type: EventType, livemode: boolean, at: string): Record<string, unknown> {
  switch (type) {
    case 'payin.completed':
    case 'payin.corrected':
      return transaction('payin', 'success', livemode, at);
    case 'payment_link.paid':
      return { ...transaction('payin', 'success', livemode, at), paymentLinkId: `pl_${hex(12)}` };
    case 'payin.failed':
      return transaction('payin', 'failed', livemode, at);
    case 'payin.expired':
      return transaction('payin', 'expired', livemode, at);
    case 'payout.updated':
      return transaction('payout', 'processing', livemode, at);
    case 'payout.completed':
      return transaction('payout', 'completed', livemode, at);
    case 'refund.processing':
      return refund('processing', livemode, at);
    case 'refund.completed':
      return refund('completed', livemode, at);
    case 'refund.failed':
      return refund('failed', livemode, at);
    case 'payout.batch.completed':
      return payoutBatch(livemode, at);
    case 'statement.ready':
      return statement(livemode, at);
  }
}

/** A fresh example event of this type, in the endpoint's mode. */
export function testEvent(type: EventType, livemode: boolean, now: Date = new Date()): TestEvent {
  const at = now.toISOString();
  return {
    id: `evt_test_${hex(12)}`,
    type,
    createdAt: at,
    livemode,
    test: true,
    data: dataOf(type, livemode, at),
  };
}
