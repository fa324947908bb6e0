import { WorkflowUpdateFailedError } from '@temporalio/client';
import { payinWorkflow } from '../../../workflows';
import {
  cancelled,
  completed,
  directPayin,
  pending,
  replies,
  sessionPayin,
  stubActivities,
  useWorkflowTestEnv,
  type PayinWorkflowInput,
  type Stubs,
} from '../helpers/stub-activities';

// The session payin (docs/payins.md): awaiting the customer on the hosted page, then the direct
// story; and a stop request (Temporal cancellation), read as "our deadline is now".
// Update and query names are those of workflows/payin/payin-api.ts (fixed: they are in histories).

const minute = 60_000;
const t = useWorkflowTestEnv();

type PayinState = Awaited<ReturnType<typeof payinWorkflow>>;
const mtnChoice = { provider: 'MTN', msisdn: '+2250500000009' };

async function start(input: PayinWorkflowInput, taskQueue: string) {
  return t.env.client.workflow.start(payinWorkflow, {
    args: [input],
    taskQueue,
    workflowId: `payin:${input.transactionId}`,
  });
}
const events = (stubs: Stubs) => stubs.of('emitTransactionEvent').map((c) => c.args[1]);

test('session: wait -> confirmed -> success; the operator is asked for what the customer chose', async () => {
  const input = sessionPayin();
  const stubs = stubActivities({ readCollectionStatus: replies(pending(), completed()) });
  await t.withStubs(stubs, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    expect(await handle.query<PayinState>('payinState')).toMatchObject({
      status: 'processing',
      awaitingCustomer: true,
    });
    await t.env.sleep(10 * minute); // the customer takes its time, within SESSION_EXPIRY
    const answer = await handle.executeUpdate<PayinState, [typeof mtnChoice]>('confirmSession', {
      args: [mtnChoice],
    });
    expect(answer.awaitingCustomer).toBe(false);
    // A second click (another tab) is refused by the validator: the session is no longer open.
    await expect(
      handle.executeUpdate('confirmSession', { args: [{ ...mtnChoice, msisdn: '+2250500000008' }] }),
    ).rejects.toThrow(WorkflowUpdateFailedError);
    expect(await handle.result()).toMatchObject({ status: 'success', confirmationStatus: 'accepted' });
  });

  // The provider and phone the customer chose go with the request's `pending` write (the activity
  // derives them from the collection it sends), not through an activity of their own.
  expect(stubs.of('requestCollection').map((c) => c.args)).toEqual([
    [
      expect.objectContaining({
        transactionId: input.transactionId,
        operator: 'MTN',
        msisdn: mtnChoice.msisdn,
      }),
      { pendingSeq: 1, recordsCustomer: true },
    ],
  ]);
  expect(stubs.count('recordPayinState')).toBe(1); // the success only
  expect(stubs.count('creditMerchantForPayin')).toBe(1);
  expect(events(stubs)).toEqual(['payin.completed']);
});

test('session expired: nobody acts within SESSION_EXPIRY -> expired, the operator never asked', async () => {
  const input = sessionPayin();
  const stubs = stubActivities();
  const { result, startedAt, closedAt } = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const result = await handle.result();
    const { startTime, closeTime } = await handle.describe();
    return { result, startedAt: startTime.getTime(), closedAt: closeTime!.getTime() };
  });

  expect(result).toMatchObject({
    status: 'expired',
    awaitingCustomer: false,
    failure: { code: 'EXPIRED', provider: null },
  });
  expect(closedAt - startedAt).toBeGreaterThanOrEqual(input.timing.sessionExpiryMs);
  expect(stubs.count('requestCollection') + stubs.count('creditMerchantForPayin')).toBe(0);
  expect(events(stubs)).toEqual(['payin.expired']);
});

test('session declined: the customer declines -> failed DECLINED_BY_CUSTOMER, declined, the operator never asked', async () => {
  const input = sessionPayin();
  const stubs = stubActivities();
  const result = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await handle.executeUpdate('declineSession');
    return handle.result();
  });

  expect(result).toMatchObject({
    status: 'failed',
    confirmationStatus: 'declined',
    failure: { code: 'DECLINED_BY_CUSTOMER' },
  });
  expect(stubs.count('requestCollection') + stubs.count('creditMerchantForPayin')).toBe(0);
  expect(events(stubs)).toEqual(['payin.failed']);
});

test('stop request while the operator has not answered: the deadline is now, cancellation confirmed -> expired', async () => {
  const input = directPayin();
  const stubs = stubActivities({ cancelAtOperator: replies(cancelled()) });
  const { result, cancelAskedAfter } = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await t.env.sleep(minute);
    await handle.cancel();
    const result = await handle.result(); // not cancelled: the money steps run to their end
    const { startTime } = await handle.describe();
    return { result, cancelAskedAfter: stubs.of('cancelAtOperator')[0]!.at - startTime.getTime() };
  });

  expect(result).toMatchObject({ status: 'expired', failure: { code: 'EXPIRED' } });
  expect(cancelAskedAfter).toBeLessThan(input.timing.expiryMs);
  expect(stubs.count('creditMerchantForPayin')).toBe(0);
  expect(events(stubs)).toEqual(['payin.expired']);
});

test('stop request during the session wait -> expired at once, the operator never asked', async () => {
  const input = sessionPayin();
  const stubs = stubActivities();
  const result = await t.withStubs(stubs, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await handle.cancel();
    return handle.result();
  });

  expect(result).toMatchObject({ status: 'expired', failure: { code: 'EXPIRED' } });
  expect(stubs.count('requestCollection')).toBe(0);
});
