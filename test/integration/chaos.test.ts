import { randomUUID } from 'node:crypto';
import { ApiClient } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import type { TestStack } from '../helpers/stack';
import { Ledger } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';
import { splitFee } from '../../src/domain/fees';
import { ChaosEnvironment } from '../chaos/environment';
import { PatientClient, pool } from '../chaos/client';
import { DeliveryCheck } from '../chaos/deliveries';
import {
  expectedPayinStatus,
  payinBody,
  payinOperator,
  payoutBody,
  planTransactions,
  type Planned,
} from '../chaos/plan';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';

// The reliability suite: mixed transactions in flight while the worker (a child process) is killed
// with SIGKILL at random moments and restarted, and FerretDB is killed and restarted once. Then no
// money may be lost or created, every transaction ends, every event reached the merchant signed.
// Opt-in (it takes minutes): `CHAOS_TRANSACTIONS=40 npm run test:chaos` is the short version CI
// runs, `npm run test:chaos` the long one (300).
// It runs on the real Temporal dev server in real time, not on the time-skipping test server: what
// is under test is Temporal's own recovery (a dead worker's workflow tasks leave its sticky queue,
// its activities time out and are retried elsewhere), which the test server does not reproduce.
// So the waits that matter are short here: expiry 20 s, partner checks from 3 s, operator timeout 1 s.
// The servers, the worker's supervisor and the diagnostics: test/chaos/.

