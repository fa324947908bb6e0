import type { WorkflowHandle } from '@temporalio/client';
import { payoutWorkflow } from '../../../workflows';
import type { PayoutCancelAnswer } from '../../../workflows/payout/payout-api';
import type { PayoutProviderState } from '../../../activities/payout/payout-activities';
import {
  cancelled,
  completed,
  newId,
  pending,
  replies,
  serverNow,
  stubActivities,
  unavailable,
  useWorkflowTestEnv,
  type Stubs,
} from '../helpers/stub-activities';

// A payout to a delayed or closed provider (docs/payouts.md, "Held for the provider"): debited,
// held `pending` and unsent until the provider recovers; cancellable until it is sent (money back
// exactly once), not after. PAYOUT_EXPIRY runs from the send, not while held.

const minute = 60_000;
const hour = 60 * minute;
const EXPIRY_MS = 30 * minute;
const t = useWorkflowTestEnv();

type PayoutInput = Parameters<typeof payoutWorkflow>[0];
function payoutInput(timing: Partial<PayoutInput['timing']> = {}): PayoutInput {
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
    timing: { expiryMs: EXPIRY_MS, ...timing },
  };
}

const closed = (retryAfterSeconds: number | null = 300): PayoutProviderState => ({
  state: 'closed',
  retryAfterSeconds,
});
const delayed = (): PayoutProviderState => ({ state: 'delayed', retryAfterSeconds: null });
const operational = (): PayoutProviderState => ({ state: 'operational', retryAfterSeconds: null });

type Handle = WorkflowHandle<typeof payoutWorkflow>;
async function start(input = payoutInput()): Promise<Handle> {
  return t.env.client.workflow.start(payoutWorkflow, {
    args: [input],
    taskQueue: t.taskQueue,
    workflowId: `payout:${input.transactionId}`,
  });
}
const cancel = (h: Handle) => h.executeUpdate<PayoutCancelAnswer, []>('cancelPayout');

