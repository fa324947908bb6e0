import {
  buildWorkflowId,
  eventPublishWorkflowId,
  parseWorkflowId,
  payinWorkflowId,
  payoutWorkflowId,
  RECONCILIATION_SCHEDULE_ID,
  recoverySweepScheduleId,
  refundWorkflowId,
  transactionWorkflowId,
  webhookDeliveryWorkflowId,
  type ParsedWorkflowId,
} from '../../src/temporal/workflow-ids';
import { refundWorkflowId as refundWorkflowIdOfWorkflows } from '../../workflows/refund/refund-api';
import { deliveryWorkflowId } from '../../src/webhooks/dispatch';
import { recoveryScheduleId } from '../../src/recovery/schedule';
import { RECONCILIATION_SCHEDULE_ID as reconciliationScheduleId } from '../../src/reconciliation';

// Workflow ids are recorded in histories and in stored records (transactions' and refunds'
// `workflowId`, webhook deliveries' `deliveryId`): their exact text never changes.
describe('workflow ids (src/temporal/workflow-ids.ts)', () => {
  it('builds every kind in its exact, historical format', () => {
    expect(payinWorkflowId('mer_1', 'order-1001')).toBe('payin:mer_1:order-1001');
    expect(payoutWorkflowId('mer_1', 'po-7')).toBe('payout:mer_1:po-7');
    expect(transactionWorkflowId('payin', 'mer_1', 'order-1001')).toBe('payin:mer_1:order-1001');
    expect(transactionWorkflowId('payout', 'mer_1', 'po-7')).toBe('payout:mer_1:po-7');
    expect(refundWorkflowId('mer_1', 'rf_abc')).toBe('refund:mer_1:rf_abc');
    expect(webhookDeliveryWorkflowId('evt_1', 'we_2')).toBe('webhook:evt_1:we_2');
    expect(webhookDeliveryWorkflowId('evt_1', 'we_2', 'key-9')).toBe('webhook:evt_1:we_2:redeliver:key-9');
    expect(webhookDeliveryWorkflowId('evt_1', 'we_2', '')).toBe('webhook:evt_1:we_2');
    expect(eventPublishWorkflowId('pr_1', 'payin.corrected')).toBe('event:pr_1:payin.corrected');
    expect(RECONCILIATION_SCHEDULE_ID).toBe('reconciliation-daily');
    expect(recoverySweepScheduleId('payments')).toBe('recovery-sweep:payments');
  });

  it('is the one builder: the workflows, the webhook dispatch and the schedules use it', () => {
    expect(refundWorkflowIdOfWorkflows).toBe(refundWorkflowId);
    expect(deliveryWorkflowId).toBe(webhookDeliveryWorkflowId);
    expect(recoveryScheduleId).toBe(recoverySweepScheduleId);
    expect(reconciliationScheduleId).toBe(RECONCILIATION_SCHEDULE_ID);
  });

  const examples: Array<[string, ParsedWorkflowId]> = [
    ['payin:mer_1:order-1001', { kind: 'payin', merchantId: 'mer_1', reference: 'order-1001' }],
    // A merchant's reference may hold colons (letters, digits and . _ : -): it is the rest of the id.
    ['payin:mer_1:shop:2026:order.7', { kind: 'payin', merchantId: 'mer_1', reference: 'shop:2026:order.7' }],
    ['payout:mer_1:po-7', { kind: 'payout', merchantId: 'mer_1', reference: 'po-7' }],
    ['refund:mer_1:rf_abc', { kind: 'refund', merchantId: 'mer_1', refundId: 'rf_abc' }],
    ['webhook:evt_1:we_2', { kind: 'webhook', eventId: 'evt_1', endpointId: 'we_2', redeliveryKey: null }],
    [
      'webhook:evt_1:we_2:redeliver:a:b',
      { kind: 'webhook', eventId: 'evt_1', endpointId: 'we_2', redeliveryKey: 'a:b' },
    ],
    ['event:pr_1:payin.corrected', { kind: 'event', subjectId: 'pr_1', eventType: 'payin.corrected' }],
    ['reconciliation-daily', { kind: 'reconciliation', scheduledAt: null }],
    // A schedule's run: its action's id and the time it was due.
    [
      'reconciliation-daily-2026-03-01T02:00:00Z',
      { kind: 'reconciliation', scheduledAt: '2026-03-01T02:00:00Z' },
    ],
    ['recovery-sweep:payments', { kind: 'recovery-sweep', taskQueue: 'payments', scheduledAt: null }],
    [
      'recovery-sweep:payments-2026-03-01T02:01:00Z',
      { kind: 'recovery-sweep', taskQueue: 'payments', scheduledAt: '2026-03-01T02:01:00Z' },
    ],
  ];

  it.each(examples)('parses %s and builds it back', (id, parsed) => {
    expect(parseWorkflowId(id)).toEqual(parsed);
    expect(buildWorkflowId(parsed)).toBe(id);
  });

  it('round-trips what each builder makes', () => {
    const built = [
      payinWorkflowId('mer_x', 'a:b:c'),
      payoutWorkflowId('mer_x', 'ref-1'),
      refundWorkflowId('mer_x', 'rf_1'),
      webhookDeliveryWorkflowId('evt_x', 'we_y'),
      webhookDeliveryWorkflowId('evt_x', 'we_y', 'idem:key'),
      eventPublishWorkflowId('pr_x', 'payin.corrected'),
      recoverySweepScheduleId('other-queue'),
      RECONCILIATION_SCHEDULE_ID,
    ];
    for (const id of built) expect(buildWorkflowId(parseWorkflowId(id)!)).toBe(id);
  });

  it('answers null for ids it does not build', () => {
    for (const id of [
      '',
      'payin',
      'payin:mer_1',
      'payin:mer_1:',
      'refund::rf_1',
      'webhook:evt_1',
      'webhook:evt_1:we_2:extra',
      'event:pr_1',
      'recovery-sweep:',
      'reconciliation-test-1234',
      'transfer:mer_1:x',
    ])
      expect(parseWorkflowId(id)).toBeNull();
  });
});
