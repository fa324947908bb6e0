import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { eventually, type ApiResponse } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';
import { refundSourceRefs } from '../../src/ledger/postings';
import { RefundStore } from '../../src/persistence/refunds';
import { modeOfScope } from '../../src/domain/modes';

// Issue 28, the refund desk: two or three refund requests on one payin, interleaved as fast-check's
// scheduler decides, over the real stack (HTTP API, refund desk and refund workflows on the
// time-skipping server, FerretDB, the operator simulator). Some ask the remainder, some the operator
// refuses (then reversed: the amount is free again), some are sent twice with the same key. After
// each run, once every refund reached its end: money is conserved (each account holds the sum of its
// entries; the merchant lost exactly the completed refunds), what the payin's refunds hold never
// went above the payin (read in the order of the merchant account's entries), and each refund was
// debited, reversed and paid by the operator at most once.

const PAYIN = 1_000;
const RUNS = 8;

interface Ask {
  /** null: the whole remainder. */
  amount: number | null;
  /** The operator's answer to this refund: `failed` reverses it. */
  scenario: 'completed' | 'failed';
  /** Also sent a second time with the same idempotency key (a client's retry). */
  retried: boolean;
}

const ask: fc.Arbitrary<Ask> = fc.record({
  amount: fc.constantFrom(null, 300, 600, 1_000),
  scenario: fc.constantFrom('completed' as const, 'completed' as const, 'failed' as const),
  retried: fc.boolean(),
});

const refusals = ['INVALID_AMOUNT', 'REFUND_NOT_ALLOWED', 'DUPLICATE_REFUND', 'INSUFFICIENT_BALANCE'];

