import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { payinWorkflow } from '../../workflows';
import {
  completed,
  directPayin,
  failed,
  insufficientFunds,
  newId,
  pending,
  replies,
  stubActivities,
  useWorkflowTestEnv,
  type PayinWorkflowInput,
  type Script,
  type Stubs,
} from './helpers/stub-activities';

// The refunds of a payin, decided by its workflow's `requestRefund` Update (workflows/payin-refunds.ts):
// the remainder is checked and reserved by one handler at a time; each accepted refund runs in its
// own child workflow (on the same stubs). The payin is collected at once (the operator's first
// answer), so the tests start inside its refund window.

const minute = 60_000;
const t = useWorkflowTestEnv();

type Handle = WorkflowHandle<typeof payinWorkflow>;

function refundAsk(
  amount: number | null,
  over: { externalReference?: string; idempotencyKey?: string } = {},
) {
  return {
    refundId: newId('rf'),
    transactionRef: newId('tr'),
    externalReference: over.externalReference ?? newId('ext'),
    reason: 'customer asked',
    amount,
    sandboxScenario: null,
    idempotencyKey: over.idempotencyKey ?? null,
    requestFingerprint: null,
    apiKey: null,
    requestedAt: '2026-01-01T00:00:00.000Z',
  };
}
type RefundAsk = ReturnType<typeof refundAsk>;
const requestRefund = (h: Handle, ask: RefundAsk) =>
  h.executeUpdate<{ refundId: string }, [RefundAsk]>('requestRefund', { args: [ask] });

