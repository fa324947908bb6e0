import { payinWorkflow } from '../../../workflows';
import {
  cancelled,
  completed,
  directPayin,
  failed,
  pending,
  rejected,
  replies,
  serverNow,
  stubActivities,
  unavailable,
  unknown,
  useWorkflowTestEnv,
  type PayinWorkflowInput,
  type Stubs,
} from '../helpers/stub-activities';

// The direct payin's state machine (docs/payins.md): processing -> success | failed | expired, and
// failed -> success through the partner check; and its OTP path ("OTP handling": the workflow
// carries the id of a stored OTP and deletes it once: acknowledged, ended, or its lifetime timer).
// The operator is a stub; time is skipped.

const minute = 60_000;
const hour = 60 * minute;
const t = useWorkflowTestEnv();

async function run(stubs: Stubs, input: PayinWorkflowInput = directPayin()) {
  return t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(payinWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payin:${input.transactionId}`,
    });
    const result = await handle.result();
    const { startTime, closeTime } = await handle.describe();
    const history = (await handle.fetchHistory()).events ?? [];
    return { result, input, history, startedAt: startTime.getTime(), closedAt: closeTime!.getTime() };
  });
}

/** The activity types scheduled as regular activities, and the local activity markers, in a history. */
const regularActivities = (history: Awaited<ReturnType<typeof run>>['history']) =>
  history.flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
const localMarkers = (history: Awaited<ReturnType<typeof run>>['history']) =>
  history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;

// Issue 31: the request and the status read that settles run inside the workflow task.
test('completed: the request and the settling read are local activities, 16 events in all (24 before)', async () => {
  const stubs = stubActivities({ readCollectionStatus: replies(completed()) });
  const { result, history } = await run(stubs);

  expect(result.status).toBe('success');
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(regularActivities(history)).toEqual([]);
  expect(localMarkers(history)).toBe(2);
  expect(history.length).toBeLessThanOrEqual(16);
});

test('a local try that fails (a store hiccup) is run again as a regular activity: credited once', async () => {
  const stubs = stubActivities({
    readCollectionStatus: replies(new Error('store hiccup'), completed()),
  });
  const { result, history } = await run(stubs);

  expect(result.status).toBe('success');
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(regularActivities(history)).toEqual(['readCollectionAndSettle']);
});

test('PAYIN_LOCAL_ACTIVITIES off: regular activities only, as before', async () => {
  const stubs = stubActivities({ readCollectionStatus: replies(completed()) });
  const input = directPayin();
  const { result, history } = await run(stubs, {
    ...input,
    timing: { ...input.timing, localActivities: false },
  });

  expect(result.status).toBe('success');
  expect(regularActivities(history)).toEqual(['requestCollection', 'readCollectionAndSettle']);
  expect(localMarkers(history)).toBe(0);
});

const events = (stubs: Stubs) => stubs.of('emitTransactionEvent').map((c) => c.args[1]);

test('completed: the operator collects -> success, merchant credited once, payin.completed, closed at once with its refund window on the record', async () => {
  const stubs = stubActivities({ readCollectionStatus: replies(pending(), completed()) });
  const { result, input, startedAt, closedAt } = await run(stubs);

  expect(result).toMatchObject({ status: 'success', confirmationStatus: 'accepted', failure: null });
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(events(stubs)).toEqual(['payin.completed']);
  expect(stubs.count('cancelAtOperator') + stubs.count('partnerCheck') + stubs.count('flagForOps')).toBe(0);
  // Reads on the backoff (5 s, then 10 s); the workflow closes at success (its refund desk takes the
  // refunds), the window's end written with the success.
  const reads = stubs.of('readCollectionStatus').map((c) => c.at - startedAt);
  expect(reads[0]).toBeGreaterThanOrEqual(5_000);
  expect(reads[1]! - reads[0]!).toBeGreaterThanOrEqual(10_000);
  expect(closedAt - startedAt).toBeLessThan(input.timing.refundWindowMs);
  // Every state write numbered in order (monotonic writes): `pending` by the request (write 1), then
  // the final answer at once, by the status read that found it.
  expect(stubs.of('requestCollection')[0]!.args[1]).toEqual({ pendingSeq: 1 });
  const writes = stubs.of('recordPayinState');
  expect(writes.map((c) => c.args[2])).toEqual([2]);
  const until = Date.parse((writes[0]!.args[1] as { refundableUntil: string }).refundableUntil);
  expect(until - closedAt).toBeGreaterThan(input.timing.refundWindowMs - minute);
});

test('failed: a definitive refusal (PAYER_DECLINED) -> failed, declined, nothing credited, no partner check', async () => {
  const stubs = stubActivities({ readCollectionStatus: replies(failed('PAYER_DECLINED')) });
  const { result, startedAt, closedAt } = await run(stubs);

  expect(result).toMatchObject({
    status: 'failed',
    confirmationStatus: 'declined',
    failure: { code: 'PAYER_DECLINED', provider: 'MTN_CI' },
  });
  expect(events(stubs)).toEqual(['payin.failed']);
  expect(stubs.count('creditMerchantForPayin') + stubs.count('partnerCheck')).toBe(0);
  expect(closedAt - startedAt).toBeLessThan(hour); // no refund window
});

test('failed: the operator refuses the request itself (4xx) and does not know it -> failed OPERATOR_REJECTED, not asked again', async () => {
  const stubs = stubActivities({
    requestCollection: replies(rejected()),
    readCollectionStatus: replies(unknown()),
  });
  const { result } = await run(stubs);

  expect(result).toMatchObject({ status: 'failed', failure: { code: 'OPERATOR_REJECTED' } });
  expect(result.confirmationStatus).not.toBe('declined');
  expect(stubs.count('requestCollection')).toBe(1);
  // One read confirms the refusal: the operator's books do not hold the collection.
  expect(stubs.count('readCollectionStatus')).toBe(1);
  expect(stubs.count('partnerCheck')).toBe(0);
  expect(events(stubs)).toEqual(['payin.failed']);
});

test('success: refused by one send but collected through another -> its status decides, credited once', async () => {
  const stubs = stubActivities({
    requestCollection: replies(rejected()),
    readCollectionStatus: replies(completed()),
  });
  const { result } = await run(stubs);

  expect(result).toMatchObject({ status: 'success' });
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(events(stubs)).toEqual(['payin.completed']);
});

test('expired: pending until PAYIN_EXPIRY, the operator confirms our cancellation -> expired, nothing credited', async () => {
  const stubs = stubActivities({ cancelAtOperator: replies(cancelled()) });
  const { result, input, startedAt } = await run(stubs);

  expect(result).toMatchObject({ status: 'expired', failure: { code: 'EXPIRED' } });
  expect(events(stubs)).toEqual(['payin.expired']);
  expect(stubs.count('creditMerchantForPayin') + stubs.count('flagForOps')).toBe(0);
  const [cancel] = stubs.of('cancelAtOperator');
  expect(cancel!.args.slice(0, 2)).toEqual(['collection', input.transactionId]);
  // Not one read before the deadline is skipped, and the cancellation waits for it.
  expect(cancel!.at - startedAt).toBeGreaterThanOrEqual(input.timing.expiryMs);
  expect(stubs.count('readCollectionStatus')).toBeGreaterThanOrEqual(5);
});

test('no answer -> asked -> still nothing -> expiry rule: flagged once, asked until it settles; silence never expires it', async () => {
  const t0 = await t.now();
  const settlesAt = t0 + 15 * minute + 20 * minute; // 20 minutes past PAYIN_EXPIRY
  const stubs = stubActivities({
    requestCollection: replies(unavailable()),
    // Neither settled nor cancelled until then: the cancellation is unanswered, the status pending.
    cancelAtOperator: replies(unavailable(), pending()),
    readCollectionStatus: async () => (serverNow() >= settlesAt ? completed() : pending()),
  });
  const { result, input, startedAt } = await run(stubs);

  expect(result).toMatchObject({ status: 'success', failure: null });
  expect(stubs.of('flagForOps').map((c) => c.args[0])).toEqual([
    expect.objectContaining({ kind: 'payin', id: input.transactionId, reason: 'OPERATOR_UNRESOLVED' }),
  ]);
  expect(stubs.count('cancelAtOperator')).toBeGreaterThanOrEqual(2);
  expect(stubs.of('cancelAtOperator')[0]!.at - startedAt).toBeGreaterThanOrEqual(input.timing.expiryMs);
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(events(stubs)).toEqual(['payin.completed']);
});

test('an unanswered request the operator does not know is sent again with the same id, then answered', async () => {
  const stubs = stubActivities({
    requestCollection: replies(unavailable(), pending()),
    readCollectionStatus: replies(unknown(), completed()),
  });
  const { result, input } = await run(stubs);

  expect(result.status).toBe('success');
  const sends = stubs.of('requestCollection').map((c) => c.args[0]);
  expect(sends).toEqual([input.collection, input.collection]);
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
});

test('ambiguous failure -> partner check -> corrected: payin.failed then payin.corrected, credited once', async () => {
  const stubs = stubActivities({
    readCollectionStatus: replies(failed('OPERATOR_TIMEOUT')),
    partnerCheck: replies({ collected: false }, { collected: true, operatorReference: 'p-1' }),
  });
  const { result, input } = await run(stubs);

  expect(result).toMatchObject({ status: 'success', confirmationStatus: 'accepted', failure: null });
  expect(events(stubs)).toEqual(['payin.failed', 'payin.corrected']);
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  // Checks 5 min after the failure, then 10 min after that (PARTNER_CHECK_INTERVAL doubling).
  const failedAt = stubs.of('emitTransactionEvent')[0]!.at;
  const [first, second] = stubs.of('partnerCheck').map((c) => c.at);
  expect(first! - failedAt).toBeGreaterThanOrEqual(input.timing.partnerCheckIntervalMs!);
  expect(second! - first!).toBeGreaterThanOrEqual(2 * input.timing.partnerCheckIntervalMs!);
  expect(stubs.of('partnerCheck')[0]!.args).toEqual([input.transactionId, 'MTN', 'CI']);
});

test('ambiguous failure, the partner never finds the funds (or is down) -> failed after the 48 h window, nothing credited', async () => {
  const stubs = stubActivities({
    readCollectionStatus: replies(failed('OPERATOR_TIMEOUT')),
    partnerCheck: replies({ collected: false }, unavailable(), { collected: false }),
  });
  const { result, input, closedAt } = await run(stubs);

  expect(result).toMatchObject({ status: 'failed', failure: { code: 'OPERATOR_TIMEOUT' } });
  expect(events(stubs)).toEqual(['payin.failed']);
  expect(stubs.count('creditMerchantForPayin')).toBe(0);
  const failedAt = stubs.of('emitTransactionEvent')[0]!.at;
  const checks = stubs.of('partnerCheck').map((c) => c.at - failedAt);
  // Backoff capped at 2 h: a bounded number of checks, the last one within the window.
  expect(checks.length).toBeGreaterThan(10);
  expect(checks.length).toBeLessThan(40);
  expect(checks.at(-1)!).toBeLessThanOrEqual(input.timing.correctionWindowMs + minute);
  // A local activity's time is read from the test server as it runs: a few ms after the task began.
  expect(closedAt - failedAt).toBeGreaterThanOrEqual(input.timing.correctionWindowMs - 1_000);
});

test('OTP: the operator acknowledges -> the stored OTP is deleted at once, exactly once; success', async () => {
  const input = directPayin({ otpId: 'otp_a1' });
  const stubs = stubActivities({ readCollectionStatus: replies(completed()) });
  const { result } = await run(stubs, input);

  expect(result.status).toBe('success');
  expect(stubs.of('requestCollection').map((c) => c.args)).toEqual([
    [input.collection, { sentBefore: false, pendingSeq: 1 }],
  ]);
  expect(stubs.of('forgetOtp').map((c) => c.args)).toEqual([['otp_a1']]);
  // Deleted on the acknowledgement, before the first status read.
  const names = stubs.names();
  expect(names.indexOf('forgetOtp')).toBeLessThan(names.indexOf('readCollectionStatus'));
});

test('OTP gone before the operator was asked -> failed OTP_EXPIRED, definitive: no partner check, nothing credited', async () => {
  const input = directPayin({ otpId: 'otp_b2' });
  const stubs = stubActivities({
    requestCollection: replies(failed('OTP_EXPIRED', 'The OTP expired before the operator was asked')),
  });
  const { result } = await run(stubs, input);

  expect(result).toMatchObject({
    status: 'failed',
    confirmationStatus: 'declined',
    failure: { code: 'OTP_EXPIRED' },
  });
  expect(stubs.count('partnerCheck') + stubs.count('creditMerchantForPayin')).toBe(0);
  expect(stubs.of('forgetOtp').map((c) => c.args)).toEqual([['otp_b2']]);
});

test('OTP never used (the operator unreachable): deleted by its OTP_LIFETIME timer, once; resends say it was sent before', async () => {
  const input = directPayin({ otpId: 'otp_c3' });
  const stubs = stubActivities({
    requestCollection: replies(unavailable()),
    readCollectionStatus: replies(unknown()),
    cancelAtOperator: replies(cancelled()),
  });
  const { result, startedAt } = await run(stubs, input);

  expect(result.status).toBe('expired');
  const forgets = stubs.of('forgetOtp');
  expect(forgets.map((c) => c.args)).toEqual([['otp_c3']]);
  expect(forgets[0]!.at - startedAt).toBeGreaterThanOrEqual(input.timing.otpLifetimeMs!);
  const sends = stubs.of('requestCollection');
  expect(sends.length).toBeGreaterThan(1);
  expect(sends[0]!.args[1]).toEqual({ sentBefore: false, pendingSeq: 1 });
  expect(sends.slice(1).every((c) => (c.args[1] as { sentBefore: boolean }).sentBefore)).toBe(true);
});

test('OTP: the operator answers pending and never settles; cancellation confirmed -> expired, OTP deleted once', async () => {
  const input = directPayin({ otpId: 'otp_d4' });
  const stubs = stubActivities({
    requestCollection: replies(pending()),
    cancelAtOperator: replies(cancelled()),
  });
  const { result } = await run(stubs, input);

  expect(result.status).toBe('expired');
  expect(stubs.count('forgetOtp')).toBe(1);
  expect(stubs.count('requestCollection')).toBe(1);
});

test("an operator's callback wakes the workflow before its poll timer: the status is read at once, then trusted", async () => {
  const input = directPayin();
  const stubs = stubActivities({ readCollectionStatus: replies(completed()) });
  const { result, firstReadAfter } = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(payinWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payin:${input.transactionId}`,
    });
    await handle.signal('operatorCallback', { kind: 'collection', id: input.transactionId });
    const result = await handle.result();
    const { startTime } = await handle.describe();
    return { result, firstReadAfter: stubs.of('readCollectionStatus')[0]!.at - startTime.getTime() };
  });

  expect(result.status).toBe('success');
  expect(firstReadAfter).toBeLessThan(5_000); // the first poll timer is 5 s
  expect(stubs.count('readCollectionStatus')).toBe(1);
});

