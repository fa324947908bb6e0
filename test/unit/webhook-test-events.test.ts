import { z } from 'zod';
import { eventTypes, publicEvent, subjectKindOf, type EventSubjectKind } from '../../src/events/catalogue';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';
import { refundRecord } from '../../src/contract/schemas/refund';
import { payoutBatchRecord } from '../../src/contract/schemas/payout-batch';
import { statementRecord } from '../../src/contract/schemas/statements';
import { testEventRecord } from '../../src/contract/schemas/webhooks';
import { testEvent } from '../../src/webhooks/test-events';

// The example events of POST /v1/webhooks/{id}/test: each `data` is the record its real event
// carries, with fake ids, and nothing personal.

const dataOf: Record<EventSubjectKind, z.ZodType> = {
  payin: transactionRecord.strict(),
  payout: transactionRecord.strict(),
  refund: refundRecord.strict(),
  'payout.batch': payoutBatchRecord.strict(),
  statement: statementRecord.strict(),
  payment_link: transactionRecord.strict(),
};

describe('webhook test events', () => {
  it.each(eventTypes)('%s: a public event marked test, whose data is a record of its kind', (type) => {
    const event = testEvent(type, false, new Date('2026-11-22T10:15:00Z'));
    expect(testEventRecord.parse(event)).toEqual(event);
    expect(publicEvent.parse(event).type).toBe(type);
    expect(event).toMatchObject({ type, livemode: false, test: true, createdAt: '2026-11-22T10:15:00.000Z' });
    expect(event.id).toMatch(/^evt_test_[0-9a-f]{24}$/);
    dataOf[subjectKindOf(type)].parse(event.data);
    expect(event.data.livemode).toBe(false);
    // No one's data: the sandbox's documented test number and a placeholder name only.
    const text = JSON.stringify(event);
    for (const number of text.match(/\+\d{9,15}/g) ?? []) expect(number).toBe('+2250500000001');
    for (const name of text.match(/"(?:customer":\{"name|customerName)":"[^"]*"/g) ?? [])
      expect(name).toMatch(/"Test Customer"$/);
  });

  it('has fresh ids at every call and the mode of the endpoint', () => {
    const a = testEvent('payin.completed', true);
    const b = testEvent('payin.completed', true);
    expect(a.id).not.toBe(b.id);
    expect(a.data.id).not.toBe(b.data.id);
    expect(a.data.reference).toMatch(/^test-/);
    expect([a.livemode, a.data.livemode]).toEqual([true, true]);
    expect(testEvent('payin.failed', false).data).toMatchObject({
      status: 'failed',
      failure: { code: 'PAYER_DECLINED' },
    });
    expect(testEvent('refund.completed', false).data).toMatchObject({
      status: 'completed',
      transaction: { status: 'completed' },
    });
  });
});
