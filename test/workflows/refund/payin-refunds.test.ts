import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { payinWorkflow } from '../../../workflows';
import { askRefundDesk } from '../../../src/services/start-workflow';
import { refundDeskWorkflowId, refundWorkflowId } from '../../../src/temporal/workflow-ids';
import type { RefundDeskFacts } from '../../../activities/refund/refund-activities';
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
} from '../helpers/stub-activities';

// The refunds of a payin that closed at its final status, decided by its refund desk
// (workflows/refund/payin-refund-desk.ts, through workflows/refund/payin-refunds.ts): each request is an
// update-with-start, the remainder is checked and reserved by one handler at a time, each accepted
// refund runs in its own workflow (on the same stubs), and a new desk reads the refunds stored so far
// (a small in-memory store here, fed by the stubs of openRefund and reverseRefund).

const t = useWorkflowTestEnv();

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
/** A payin's refund desk, as the API reaches it. */
interface Desk {
  input: PayinWorkflowInput;
  taskQueue: string;
}
const requestRefund = (d: Desk, ask: RefundAsk) =>
  askRefundDesk(
    t.env.client,
    d.taskQueue,
    { merchantId: d.input.merchantId, id: d.input.transactionId },
    ask,
  );

/** Waits (real time) until the payin's desk closed: its refunds ended and no Update is left. */
async function deskClosed(d: Desk) {
  const desk = t.env.client.workflow.getHandle(
    refundDeskWorkflowId(d.input.merchantId, d.input.transactionId),
  );
  while ((await desk.describe()).status.name === 'RUNNING') await delay(20);
}

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

/**
 * Stubs over a small store: the payin's last recorded status and refund window, the refunds opened
 * and reversed; openRefundDesk reads them as the real activity reads the database.
 */
/**
 * Whether the desk's activity finds the window over. The payin writes its end in workflow time, which
 * the time-skipping server moves far from the wall clock the activity reads: a test says it instead.
 */
const wallClock = { pastWindow: false };

function deskStubs(input: PayinWorkflowInput, script: Script): Stubs {
  wallClock.pastWindow = false;
  const payin = { status: 'processing', refundableUntil: null as number | null, seq: 0 };
  const refunds: RefundDeskFacts['refunds'] = [];
  return stubActivities({
    requestCollection: replies(completed()),
    readRefundStatus: replies(completed()),
    ...script,
    recordPayinState: async (_id, changes, seq) => {
      if (changes.status) payin.status = changes.status;
      if (changes.refundableUntil) payin.refundableUntil = Date.parse(changes.refundableUntil);
      payin.seq = Math.max(payin.seq, seq ?? 0);
    },
    openRefund: async (o) => {
      const answer = script.openRefund ? ((await script.openRefund(o)) as { fee: number }) : { fee: 0 };
      refunds.push({
        refundId: o.refundId,
        externalReference: o.externalReference,
        idempotencyKey: o.idempotencyKey,
        amount: o.amount,
        reversed: false,
      });
      return answer;
    },
    reverseRefund: async (refundId) => {
      const r = refunds.find((x) => x.refundId === refundId);
      if (r) r.reversed = true;
    },
    listPayinRefunds: async (_id, _ids, seq) => {
      payin.seq = Math.max(payin.seq, seq ?? 0);
    },
    openRefundDesk: async () => ({
      payin: {
        merchantId: input.merchantId,
        transactionId: input.transactionId,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        operator: 'MTN',
        country: 'CI',
        success: payin.status === 'success',
        refundableForMs: payin.refundableUntil === null ? null : wallClock.pastWindow ? -1 : 3_600_000,
      },
      refunds: refunds.map((r) => ({ ...r })),
      seq: payin.seq,
    }),
  });
}

/**
 * The payin's result, waited for in real time: awaiting it through the test environment lets the
 * server skip time once nothing runs (years, past every refund window).
 */
async function settled(h: WorkflowHandle<typeof payinWorkflow>) {
  while ((await h.describe()).status.name === 'RUNNING') await delay(20);
  return h.result();
}

/** A payin of 1,000 collected at once (its workflow closes then), whose refunds the operator completes unless `script` says otherwise. */
async function withCollectedPayin<T>(
  script: Script,
  fn: (d: Desk, input: PayinWorkflowInput, stubs: Stubs) => Promise<T>,
): Promise<{ stubs: Stubs; value: T; payin: Awaited<ReturnType<typeof payinWorkflow>> }> {
  const input = directPayin();
  const stubs = deskStubs(input, script);
  return t.withStubs(stubs, async (taskQueue) => {
    const payin = await settled(
      await t.env.client.workflow.start(payinWorkflow, {
        args: [input],
        taskQueue,
        workflowId: `payin:${input.transactionId}`,
      }),
    );
    const value = await fn({ input, taskQueue }, input, stubs);
    // Every refund's own workflow reaches its end.
    for (const c of stubs.of('openRefund')) {
      const { refundId } = c.args[0] as { refundId: string };
      await t.env.client.workflow
        .getHandle(refundWorkflowId(input.merchantId, refundId))
        .result()
        .catch(() => undefined);
    }
    return { stubs, value, payin };
  });
}

const debited = (stubs: Stubs) => stubs.of('openRefund').map((c) => (c.args[0] as { amount: number }).amount);