/** Real-time wait until `check` holds (the stubs record calls as the worker runs them). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statuses = (stubs: Stubs) =>
  stubs.of('recordPayoutState').flatMap((c) => {
    const status = (c.args[1] as { status?: string }).status;
    return status ? [status] : [];
  });

test('payout held: a closed provider keeps it pending and unsent; sent once it recovers, completed', async () => {
  const t0 = await t.now();
  const stubs = stubActivities({
    payoutProviderState: async () => (serverNow() < t0 + 2 * hour ? closed() : operational()),
    readDisbursementStatus: replies(completed('op-9')),
  });
  const result = await t.withStubs(stubs, async () => (await start()).result());

  expect(result).toEqual({ status: 'completed', failure: null });
  expect(stubs.count('payoutProviderState')).toBeGreaterThan(2);
  // Nothing happened to the payout before the recovery: the first write is `processing`, after it.
  const sent = stubs.of('requestDisbursement')[0]!.at;
  expect(sent - t0).toBeGreaterThanOrEqual(2 * hour);
  expect(stubs.of('recordPayoutState')[0]!.at - t0).toBeGreaterThanOrEqual(2 * hour);
  expect(statuses(stubs)).toEqual(['processing', 'processed', 'completed']);
  expect(stubs.count('reversePayout')).toBe(0);
  // The checks follow the provider's Retry-After (300 s here).
  const [a, b] = stubs.of('payoutProviderState').map((c) => c.at);
  expect(b! - a!).toBeGreaterThanOrEqual(300_000);
});

test('payout held: PAYOUT_EXPIRY starts when it is sent, not while held', async () => {
  const t0 = await t.now();
  const stubs = stubActivities({
    payoutProviderState: async () => (serverNow() < t0 + 3 * hour ? delayed() : operational()),
    cancelAtOperator: replies(cancelled()),
  });
  const result = await t.withStubs(stubs, async () => (await start()).result());

  expect(result).toMatchObject({ status: 'reversed', failure: { code: 'EXPIRED' } });
  const sent = stubs.of('requestDisbursement')[0]!.at;
  expect(sent - t0).toBeGreaterThanOrEqual(3 * hour);
  // Held for three hours, yet asked to cancel a full PAYOUT_EXPIRY after the send. The deadline is
  // taken on the workflow's clock (its task's start), a few ms before the send is scheduled.
  expect(stubs.of('cancelAtOperator')[0]!.at - sent).toBeGreaterThanOrEqual(EXPIRY_MS - 1_000);
  expect(stubs.count('reversePayout')).toBe(1);
});

test('payout held then cancelled: money back exactly once, reversed CANCELLED, the operator never asked', async () => {
  const stubs = stubActivities({ payoutProviderState: async () => closed() });
  await t.withStubs(stubs, async () => {
    const h = await start();
    await until(() => stubs.count('payoutProviderState') >= 1);
    // Two cancellations at once: both answered `cancelled`, the money returned once.
    const answers = await Promise.all([cancel(h), cancel(h)]);
    expect(answers).toEqual([{ outcome: 'cancelled' }, { outcome: 'cancelled' }]);
    expect(await h.result()).toEqual({
      status: 'reversed',
      failure: {
        code: 'CANCELLED',
        message: 'The payout was cancelled before it was sent to the operator',
        provider: 'MTN_CI',
      },
    });
    // The workflow has ended: a later cancellation is not taken by it (the API answers from the record).
    await expect(cancel(h)).rejects.toThrow();
  });
  expect(stubs.count('reversePayout')).toBe(1);
  expect(stubs.count('requestDisbursement') + stubs.count('cancelAtOperator')).toBe(0);
  expect(statuses(stubs)).toEqual(['reversed']);
  expect(stubs.of('emitTransactionEvent').map((c) => c.args[1])).toEqual(['payout.updated']);
});

test('payout sent: a cancellation is refused (with-operator) and the payout goes on to completion', async () => {
  const stubs = stubActivities({
    readDisbursementStatus: replies(pending(), pending(), completed()),
  });
  await t.withStubs(stubs, async () => {
    const h = await start();
    await until(() => stubs.count('requestDisbursement') >= 1);
    expect(await cancel(h)).toEqual({ outcome: 'with-operator' });
    expect(await h.result()).toEqual({ status: 'completed', failure: null });
  });
  expect(stubs.count('reversePayout')).toBe(0);
});

test('payout held: a long hold continues as new, still cancellable, not debited twice, sequence goes on', async () => {
  const stubs = stubActivities({ payoutProviderState: async () => closed(60) });
  await t.withStubs(stubs, async () => {
    const h = await start(payoutInput({ readsPerRun: 2 }));
    // Time skips only while the client waits on the server: let six minutes of checks pass.
    await t.env.sleep(6 * minute);
    await until(() => stubs.count('payoutProviderState') >= 5); // three runs at least
    expect(await cancel(h)).toEqual({ outcome: 'cancelled' });
    expect(await h.result()).toMatchObject({ status: 'reversed', failure: { code: 'CANCELLED' } });
  });
  expect(stubs.count('ensurePayoutDebited')).toBe(1);
  expect(stubs.count('reversePayout')).toBe(1);
  expect(stubs.of('recordPayoutState').map((c) => c.args[2])).toEqual([1]);
});

test('payout: provider health unreadable -> sent at once (holding needs a known bad state)', async () => {
  const stubs = stubActivities({
    payoutProviderState: replies(unavailable()),
    readDisbursementStatus: replies(completed()),
  });
  const result = await t.withStubs(stubs, async () => (await start()).result());
  expect(result).toEqual({ status: 'completed', failure: null });
  expect(stubs.count('requestDisbursement')).toBe(1);
});

test('payout held: an ops stop request (Temporal cancellation) returns the money once, nothing sent', async () => {
  const stubs = stubActivities({ payoutProviderState: async () => delayed() });
  await t.withStubs(stubs, async () => {
    const h = await start();
    await until(() => stubs.count('payoutProviderState') >= 1);
    await h.cancel();
    expect(await h.result()).toMatchObject({ status: 'reversed', failure: { code: 'CANCELLED' } });
  });
  expect(stubs.count('reversePayout')).toBe(1);
  expect(stubs.count('requestDisbursement')).toBe(0);
});