const TRANSACTIONS = Number(process.env.CHAOS_TRANSACTIONS ?? 40);
const KILLS = Number(process.env.CHAOS_KILLS ?? Math.max(2, Math.round(TRANSACTIONS / 40)));
const CONCURRENCY = 8;
const FUNDING = 50_000_000;
// A killed worker's activities are retried after their start-to-close timeout (webhooks: 1 min).
const BUDGET_MS = Number(process.env.CHAOS_BUDGET_MS ?? 240_000 + TRANSACTIONS * 3_000);
const progress = (startedAt: number, what: string) =>
  process.stderr.write(`chaos +${Math.round((Date.now() - startedAt) / 1000)}s: ${what}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const enabled = process.env.CHAOS_TRANSACTIONS !== undefined;
(enabled ? describe : describe.skip)(
  `chaos: ${TRANSACTIONS} transactions, ${KILLS} worker kills, a FerretDB restart`,
  () => {
    const env = new ChaosEnvironment();
    beforeAll(() => env.start(), 120_000);
    afterAll(() => env.stop(), 120_000);

    it(
      'loses no money and ends every transaction',
      async () => {
        const started = Date.now();
        const { mongo, receiver } = env;
        const merchant = await createTestMerchant({ mongo } as TestStack, 'Chaos merchant');
        const api = new ApiClient(env.apiUrl, merchant.credentials, {}, 30_000);
        const client = new PatientClient(api, started + BUDGET_MS, () => env.storeState());
        const ledger = Ledger.on(mongo);
        const main = await ledger.mainAccount(merchant.merchantId, 'XOF');
        await ledger.transfer({
          sourceRef: `fund:${randomUUID()}`,
          fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
          toAccountId: main.id,
          amount: FUNDING,
          reason: 'chaos funding',
        });
        const hook = await client.create('/v1/webhooks', { url: `${receiver.url}/hooks` });
        const deliveries = new DeliveryCheck(receiver, hook.body.secret as string, client);

        // 80 % payins of every kind, 20 % payouts; refunds follow the completed payins.
        const planned: Planned[] = planTransactions(TRANSACTIONS);

        // The chaos: kills of the worker at random moments, and FerretDB killed once in the middle.
        let kills = 0;
        // KILLS kills, 5 to 25 s apart: through the creations and into the refunds. (Faster, the
        // worker would spend its life restarting and timing out its predecessor's tasks.)
        const chaos = (async () => {
          while (kills < KILLS && !env.tornDown) {
            await sleep(5_000 + Math.random() * 20_000);
            await env.killWorker();
            kills++;
            await sleep(200 + Math.random() * 1_500);
            await env.superviseWorker();
          }
        })();
        let ferretRestarted = false;
        // A FerretDB that does not come back fails the run at once, not at the end of the budget.
        const restartFerret = async () => {
          try {
            await env.restartFerret();
            ferretRestarted = true;
          } catch (err) {
            client.abort(new Error(`FerretDB did not restart: ${await env.storeState()}`, { cause: err }));
          }
        };

        let createdCount = 0;
        let ferretDone: Promise<void> = Promise.resolve();
        await pool(planned, CONCURRENCY, async (p) => {
          if (p.kind === 'payin') await client.create('/v1/direct/payin', payinBody(p));
          else await client.create('/v1/direct/payout', payoutBody(p));
          if (++createdCount === Math.floor(TRANSACTIONS / 2)) ferretDone = restartFerret();
        });
        await ferretDone;
        progress(started, `${TRANSACTIONS} created; ${kills} worker kills so far, FerretDB restarted`);

        // Partial refunds of completed payins once they succeed: two per payin, some failing.
        const refundable = planned.filter(
          (p): p is Extract<Planned, { kind: 'payin' }> => p.kind === 'payin' && p.variant === 'completed',
        );
        const refunds: { reference: string; payin: string; scenario: string }[] = [];
        await pool(refundable, CONCURRENCY, async (p) => {
          const ok = async () => (await client.read(`/v1/payin/${p.reference}`)).body?.status === 'success';
          while (!(await ok())) {
            if (Date.now() - started > BUDGET_MS)
              throw new Error(
                `payin ${p.reference} never succeeded: ${await env.whereStuck(`payin:${merchant.merchantId}:${p.reference}`)}`,
              );
            await sleep(1_000);
          }
          for (const [n, scenario] of [
            [1, 'completed'],
            [2, refunds.length % 3 === 0 ? 'failed' : 'completed'],
          ] as const) {
            const res = await client.create(`/v1/payin/${p.reference}/refund`, {
              amount: Math.floor(p.amount / 3),
              reason: 'chaos partial refund',
              externalReference: `${p.reference}-rf${n}`,
              sandboxScenario: scenario,
            });
            refunds.push({ reference: res.body.reference as string, payin: p.reference, scenario });
          }
        });
        progress(started, `${refunds.length} partial refunds created`);
        await chaos;
        if (env.workerDown()) await env.superviseWorker();
        expect(kills).toBeGreaterThanOrEqual(KILLS);
        expect(ferretRestarted).toBe(true);

        // Wait until every transaction is final and every event delivered: killed activities time
        // out and are retried, operator polls run, expiries and partner checks fire.
        // A failed payout or refund is reversed next (the money comes back): not final until then.
        const finalOther = (s: string) => ['completed', 'reversed'].includes(s);
        let records = new Map<string, any>();
        const unfinished = async (): Promise<string[]> => {
          records = new Map();
          for (const p of planned) {
            const path = p.kind === 'payin' ? `/v1/payin/${p.reference}` : `/v1/direct/payout/${p.reference}`;
            records.set(p.reference, (await client.read(path)).body);
          }
          for (const r of refunds)
            records.set(r.reference, (await client.read(`/v1/refunds/${r.reference}`)).body);
          const open = planned
            .filter((p) => {
              const status = records.get(p.reference)?.status as string;
              if (p.kind === 'payout') return !finalOther(status);
              // A payin whose answer came too late for its deadline (20 s here; a FerretDB restart or
              // a killed worker delays its request, whose first attempt writes `pending`) ends in the
              // operator's confirmed cancellation: `expired` is final, checked against its books below.
              if (status === 'expired') return false;
              return status !== expectedPayinStatus[p.variant];
            })
            .map((p) => `${p.reference}=${records.get(p.reference)?.status}`);
          for (const r of refunds)
            if (!finalOther(records.get(r.reference)?.status))
              open.push(`${r.reference}=${records.get(r.reference)?.status}`);
          return open;
        };
        for (let round = 0; ; round++) {
          const open = await unfinished();
          const undelivered =
            open.length === 0 ? await deliveries.undeliveredEvents() : ['(not checked yet)'];
          if (undelivered.length === 0) break;
          if (round % 10 === 0)
            progress(
              started,
              `${open.length} not final: ${open.slice(0, 8).join(', ')}; ${undelivered.length} events not delivered`,
            );
          if (Date.now() - started > BUDGET_MS)
            throw new Error(
              `not final in time: ${open.join(', ')}; not delivered: ${undelivered.slice(0, 20).join(', ')}\n${env.workerLog.join('').slice(-3000)}`,
            );
          await sleep(2_000);
        }
        progress(started, `all final, all events delivered (${kills} worker kills, FerretDB restarted)`);

        // Every answer was a success, a business answer, or a 503 while FerretDB was down: never a 500.
        expect(client.statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);

        // Outcomes as planned, and money conserved against them.
        const operator = new HttpOperatorGateway({ baseUrl: env.operatorUrl, timeoutMs: 5_000 });
        let expectedBalance = FUNDING;
        let expectedFees = 0;
        for (const p of planned) {
          const rec = records.get(p.reference);
          if (p.kind === 'payin') {
            // Expired at its deadline (see `unfinished` above): only if the operator holds it as
            // not collected, as its confirmed cancellation says.
            if (rec.status === 'expired' && expectedPayinStatus[p.variant] !== 'expired') {
              const books = await operator.collectionStatus(rec.id, payinOperator(p), 'CI');
              expect({ reference: p.reference, outcome: books.outcome }).toEqual({
                reference: p.reference,
                outcome: 'failed',
              });
              continue;
            }
            expect(rec.status).toBe(expectedPayinStatus[p.variant]);
            if (rec.status === 'success') {
              expectedBalance += splitFee('payin', rec.amount, rec.fee, rec.payFee).merchantDelta;
              expectedFees += rec.fee;
            }
          } else {
            expect(rec.status).toBe(p.variant === 'completed' ? 'completed' : 'reversed');
            if (rec.status === 'completed') {
              expectedBalance -= rec.chargedAmount;
              expectedFees += rec.fee;
            }
          }
        }
        const refundedPerPayin = new Map<string, number>();
        for (const r of refunds) {
          const rec = records.get(r.reference);
          // A refused refund gives its amount back to the merchant: failed, or reversed once returned.
          expect(r.scenario === 'completed' ? ['completed'] : ['failed', 'reversed']).toContain(rec.status);
          if (rec.status !== 'completed') continue;
          expectedBalance -= rec.amount + rec.fee;
          expectedFees += rec.fee;
          refundedPerPayin.set(r.payin, (refundedPerPayin.get(r.payin) ?? 0) + rec.amount);
        }
        // Refunds never exceed their payin.
        for (const [payin, refunded] of refundedPerPayin)
          expect(refunded).toBeLessThanOrEqual(records.get(payin).amount);

        const m = ledgerModels(mongo);
        const accounts = await m.accounts.find({}).lean().exec();
        let sumAll = 0;
        for (const account of accounts) {
          const v = await ledger.verify(account.id);
          // Each balance is the sum of its entries, seq 1..n without a gap.
          expect(v.balance).toBe(v.sumOfEntries);
          const head = await m.entries.findOne({ accountId: account.id }).sort({ seq: -1 }).lean().exec();
          expect(head?.seq ?? 0).toBe(v.entries);
          if (account.kind !== 'system') expect(v.balance).toBeGreaterThanOrEqual(0);
          sumAll += v.balance;
        }
        // Double entry: everything that moved came from somewhere in the ledger.
        expect(sumAll).toBe(0);
        expect((await ledger.verify(main.id)).balance).toBe(expectedBalance);
        const fees = await ledger.systemAccount('fees', 'XOF', 'test');
        expect((await ledger.verify(fees.id)).balance).toBe(expectedFees);
        // No entry missing or doubled: every transfer has exactly its two legs, one each.
        const transfers = await m.transfers.find({}).lean().exec();
        const legs = await m.entries.find({}, { sourceRef: 1, leg: 1 }).lean().exec();
        const legCount = new Map<string, number>();
        for (const l of legs)
          legCount.set(`${l.sourceRef}|${l.leg}`, (legCount.get(`${l.sourceRef}|${l.leg}`) ?? 0) + 1);
        expect([...legCount.values()].every((c) => c === 1)).toBe(true);
        const incomplete = transfers.filter(
          (t) => legCount.get(`${t.sourceRef}|debit`) !== 1 || legCount.get(`${t.sourceRef}|credit`) !== 1,
        );
        // A refused debit (insufficient funds) leaves an intent without legs; nothing else may.
        expect(incomplete.filter((t) => legCount.has(`${t.sourceRef}|debit`))).toEqual([]);

        // Every event reached the receiver at least once, with a valid signature (checked inside).
        expect(await deliveries.undeliveredEvents()).toEqual([]);
      },
      BUDGET_MS + 60_000,
    );
  },
);