test('concurrent refund Updates against the remainder: two racing for the last 400, one accepted, one refused', async () => {
  const { stubs, value } = await withCollectedPayin(
    // The debit takes a while: the second Update arrives while the first is still opening.
    { openRefund: async () => (await delay(300), { fee: 0 }) },
    async (d) => {
      expect(await outcome(requestRefund(d, refundAsk(600)))).toBe('accepted');
      return Promise.all([
        outcome(requestRefund(d, refundAsk(400))),
        outcome(requestRefund(d, refundAsk(null))),
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
    (d) => Promise.all([1, 2, 3, 4, 5].map(() => outcome(requestRefund(d, refundAsk(300))))),
  );

  expect(value.filter((o) => o === 'accepted')).toHaveLength(3);
  expect(value.filter((o) => o !== 'accepted')).toEqual(['INVALID_AMOUNT', 'INVALID_AMOUNT']);
  expect(debited(stubs)).toEqual([300, 300, 300]);
});

test('refund deadline: asked after REFUND_WINDOW -> REFUND_NOT_ALLOWED; the refund accepted in time ran to its end', async () => {
  const { stubs, value, payin } = await withCollectedPayin({}, async (d) => {
    const inTime = await outcome(requestRefund(d, refundAsk(200)));
    // Its refund completes and its desk closes; the window then ends (by the wall clock the next
    // desk's activity reads).
    await deskClosed(d);
    wallClock.pastWindow = true;
    const late = await outcome(requestRefund(d, refundAsk(200)));
    return { inTime, late };
  });

  expect(value).toEqual({ inTime: 'accepted', late: 'REFUND_NOT_ALLOWED' });
  expect(payin.status).toBe('success');
  expect(debited(stubs)).toEqual([200]);
  expect(stubs.count('completeRefund')).toBe(1);
});

test('a refund the operator refuses is reversed once and frees its amount: the whole payin is refundable again', async () => {
  const { stubs, value } = await withCollectedPayin(
    { readRefundStatus: replies(failed('REFUND_REJECTED'), completed()) },
    async (d, _input, stubs) => {
      const first = await outcome(requestRefund(d, refundAsk(null)));
      // Its workflow reads `failed` at its first poll (5 s, real time here) and reverses it; the desk
      // closes with it.
      while (stubs.count('reverseRefund') === 0) await delay(50);
      await deskClosed(d);
      const second = await outcome(requestRefund(d, refundAsk(1000)));
      return [first, second];
    },
  );

  expect(value).toEqual(['accepted', 'accepted']);
  expect(debited(stubs)).toEqual([1000, 1000]);
  expect(stubs.count('reverseRefund')).toBe(1);
  expect(stubs.count('completeRefund')).toBe(1);
});

test('same externalReference: the same idempotency key gets the same refund back, another key DUPLICATE_REFUND', async () => {
  const { stubs, value } = await withCollectedPayin({}, async (d) => {
    const ask = refundAsk(100, { externalReference: 'ext-1', idempotencyKey: 'k1' });
    const first = await requestRefund(d, ask);
    const retry = await requestRefund(d, { ...ask, refundId: newId('rf') });
    const other = await outcome(
      requestRefund(d, refundAsk(100, { externalReference: 'ext-1', idempotencyKey: 'k2' })),
    );
    return { same: retry.refundId === first.refundId, other };
  });

  expect(value).toEqual({ same: true, other: 'DUPLICATE_REFUND' });
  expect(stubs.count('openRefund')).toBe(1);
});

test('the merchant balance does not cover it -> INSUFFICIENT_BALANCE, nothing reserved', async () => {
  const { stubs, value } = await withCollectedPayin(
    { openRefund: replies(insufficientFunds(), { fee: 0 }) },
    async (d) => [
      await outcome(requestRefund(d, refundAsk(1000))),
      await outcome(requestRefund(d, refundAsk(1000))),
    ],
  );

  expect(value).toEqual(['INSUFFICIENT_BALANCE', 'accepted']);
  expect(stubs.count('requestRefund')).toBe(1);
});

test('a refund of a payin that did not succeed is refused REFUND_NOT_ALLOWED', async () => {
  const input = directPayin();
  const stubs = deskStubs(input, {
    requestCollection: replies(pending()),
    readCollectionStatus: replies(failed('PAYER_DECLINED')),
  });
  const late = await t.withStubs(stubs, async (taskQueue) => {
    await settled(
      await t.env.client.workflow.start(payinWorkflow, {
        args: [input],
        taskQueue,
        workflowId: `payin:${input.transactionId}`,
      }),
    );
    return outcome(requestRefund({ input, taskQueue }, refundAsk(100)));
  });

  expect(late).toBe('REFUND_NOT_ALLOWED');
  expect(stubs.count('openRefund')).toBe(0);
});

test("a refund's operator callback reaches the refund's own workflow: read before its poll timer", async () => {
  const { stubs, value } = await withCollectedPayin({}, async (d, input, stubs) => {
    const { refundId } = await requestRefund(d, refundAsk(100));
    // The refund asked the operator (its first answer: pending); the callback names the refund.
    while (stubs.count('requestRefund') === 0) await delay(20);
    await t.env.client.workflow
      .getHandle(refundWorkflowId(input.merchantId, refundId))
      .signal('operatorCallback', { kind: 'refund', id: refundId });
    while (stubs.count('completeRefund') === 0) await delay(20);
    return refundId;
  });

  const [asked] = stubs.of('requestRefund');
  const [read] = stubs.of('readRefundStatus');
  expect((asked!.args[0] as { refundId: string }).refundId).toBe(value);
  expect(read!.at - asked!.at).toBeLessThan(5_000); // the child's first poll timer is 5 s
});