/** The Update's refusal code (the API problem code), or 'accepted'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure)
      return err.cause.type ?? 'untyped';
    throw err;
  }
}

/** A payin of 1,000 collected at once, whose refunds the operator completes unless `script` says otherwise. */
async function withCollectedPayin<T>(
  script: Script,
  fn: (h: Handle, input: PayinWorkflowInput, stubs: Stubs) => Promise<T>,
): Promise<{ stubs: Stubs; value: T; payin: Awaited<ReturnType<typeof payinWorkflow>> }> {
  const input = directPayin();
  const stubs = stubActivities({
    requestCollection: replies(completed()),
    readRefundStatus: replies(completed()),
    ...script,
  });
  return t.withStubs(stubs, async (taskQueue) => {
    const h = await t.env.client.workflow.start(payinWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payin:${input.transactionId}`,
    });
    // Success is recorded by activities alone (no timer): wait for it in real time.
    while ((await h.query<{ status: string }>('payinState')).status !== 'success') await delay(20);
    const value = await fn(h, input, stubs);
    const payin = await h.result(); // after the window and every accepted refund
    return { stubs, value, payin };
  });
}

const debited = (stubs: Stubs) => stubs.of('openRefund').map((c) => (c.args[0] as { amount: number }).amount);

test('concurrent refund Updates against the remainder: two racing for the last 400, one accepted, one refused', async () => {
  const { stubs, value } = await withCollectedPayin(
    // The debit takes a while: the second Update arrives while the first is still opening.
    { openRefund: async () => (await delay(300), { fee: 0 }) },
    async (h) => {
      expect(await outcome(requestRefund(h, refundAsk(600)))).toBe('accepted');
      return Promise.all([
        outcome(requestRefund(h, refundAsk(400))),
        outcome(requestRefund(h, refundAsk(null))),
      ]);
    },
  );

  expect([...value].sort()).toEqual(['REFUND_NOT_ALLOWED', 'accepted']);
  expect(debited(stubs).reduce((a, b) => a + b, 0)).toBe(1000);
  expect(stubs.count('requestRefund')).toBe(2);
});

test('concurrent refund Updates: five of 300 at once against 1,000 -> three accepted, the sum never above the payin', async () => {
  const { stubs, value } = await withCollectedPayin(
    { openRefund: async () => (await delay(100), { fee: 0 }) },
    (h) => Promise.all([1, 2, 3, 4, 5].map(() => outcome(requestRefund(h, refundAsk(300))))),
  );

  expect(value.filter((o) => o === 'accepted')).toHaveLength(3);
  expect(value.filter((o) => o !== 'accepted')).toEqual(['INVALID_AMOUNT', 'INVALID_AMOUNT']);
  expect(debited(stubs)).toEqual([300, 300, 300]);
});

test('refund deadline: asked after REFUND_WINDOW -> REFUND_NOT_ALLOWED; the payin ends only once the refund accepted in time does', async () => {
  let settled = false;
  const { stubs, value, payin } = await withCollectedPayin(
    { readRefundStatus: async () => (settled ? completed() : pending()) },
    async (h, input) => {
      const inTime = await outcome(requestRefund(h, refundAsk(200)));
      await t.env.sleep(input.timing.refundWindowMs + minute); // the window closes; the refund still runs
      const late = await outcome(requestRefund(h, refundAsk(200)));
      const openAfterWindow = (await h.describe()).status.name;
      settled = true;
      return { inTime, late, openAfterWindow };
    },
  );

  expect(value).toEqual({ inTime: 'accepted', late: 'REFUND_NOT_ALLOWED', openAfterWindow: 'RUNNING' });
  expect(payin.status).toBe('success');
  expect(debited(stubs)).toEqual([200]);
  expect(stubs.count('completeRefund')).toBe(1);
});

test('a refund the operator refuses is reversed once and frees its amount: the whole payin is refundable again', async () => {
  const { stubs, value } = await withCollectedPayin(
    { readRefundStatus: replies(failed('REFUND_REJECTED'), completed()) },
    async (h) => {
      const first = await outcome(requestRefund(h, refundAsk(null)));
      await t.env.sleep(10 * minute); // its child reads `failed` and reverses it
      const second = await outcome(requestRefund(h, refundAsk(1000)));
      return [first, second];
    },
  );

  expect(value).toEqual(['accepted', 'accepted']);
  expect(debited(stubs)).toEqual([1000, 1000]);
  expect(stubs.count('reverseRefund')).toBe(1);
  expect(stubs.count('completeRefund')).toBe(1);
});

test('same externalReference: the same idempotency key gets the same refund back, another key DUPLICATE_REFUND', async () => {
  const { stubs, value } = await withCollectedPayin({}, async (h) => {
    const ask = refundAsk(100, { externalReference: 'ext-1', idempotencyKey: 'k1' });
    const first = await requestRefund(h, ask);
    const retry = await requestRefund(h, { ...ask, refundId: newId('rf') });
    const other = await outcome(
      requestRefund(h, refundAsk(100, { externalReference: 'ext-1', idempotencyKey: 'k2' })),
    );
    return { same: retry.refundId === first.refundId, other };
  });

  expect(value).toEqual({ same: true, other: 'DUPLICATE_REFUND' });
  expect(stubs.count('openRefund')).toBe(1);
});

test('the merchant balance does not cover it -> INSUFFICIENT_BALANCE, nothing reserved', async () => {
  const { stubs, value } = await withCollectedPayin(
    { openRefund: replies(insufficientFunds(), { fee: 0 }) },
    async (h) => [
      await outcome(requestRefund(h, refundAsk(1000))),
      await outcome(requestRefund(h, refundAsk(1000))),
    ],
  );

  expect(value).toEqual(['INSUFFICIENT_BALANCE', 'accepted']);
  expect(stubs.count('requestRefund')).toBe(1);
});

test('a refund asked before the payin succeeded is refused REFUND_NOT_ALLOWED', async () => {
  const input = directPayin();
  const stubs = stubActivities({ readCollectionStatus: replies(failed('PAYER_DECLINED')) });
  const late = await t.withStubs(stubs, async (taskQueue) => {
    const h = await t.env.client.workflow.start(payinWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payin:${input.transactionId}`,
    });
    const refused = await outcome(requestRefund(h, refundAsk(100)));
    await h.result();
    return refused;
  });

  expect(late).toBe('REFUND_NOT_ALLOWED');
  expect(stubs.count('openRefund')).toBe(0);
});

test("a refund's operator callback reaches the payin's workflow and wakes that refund's child: read before its poll timer", async () => {
  const { stubs, value } = await withCollectedPayin({}, async (h, _input, stubs) => {
    const { refundId } = await requestRefund(h, refundAsk(100));
    // The child asked the operator (its first answer: pending); the callback names the refund.
    while (stubs.count('requestRefund') === 0) await delay(20);
    await h.signal('operatorCallback', { kind: 'refund', id: refundId });
    while (stubs.count('completeRefund') === 0) await delay(20);
    return refundId;
  });

  const [asked] = stubs.of('requestRefund');
  const [read] = stubs.of('readRefundStatus');
  expect((asked!.args[0] as { refundId: string }).refundId).toBe(value);
  expect(read!.at - asked!.at).toBeLessThan(5_000); // the child's first poll timer is 5 s
});
