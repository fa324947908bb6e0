import { refundWorkflow } from '../../../workflows';
import {
  cancelled,
  completed,
  failed,
  newId,
  pending,
  rejected,
  replies,
  serverNow,
  stubActivities,
  unavailable,
  unknown,
  useWorkflowTestEnv,
  type Stubs,
} from '../helpers/stub-activities';

// One refund's own workflow (docs/refunds.md): processing -> completed, or failed -> reversed
// (the merchant credited back exactly once), and only on the operator's explicit answer. Started
// here by function reference, as the payin's workflow starts it as a child.

const hour = 3_600_000;
/** workflows/refund/refund.ts REFUND_OPERATOR_DEADLINE_MS: the operator has 48 hours. */
const REFUND_DEADLINE_MS = 48 * hour;
const t = useWorkflowTestEnv();

type RefundInput = Parameters<typeof refundWorkflow>[0];
const refundInput = (): RefundInput => ({
  refundId: newId('rf'),
  payinId: newId('pi'),
  operator: 'MTN',
  country: 'CI',
  amount: 400,
  currency: 'XOF',
  sandboxScenario: null,
});

async function run(stubs: Stubs, input = refundInput()) {
  return t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(refundWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `refund:m_1:${input.refundId}`,
    });
    const result = await handle.result();
    const { startTime } = await handle.describe();
    return { result, input, startedAt: startTime.getTime() };
  });
}

/** The events the workflow recorded, by type. */
const events = (stubs: Stubs) => stubs.of('refundEventInput').map((c) => c.args[1]);

test('refund completed: the operator credits the customer -> completed, no reversal', async () => {
  const stubs = stubActivities({ readRefundStatus: replies(pending(), completed()) });
  const { result, input } = await run(stubs);

  expect(result).toBe('completed');
  expect(stubs.of('requestRefund')[0]!.args[0]).toEqual({
    refundId: input.refundId,
    transactionId: input.payinId,
    operator: 'MTN',
    country: 'CI',
    amount: 400,
    currency: 'XOF',
    sandboxScenario: null,
  });
  expect(stubs.of('completeRefund').map((c) => c.args[0])).toEqual([input.refundId]);
  expect(stubs.count('failRefund') + stubs.count('reverseRefund') + stubs.count('cancelAtOperator')).toBe(0);
  expect(events(stubs)).toEqual(['refund.processing', 'refund.completed']);
  expect(stubs.count('recordEvent')).toBe(2);
});

test('refund.processing goes out with the request, in one activity; an event not written keeps the request unsent', async () => {
  const storeDown = new Error('event store unreachable');
  const stubs = stubActivities({
    // Every attempt of the first send fails on the event: its local try, then the regular
    // activity's 5 (the operator-call policy gives up after 5).
    recordEvent: replies(storeDown, storeDown, storeDown, storeDown, storeDown, storeDown, {
      eventId: 'evt_1',
    }),
    readRefundStatus: replies(unknown(), completed()),
  });
  const input = refundInput();
  const types = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(refundWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `refund:m_1:${input.refundId}`,
    });
    expect(await handle.result()).toBe('completed');
    const history = await handle.fetchHistory();
    return (history.events ?? []).flatMap((e) => {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    });
  });
  // The request announces `refund.processing`: no event step of its own before it. Its local try
  // failed on the event, so it went on as a regular activity; the reads are local activities.
  expect(types).toEqual(['announceAndRequestRefund']);
  expect(types.filter((n) => n === 'emitRefundEvent')).toEqual([]);
  // The operator is asked only once the event exists: the first send never reached it.
  expect(stubs.count('requestRefund')).toBe(1);
  const names = stubs.names();
  expect(names.lastIndexOf('recordEvent', names.indexOf('requestRefund'))).toBeGreaterThan(
    names.indexOf('readRefundStatus'),
  );
  // One event built per call: the local try, its regular activity, the resend.
  expect(events(stubs)).toEqual([
    'refund.processing',
    'refund.processing',
    'refund.processing',
    'refund.completed',
  ]);
});