test('a long wait continues as new (bounded history): the request is not sent again, the answer settles once', async () => {
  const stubs = stubActivities({
    readCollectionStatus: replies(pending(), pending(), pending(), pending(), completed()),
  });
  const { result } = await run(stubs, directPayin({ timing: { readsPerRun: 2 } }));

  expect(result).toMatchObject({ status: 'success', confirmationStatus: 'accepted' });
  expect(stubs.count('readCollectionStatus')).toBe(5); // over three runs
  expect(stubs.count('requestCollection')).toBe(1);
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  // The write sequence goes on across runs: pending (by the request), then the final answer.
  expect(stubs.of('requestCollection')[0]!.args[1]).toEqual({ pendingSeq: 1 });
  expect(stubs.of('recordPayinState').map((c) => c.args[2])).toEqual([2]);
});

test('OTP: a local try of the request that fails may have reached the operator: its regular activity says sent before', async () => {
  const input = directPayin({ otpId: 'otp_e5' });
  const stubs = stubActivities({
    requestCollection: replies(new Error('no answer in time'), pending()),
    readCollectionStatus: replies(completed()),
  });
  const { result } = await run(stubs, input);

  expect(result.status).toBe('success');
  const sends = stubs.of('requestCollection').map((c) => c.args[1]);
  expect(sends).toEqual([
    { sentBefore: false, pendingSeq: 1 },
    { sentBefore: true, pendingSeq: 1 },
  ]);
});
