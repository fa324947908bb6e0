import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Worker } from '@temporalio/worker';
import { eventually, type ApiResponse } from '../helpers/http';
import { replacementWorker } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';
import { buildActivityDeps } from '../../src/main/wiring';
import type { ProviderStateAnswer } from '../../src/operators/health';
import { payoutSourceRefs } from '../../src/ledger/postings';
import { payoutWorkflowId } from '../../src/temporal/workflow-ids';

// Issue 28 §8: a held payout's cancellation against its send, interleaved by fast-check's scheduler
// over the real worker, Temporal test server, simulator and FerretDB. The send is the provider's
// health answer reaching the workflow (the activity's read is held until the scheduler lets it go);
// the cancellations are merchant requests through HTTP (each its own idempotency key, as two
// processes would send them). After each schedule: one decision (every cancel answered alike, 200 or
// 409), the money back once and nothing sent if cancelled, sent once and nothing back otherwise, the
// payout's movements balanced and each account's balance the sum of its entries.

/** Schedules per CI run (each one payout, about a second on the time-skipping server). */
const RUNS = 20;

/** A health read the test answers: the scheduler decides when `operational` reaches the workflow. */
interface HeldRead {
  answer: (a: ProviderStateAnswer) => void;
}

describe('payout cancel against the send (fast-check scheduler)', () => {
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const { stack, merchant, api } = useStack({
    config: { PAYOUT_EXPIRY: '10m' },
    worker: { maxCachedWorkflows: 0 },
    fund: 10_000_000,
    beforeStop: async () => {
      worker?.shutdown();
      await running;
    },
  });
  let ledger: Ledger;
  /** Health reads waiting for the test's answer, oldest first. */
  const held: HeldRead[] = [];
  /** Answers `closed` to this many reads before holding them (a payout held, then re-checked). */
  let closedReads = 0;

  beforeAll(async () => {
    ledger = Ledger.on(stack.mongo);
    stack.worker.shutdown();
    await eventually(
      async () => stack.worker.getState(),
      (s) => s === 'STOPPED' || s === 'FAILED',
    );
    const reader = {
      stateOf: (): Promise<ProviderStateAnswer> => {
        if (closedReads > 0) {
          closedReads--;
          return Promise.resolve({ state: 'closed', since: null, retryAfterSeconds: 30 });
        }
        return new Promise((answer) => held.push({ answer }));
      },
    };
    const deps = await buildActivityDeps({ mongo: stack.mongo, config: stack.config });
    worker = await replacementWorker(stack, { ...deps, providerHealth: reader });
    running = worker.run();
  });

  const balance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const entriesOf = (sourceRef: string) =>
    stack.mongo
      .db!.collection<{ accountId: string; amount: number }>('ledger_entries')
      .find({ sourceRef })
      .toArray();

  it('exactly one of cancelled and sent wins; money back once, or sent once', async () => {
    let cancelledRuns = 0;
    let sentRuns = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.array(fc.constantFrom(0, 5, 40), { minLength: 4, maxLength: 4 }),
        async (s, cancels, heldFirst, gaps) => {
          held.length = 0;
          closedReads = heldFirst ? 1 : 0;
          const before = await balance();
          const reference = `race-${randomUUID()}`;
          const created = await api.post('/v1/direct/payout', {
            reference,
            customerName: 'Awa Koné',
            payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
          });
          expect(created.status).toBe(201);
          const id = created.body.id as string;
          if (heldFirst) {
            // Held by a closed provider; its next check (30 s on) is the read the scheduler holds.
            await eventually(
              async () => closedReads,
              (n) => n === 0,
            );
            await stack.env.sleep(31_000);
          }
          // The workflow is at its decision: the health read that lets it send is waiting.
          const read = (await eventually(
            async () => held[0],
            (h) => h !== undefined,
          ))!;

          let gap = 0;
          const pause = () => new Promise((r) => setTimeout(r, gaps[gap++ % gaps.length]));
          // A cancel the scheduler lets go before the send is in the workflow's history (its Update
          // accepted) before the send: on a loaded machine an HTTP request could otherwise lose every
          // race to the in-process answer, and the "cancelled" side would never be exercised. A
          // cancel let go after the send still races it.
          let cancelsLetGo = 0;
          const workflow = stack.env.client.workflow.getHandle(
            payoutWorkflowId(merchant.merchantId, reference),
          );
          const acceptedCancels = async () =>
            ((await workflow.fetchHistory()).events ?? []).filter(
              (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
            ).length;
          const send = s.schedule(Promise.resolve('send'), 'provider operational').then(async () => {
            const before = cancelsLetGo;
            if (before > 0) await eventually(acceptedCancels, (n) => n >= before);
            read.answer({ state: 'operational', since: null, retryAfterSeconds: null });
          });
          const answers = Array.from({ length: cancels }, (_, i) =>
            s.schedule(Promise.resolve(i), `cancel ${i}`).then(() => {
              cancelsLetGo++;
              return api.post(`/v1/direct/payout/${reference}/cancel`, {});
            }),
          );
          await s.waitFor(Promise.all<unknown>([send, ...answers]), async (release) => {
            await pause();
            await release();
          });
          const got: ApiResponse<any>[] = await Promise.all(answers);

          // One decision: every cancel answered alike.
          const statuses = new Set(got.map((r) => r.status));
          expect(statuses.size).toBe(1);
          const cancelled = got[0]!.status === 200;
          if (cancelled) {
            cancelledRuns++;
            for (const r of got)
              expect(r.body).toMatchObject({ status: 'reversed', failure: { code: 'CANCELLED' } });
          } else {
            sentRuns++;
            for (const r of got) expect([r.status, r.body.code]).toEqual([409, 'PAYOUT_NOT_CANCELLABLE']);
          }
          const final = await eventually(
            () => api.get(`/v1/direct/payout/${reference}`),
            (r) => r.body.status === (cancelled ? 'reversed' : 'completed'),
          );
          expect(final.body.status).toBe(cancelled ? 'reversed' : 'completed');

          // Nothing sent if cancelled; sent once otherwise (the operator's books).
          const atOperator = stack.simulator.simulator.transactions.get(`disbursement:${id}`);
          if (cancelled) expect(atOperator).toBeUndefined();
          else expect(atOperator).toBeDefined();

          // Money: debited once, back once if cancelled, the fee taken once if sent; every movement
          // balanced, the system accounts only ever credited by this payout.
          const refs = payoutSourceRefs(id);
          const [debit, reversal, fee] = await Promise.all([
            entriesOf(refs.debit),
            entriesOf(refs.reversal),
            entriesOf(refs.fee),
          ]);
          expect(debit).toHaveLength(2);
          expect(reversal).toHaveLength(cancelled ? 2 : 0);
          expect(fee).toHaveLength(cancelled ? 0 : 2);
          for (const legs of [debit, reversal, fee]) expect(legs.reduce((a, e) => a + e.amount, 0)).toBe(0);
          const merchantAccount = (await ledger.mainAccount(merchant.merchantId, 'XOF')).id;
          const systemDelta = [...debit, ...reversal, ...fee]
            .filter((e) => e.accountId !== merchantAccount)
            .reduce((a, e) => a + e.amount, 0);
          expect(systemDelta).toBe(cancelled ? 0 : 10_100);
          expect(await balance()).toBe(before - (cancelled ? 0 : 10_100));
          const v = await ledger.verify(merchantAccount);
          expect(v.balance).toBe(v.sumOfEntries);
        },
      ),
      { numRuns: RUNS },
    );
    // Both outcomes were met, so both sides of the decision were exercised.
    expect(cancelledRuns).toBeGreaterThan(0);
    expect(sentRuns).toBeGreaterThan(0);
  }, 240_000);
});