describe('refund desk under interleaved requests (fast-check scheduler, real stack)', () => {
  const { stack, merchant, api } = useStack({ fund: 100_000 });

  async function successfulPayin(): Promise<{ reference: string; id: string }> {
    const reference = `rdi-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'completed',
      customerName: 'Awa Koné',
      payin: { amount: PAYIN, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    const done = await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    return { reference, id: String(done.body.id) };
  }

  /**
   * As a client does: a 503 (DECISION_PENDING) or a 409 REQUEST_IN_PROGRESS (its twin still runs) is
   * asked again with the same key until decided.
   */
  async function refund(
    payin: string,
    body: Record<string, unknown>,
    key: string,
  ): Promise<ApiResponse<any>> {
    for (let attempt = 0; ; attempt++) {
      const r = await api.post(
        `/v1/payin/${payin}/refund`,
        { reason: 'returned', ...body },
        { 'x-idempotency-key': key },
      );
      const again = r.status === 503 || (r.status === 409 && r.body?.code === 'REQUEST_IN_PROGRESS');
      if (!again || attempt >= 40) return r;
      await new Promise((res) => setTimeout(res, 500));
    }
  }

  it('money conserved, refunds never above the payin, each refund paid at most once', async () => {
    const ledger = Ledger.on(stack.mongo);
    const refunds = RefundStore.on(stack.mongo);
    const main = (await ledger.mainAccount(merchant.merchantId, 'XOF')).id;
    let schedules = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(ask, { minLength: 2, maxLength: 3 }), async (s, asks) => {
        schedules++;
        const payin = await successfulPayin();
        const before = (await ledger.verify(main)).balance;
        // Each request (and its retry) is sent when the scheduler says; they overlap at the desk.
        const sends = asks.flatMap((a, i) => {
          const key = randomUUID();
          const body = {
            externalReference: `rdi-${i}`,
            ...(a.amount !== null ? { amount: a.amount } : {}),
            sandboxScenario: a.scenario,
          };
          const send = (label: string) =>
            s.schedule(Promise.resolve(), label).then(() => refund(payin.reference, body, key));
          return (a.retried ? [send(`ask ${i}`), send(`ask ${i} again`)] : [send(`ask ${i}`)]).map((p) =>
            p.then((answer) => ({ i, answer })),
          );
        });
        const answers = await s.waitFor(Promise.all(sends));

        // Every answer is a decision: a refund, or a refusal the merchant can read; never a 5xx.
        for (const { answer } of answers) {
          if (answer.status === 201 || answer.status === 200) continue;
          expect({ status: answer.status, code: answer.body?.code }).toEqual({
            status: expect.any(Number),
            code: expect.stringMatching(new RegExp(`^(${refusals.join('|')})$`)),
          });
          expect(answer.status).toBeLessThan(500);
        }
        // A request and its retry are one refund.
        const accepted = new Map<number, string>();
        for (const { i, answer } of answers) {
          if (answer.status !== 201 && answer.status !== 200) continue;
          const reference = String(answer.body.reference);
          expect(accepted.get(i) ?? reference).toBe(reference);
          accepted.set(i, reference);
        }

        // Every accepted refund reaches its end (the operator completes it, or refuses and it is reversed).
        const stored = await eventually(
          () => refunds.searchOfPayin(merchant.merchantId, payin.id),
          (all) =>
            all.length === accepted.size && all.every((r) => ['completed', 'reversed'].includes(r.status)),
          30_000,
        );
        expect(stored.map((r) => r.id).sort()).toEqual([...accepted.values()].sort());
        for (const r of stored)
          expect(r.status).toBe(
            asks[Number(r.externalReference.slice(4))]!.scenario === 'failed' ? 'reversed' : 'completed',
          );
        const completed = stored.filter((r) => r.status === 'completed');
        expect(completed.reduce((sum, r) => sum + r.amount, 0)).toBeLessThanOrEqual(PAYIN);

        // The merchant account's entries of these refunds, in chain order: each debited and reversed at
        // most once, and what they hold at any point never above the payin.
        const refs = stored.flatMap((r) => [refundSourceRefs(r.id).debit, refundSourceRefs(r.id).reversal]);
        const entries = (await ledger.entriesOf(refs))
          .filter((e) => e.accountId === main)
          .sort((a, b) => a.seq - b.seq);
        const seen = new Set<string>();
        let held = 0;
        for (const e of entries) {
          expect(seen.has(e.sourceRef)).toBe(false);
          seen.add(e.sourceRef);
          const r = stored.find((x) => e.sourceRef.startsWith(`${x.id}:`))!;
          held += (e.sourceRef.endsWith(':refund-debit') ? 1 : -1) * r.amount;
          expect(held).toBeLessThanOrEqual(PAYIN);
        }
        for (const r of stored) {
          expect(seen.has(refundSourceRefs(r.id).debit)).toBe(true);
          expect(seen.has(refundSourceRefs(r.id).reversal)).toBe(r.status === 'reversed');
        }
        // The operator holds one refund per id, and paid the customer only the completed ones.
        const atOperator = [...stack.simulator.simulator.transactions.values()].filter(
          (t) => t.kind === 'refund' && stored.some((r) => r.id === t.id),
        );
        expect(
          atOperator
            .filter((t) => t.outcome === 'completed')
            .map((t) => t.id)
            .sort(),
        ).toEqual(completed.map((r) => r.id).sort());

        // Money conserved: the merchant lost exactly the completed refunds (and their fees), and
        // each account touched holds the sum of its entries.
        const spent: number = entries.reduce((sum: number, e) => sum + e.amount, 0);
        expect(spent + completed.reduce((sum, r) => sum + r.amount + r.fee, 0)).toBe(0);
        expect((await ledger.verify(main)).balance).toBe(before + spent);
        for (const account of [
          main,
          (await ledger.systemAccount('operator-clearing', 'XOF', modeOfScope(merchant.merchantId))).id,
          (await ledger.systemAccount('fees', 'XOF', modeOfScope(merchant.merchantId))).id,
        ]) {
          const v = await ledger.verify(account);
          expect(v.balance).toBe(v.sumOfEntries);
        }
      }),
      { numRuns: RUNS },
    );
    console.log(`refund desk interleavings: ${schedules} schedules`);
    expect(schedules).toBeGreaterThanOrEqual(RUNS);
  }, 240_000);
});
