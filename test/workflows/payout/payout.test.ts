import { payoutWorkflow } from '../../../workflows';
import {
  cancelled,
  completed,
  failed,
  insufficientFunds,
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

// The payout's state machine (docs/payouts.md): pending -> processing -> processed -> completed, or
// failed / expired -> reversed (the account credited back exactly once), only on the operator's
// explicit answer; an operator that answers neither is asked until it does (flagged for ops).

const minute = 60_000;
const EXPIRY_MS = 30 * minute;
const t = useWorkflowTestEnv();

type PayoutInput = Parameters<typeof payoutWorkflow>[0];
function payoutInput(): PayoutInput {
  const id = newId('po');
  return {
    transactionId: id,
    disbursement: {
      transactionId: id,
      operator: 'MTN',
      country: 'CI',
      msisdn: '+2250500000002',
      amount: 5000,
      currency: 'XOF',
      sandboxScenario: null,
    },
    timing: { expiryMs: EXPIRY_MS },
  };
}

async function run(stubs: Stubs, input = payoutInput()) {
  return t.withStubs(stubs, async (taskQueue) => {
    const handle = await t.env.client.workflow.start(payoutWorkflow, {
      args: [input],
      taskQueue,
      workflowId: `payout:${input.transactionId}`,
    });
    const result = await handle.result();
    const { startTime } = await handle.describe();
    return { result, input, startedAt: startTime.getTime() };
  });
}

/** The statuses the workflow recorded, in order. */
const statuses = (stubs: Stubs) =>
  stubs.of('recordPayoutState').flatMap((c) => {
    const status = (c.args[1] as { status?: string }).status;
    return status ? [status] : [];
  });
const events = (stubs: Stubs) => stubs.of('emitTransactionEvent').map((c) => c.args[1]);

test('payout completed: processing -> processed -> completed, fee settled once, never reversed', async () => {
  const stubs = stubActivities({
    requestDisbursement: replies(pending('op-77')),
    readDisbursementStatus: replies(pending('op-77'), completed('op-77')),
  });
  const { result, input } = await run(stubs);

  expect(result).toEqual({ status: 'completed', failure: null });
  expect(statuses(stubs)).toEqual(['processing', 'processed', 'completed']);
  expect(stubs.of('recordPayoutState')[1]!.args[1]).toMatchObject({ operatorReference: 'op-77' });
  expect(stubs.of('requestDisbursement')[0]!.args[0]).toEqual(input.disbursement);
  expect(stubs.count('ensurePayoutDebited')).toBe(1);
  expect(stubs.count('settlePayoutFee')).toBe(1);
  expect(stubs.count('reversePayout') + stubs.count('cancelAtOperator')).toBe(0);
  expect(events(stubs)).toEqual(['payout.updated', 'payout.updated', 'payout.updated', 'payout.completed']);
  expect(stubs.of('recordPayoutState').map((c) => c.args[2])).toEqual([1, 2, 3]);
});

test('payout failed -> reversed: the operator refuses the transfer -> failed, credited back exactly once', async () => {
  const stubs = stubActivities({
    readDisbursementStatus: replies(failed('PAYEE_REJECTED', 'No such wallet')),
  });
  const { result, input } = await run(stubs);

  expect(result).toEqual({
    status: 'reversed',
    failure: { code: 'PAYEE_REJECTED', message: 'No such wallet', provider: 'MTN_CI' },
  });
  expect(statuses(stubs)).toEqual(['processing', 'processed', 'failed', 'reversed']);
  expect(stubs.of('reversePayout').map((c) => c.args)).toEqual([[input.transactionId]]);
  expect(stubs.count('settlePayoutFee')).toBe(0);
});

test('payout failed -> reversed: the operator refuses the request itself (4xx) and does not know it -> OPERATOR_REJECTED, reversed once', async () => {
  const stubs = stubActivities({
    requestDisbursement: replies(rejected()),
    readDisbursementStatus: replies(unknown()),
  });
  const { result } = await run(stubs);

  expect(result).toMatchObject({ status: 'reversed', failure: { code: 'OPERATOR_REJECTED' } });
  expect(statuses(stubs)).toEqual(['processing', 'failed', 'reversed']);
  expect(stubs.count('reversePayout')).toBe(1);
  // One read confirms the refusal: the operator's books do not hold the payout.
  expect(stubs.count('readDisbursementStatus')).toBe(1);
});

test('payout refused by one send but taken by another -> its status decides: pending, then completed, never reversed', async () => {
  const stubs = stubActivities({
    requestDisbursement: replies(rejected()),
    readDisbursementStatus: replies(pending(), completed()),
  });
  const { result } = await run(stubs);

  expect(result).toEqual({ status: 'completed', failure: null });
  expect(stubs.count('reversePayout')).toBe(0);
  expect(stubs.count('requestDisbursement')).toBe(1);
});

test('payout unanswered -> asked -> final answer: no answer before PAYOUT_EXPIRY, cancellation unanswered, flagged once, then paid: never reversed', async () => {
  const t0 = await t.now();
  const stubs = stubActivities({
    requestDisbursement: replies(unavailable()),
    readDisbursementStatus: async () =>
      serverNow() < t0 + EXPIRY_MS + 45 * minute ? pending() : completed(),
    cancelAtOperator: replies(unavailable(), pending()),
  });
  const { result, input, startedAt } = await run(stubs);

  expect(result).toEqual({ status: 'completed', failure: null });
  expect(stubs.count('reversePayout')).toBe(0);
  expect(stubs.of('flagForOps').map((c) => c.args[0])).toEqual([
    expect.objectContaining({ kind: 'payout', id: input.transactionId, reason: 'OPERATOR_UNRESOLVED' }),
  ]);
  expect(stubs.of('cancelAtOperator')[0]!.at - startedAt).toBeGreaterThanOrEqual(EXPIRY_MS);
  expect(stubs.count('cancelAtOperator')).toBeGreaterThanOrEqual(2);
  // Never acknowledged: no `processed`; the final write clears the attention flag.
  expect(statuses(stubs)).toEqual(['processing', 'completed']);
  expect(stubs.of('recordPayoutState').at(-1)!.args[1]).toMatchObject({ attention: null });
});

test('payout unanswered -> asked -> final answer: the operator confirms our cancellation -> expired, reversed once', async () => {
  const stubs = stubActivities({ cancelAtOperator: replies(cancelled()) });
  const { result, startedAt } = await run(stubs);

  expect(result).toMatchObject({ status: 'reversed', failure: { code: 'EXPIRED' } });
  expect(statuses(stubs)).toEqual(['processing', 'processed', 'expired', 'reversed']);
  expect(stubs.count('reversePayout')).toBe(1);
  expect(stubs.of('cancelAtOperator')[0]!.at - startedAt).toBeGreaterThanOrEqual(EXPIRY_MS);
});

test('payout refused: the balance does not cover it -> failed INSUFFICIENT_BALANCE, the operator never asked, nothing to reverse', async () => {
  const stubs = stubActivities({ ensurePayoutDebited: replies(insufficientFunds()) });
  const { result } = await run(stubs);

  expect(result).toMatchObject({ status: 'failed', failure: { code: 'INSUFFICIENT_BALANCE' } });
  expect(statuses(stubs)).toEqual(['failed']);
  expect(stubs.count('requestDisbursement') + stubs.count('reversePayout')).toBe(0);
});

test('payout: a long wait continues as new (bounded history): not debited or sent again, the write sequence goes on', async () => {
  const stubs = stubActivities({
    readDisbursementStatus: replies(pending(), pending(), pending(), pending(), completed()),
  });
  const input = { ...payoutInput(), timing: { expiryMs: EXPIRY_MS, readsPerRun: 2 } };
  const { result } = await run(stubs, input);

  expect(result).toEqual({ status: 'completed', failure: null });
  expect(stubs.count('readDisbursementStatus')).toBe(5); // over three runs
  expect(stubs.count('ensurePayoutDebited') + stubs.count('requestDisbursement')).toBe(2);
  expect(statuses(stubs)).toEqual(['processing', 'processed', 'completed']);
  expect(stubs.of('recordPayoutState').map((c) => c.args[2])).toEqual([1, 2, 3]);
  expect(stubs.count('reversePayout')).toBe(0);
});