test('refund failed -> reversed: the operator refuses -> failed with its code, the merchant credited back once', async () => {
  const stubs = stubActivities({ readRefundStatus: replies(failed('REFUND_REJECTED', 'Refused')) });
  const { result, input } = await run(stubs);

  expect(result).toBe('reversed');
  expect(stubs.of('failRefund').map((c) => c.args.slice(0, 2))).toEqual([
    [input.refundId, { code: 'REFUND_REJECTED', message: 'Refused' }],
  ]);
  expect(stubs.of('reverseRefund').map((c) => c.args)).toEqual([[input.refundId]]);
  expect(stubs.count('completeRefund')).toBe(0);
  // Failed is recorded and told before the money goes back.
  const names = stubs.names();
  expect(names.indexOf('failRefund')).toBeLessThan(names.indexOf('reverseRefund'));
  expect(events(stubs)).toEqual(['refund.processing', 'refund.failed']);
});

test('refund failed -> reversed: the operator refuses the request itself (4xx) and does not know it -> OPERATOR_REJECTED, reversed once', async () => {
  const stubs = stubActivities({ requestRefund: replies(rejected()), readRefundStatus: replies(unknown()) });
  const { result } = await run(stubs);

  expect(result).toBe('reversed');
  expect(stubs.of('failRefund')[0]!.args[1]).toMatchObject({ code: 'OPERATOR_REJECTED' });
  expect(stubs.count('reverseRefund')).toBe(1);
  // One read confirms the refusal: the operator's books do not hold the refund.
  expect(stubs.count('readRefundStatus')).toBe(1);
});

test('refund refused by one send but taken by another (a replayed local try) -> its status decides: completed, never reversed', async () => {
  const stubs = stubActivities({
    requestRefund: replies(rejected()),
    readRefundStatus: replies(completed()),
  });
  const { result } = await run(stubs);

  expect(result).toBe('completed');
  expect(stubs.count('reverseRefund') + stubs.count('failRefund')).toBe(0);
  expect(stubs.count('completeRefund')).toBe(1);
});

test('refund unanswered -> asked -> final answer: ambiguity never reverses; completed after hours of silence', async () => {
  const t0 = await t.now();
  const stubs = stubActivities({
    requestRefund: replies(unavailable()),
    // Unreadable, then pending, then (10 h later) completed: none of it is a failure.
    readRefundStatus: async () =>
      serverNow() < t0 + 2 * hour
        ? Promise.reject(unavailable())
        : serverNow() < t0 + 10 * hour
          ? pending()
          : completed(),
  });
  const { result } = await run(stubs);

  expect(result).toBe('completed');
  expect(stubs.count('reverseRefund') + stubs.count('failRefund') + stubs.count('cancelAtOperator')).toBe(0);
  // Status read on a backoff capped at an hour: a handful of reads over 10 hours, not thousands.
  expect(stubs.count('readRefundStatus')).toBeLessThan(25);
});

test('refund deadline: pending for 48 h -> cancellation asked and confirmed -> failed REFUND_EXPIRED, reversed once', async () => {
  const stubs = stubActivities({ cancelAtOperator: replies(cancelled()) });
  const { result, input, startedAt } = await run(stubs);

  expect(result).toBe('reversed');
  const [cancel] = stubs.of('cancelAtOperator');
  expect(cancel!.args.slice(0, 2)).toEqual(['refund', input.refundId]);
  expect(cancel!.at - startedAt).toBeGreaterThanOrEqual(REFUND_DEADLINE_MS);
  expect(stubs.of('failRefund')[0]!.args[1]).toMatchObject({ code: 'REFUND_EXPIRED' });
  expect(stubs.count('reverseRefund')).toBe(1);
  expect(stubs.count('flagForOps')).toBe(0);
});

test('refund past its deadline, neither settled nor cancelled: flagged once, asked until it settles; never reversed on silence', async () => {
  const t0 = await t.now();
  const stubs = stubActivities({
    cancelAtOperator: replies(unavailable(), pending()),
    readRefundStatus: async () =>
      serverNow() < t0 + REFUND_DEADLINE_MS + 3 * hour ? unknown() : completed(),
  });
  const { result, input } = await run(stubs);

  expect(result).toBe('completed');
  expect(stubs.of('flagForOps').map((c) => c.args[0])).toEqual([
    { kind: 'refund', id: input.refundId, reason: 'OPERATOR_UNRESOLVED' },
  ]);
  expect(stubs.count('cancelAtOperator')).toBeGreaterThanOrEqual(2);
  expect(stubs.count('reverseRefund')).toBe(0);
});
