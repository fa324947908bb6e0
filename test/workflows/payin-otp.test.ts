import { payinWorkflow } from '../../workflows';
import {
  cancelled,
  completed,
  directPayin,
  failed,
  pending,
  replies,
  stubActivities,
  unavailable,
  unknown,
  workflowTestEnv,
  type PayinWorkflowInput,
  type Stubs,
  type WorkflowTestEnv,
} from './helpers/stub-activities';

// The OTP path of a direct payin (docs/payins.md "OTP handling"): the workflow carries the id of a
// stored OTP and deletes it once (acknowledged, ended, or its lifetime timer), never the OTP itself.

let t: WorkflowTestEnv;
beforeAll(async () => {
  t = await workflowTestEnv();
});
afterAll(async () => {
  await t?.teardown();
});

async function run(stubs: Stubs, input: PayinWorkflowInput) {
  return t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(payinWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payin:${input.transactionId}`,
    });
    const result = await handle.result();
    const { startTime } = await handle.describe();
    return { result, startedAt: startTime.getTime() };
  });
}

test('OTP: the operator acknowledges -> the stored OTP is deleted at once, exactly once; success', async () => {
  const input = directPayin({ otpId: 'otp_a1' });
  const stubs = stubActivities({ readCollectionStatus: replies(completed()) });
  const { result } = await run(stubs, input);

  expect(result.status).toBe('success');
  expect(stubs.of('requestCollection').map((c) => c.args)).toEqual([
    [input.collection, { sentBefore: false }],
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
  expect(sends[0]!.args[1]).toEqual({ sentBefore: false });
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
