import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../src/infra/tools';
import { Ledger } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';
import { createTestMerchant } from '../helpers/merchants';
import type { TestStack } from '../helpers/stack';
import { isFinal, isFlagged } from './books';
import { createPayin, createPayout, createRefund, type CreationContext } from './create';
import { FaultEnvironment } from './environment';
import { diagnose } from './diagnose';
import { settled } from './settle';
import { evaluate, type RunState } from './evaluate';
import { Http } from './http';
import { installPawapayFaults, livePartyOf, PawapayIndex } from './pawapay/rules';
import { PawapayWorld } from './pawapay/world';
import { anchorOf, describeSchedule, drawKillGaps, drawPlans, faultLabels, type Plan } from './schedule';

// The fault suite in LIVE mode through the pawaPay connector (issue 18): the same drawn schedules as
// test/faults/faults.test.ts, but a merchant's live keys, OPERATOR_ROUTES={"*":"pawapay"}, and the
// pawaPay fake (its own process) behind two fault proxies: requests dropped, answers lost or late
// (past OPERATOR_TIMEOUT), 5xx and 429, refusals, status reads rewritten to PROCESSING past our
// deadline or to NOT_FOUND, callbacks duplicated (replays), late, dropped; numbers pawaPay keeps in
// flight, settled by it before or after our deadline; the worker SIGKILLed meanwhile. At the end,
// per transaction, our ledger must have moved exactly what pawaPay's own status API says
// (COMPLETED: once; FAILED or NOT_FOUND: nothing, or reversed; still in flight: not final-success
// and not reversed, or flagged), every balance the sum of its entries.
// Opt-in with the other fault suite (FAULT_TRANSACTIONS set); its own size PAWAPAY_FAULT_TRANSACTIONS.

const ITEMS = Number(process.env.PAWAPAY_FAULT_TRANSACTIONS ?? 30);
const SEED = Number(process.env.FAULT_SEED ?? 20_261_123);
const KILLS = Number(process.env.PAWAPAY_FAULT_KILLS ?? 2);
const CONCURRENCY = 8;
const BUDGET_MS = Number(process.env.PAWAPAY_FAULT_BUDGET_MS ?? 120_000 + ITEMS * 1_000);
/**
 * With everything final or flagged but divergences left, how long nothing may change before they
 * count (after ops' resend of pawaPay's callback for the flagged ones, see below).
 */
const SETTLE_MS = Number(process.env.PAWAPAY_FAULT_SETTLE_MS ?? 20_000);
const timings = {
  OPERATOR_TIMEOUT: '1s',
  PAYIN_EXPIRY: '20s',
  PAYOUT_EXPIRY: '30s',
  PAYIN_PARTNER_CHECK_INTERVAL: '3s',
  PAYIN_CORRECTION_WINDOW: '5m',
};
/** Our deadline per kind (a refund's is 48 h: its windows are "a while", as in faults.test.ts). */
const deadlineMs = (p: Plan) => (p.kind === 'payout' ? 30_000 : p.kind === 'refund' ? 10_000 : 20_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const enabled = process.env.FAULT_TRANSACTIONS !== undefined;
(enabled ? describe : describe.skip)(`pawaPay faults (live mode): ${ITEMS} items, seed ${SEED}`, () => {
  const world = new PawapayWorld();
  const env = new FaultEnvironment(timings, world);
  let startedAt = Date.now();
  const progress = (what: string) =>
    process.stderr.write(`pawapay faults +${Math.round((Date.now() - startedAt) / 1000)}s: ${what}\n`);

  beforeAll(() => env.start(), 180_000);
  afterAll(async () => {
    await env.stop();
    await world.stop();
  }, 120_000);

  it(
    'moves exactly the money pawaPay moved, whatever the faults',
    async () => {
      startedAt = Date.now();
      const budgetEnd = startedAt + BUDGET_MS;
      const { mongo, worker } = env;
      // Live payins are direct (no checkout session here), without OTP (see rules.ts).
      const plans = drawPlans(ITEMS, SEED).map((p) =>
        p.kind === 'payin' && p.flow === 'session'
          ? { ...p, flow: 'direct' as const, reference: p.reference.replace('-session', '-direct') }
          : p,
      );
      for (const r of plans)
        if (r.kind === 'refund')
          r.payin = plans.find((p) => p.reference === r.payin.reference) as typeof r.payin;
      const partyOf = livePartyOf(plans);
      const index = new PawapayIndex(plans);
      installPawapayFaults(
        plans,
        index,
        { provider: world.providerProxy, callbacks: world.callbackProxy },
        deadlineMs,
        partyOf,
      );

      const merchant = await createTestMerchant({ mongo } as TestStack, 'pawaPay fault suite merchant');
      const api = new Http(env.apiUrl, merchant.live.credentials);
      // Live mode has no sandbox funding: a payin through pawaPay funds the payouts and refunds.
      await api.create(
        '/v1/direct/payin',
        {
          reference: 'pawapay-faults-funding',
          customerName: 'Awa Koné',
          payin: { amount: 1_000_000, msisdn: '+2250599999001', provider: 'MTN', country: 'CI' },
          action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
        },
        budgetEnd,
      );
      for (let funded = ''; funded !== 'success'; await sleep(500)) {
        funded = String((await api.request('GET', '/v1/payin/pawapay-faults-funding')).body.status);
        if (funded === 'failed' || funded === 'expired' || Date.now() > budgetEnd)
          throw new Error(`the funding payin ended ${funded}`);
      }
      progress('live balance funded through pawaPay');

      // Worker kills, from the first creation on (gaps drawn from the seed).
      let killing = true;
      const chaos = (async () => {
        for (const gap of drawKillGaps(KILLS, SEED)) {
          for (let waited = 0; waited < gap && killing; waited += 500) await sleep(500);
          if (!killing || Date.now() > budgetEnd - 60_000) break;
          await worker.kill();
          progress(`worker killed (${worker.kills}/${KILLS})`);
          await sleep(1_000);
          await worker.start();
        }
      })();

      // pawaPay's own moves: payments in flight it settles around or after our deadline (counted
      // from the first status read, see anchorOf), and the refunds planned to fail.
      const moves: string[] = [];
      let movesPending = 0;
      const move = (p: Plan, what: () => Promise<string>) => {
        movesPending++;
        what()
          .then((m) => moves.push(`${p.reference}: ${m}`))
          .catch((err: unknown) => moves.push(`${p.reference}: error ${String(err)}`))
          .finally(() => movesPending--);
      };
      const afterDeadline = async (p: Plan, ms: number) => {
        for (;;) {
          const anchor = anchorOf(p);
          if ((anchor !== null && Date.now() >= anchor + deadlineMs(p) + ms) || Date.now() > budgetEnd)
            return;
          await sleep(500);
        }
      };
      const scheduleMoves = (p: Plan) => {
        if (p.kind === 'payin' && p.lateApprovalMs !== null) {
          const ms = p.lateApprovalMs;
          move(p, () => afterDeadline(p, ms).then(() => world.settle(p, 'COMPLETED')));
        }
        if (p.kind === 'payout' && p.lateSettle) {
          const { afterDeadlineMs, outcome } = p.lateSettle;
          move(p, () =>
            afterDeadline(p, afterDeadlineMs).then(() =>
              outcome === 'completed'
                ? world.settle(p, 'COMPLETED')
                : world.settle(p, 'FAILED', 'RECIPIENT_NOT_FOUND'),
            ),
          );
        }
        // A refund planned to fail: its carrier's deposit is completed at once, the refund (kept in
        // flight by the carrier's number) fails a few seconds after pawaPay took it.
        if (
          p.kind === 'payin' &&
          p.carrier &&
          plans.some((r) => r.kind === 'refund' && r.payin === p && r.scenario === 'failed')
        )
          move(p, async () =>
            (await world.inFlight(p, budgetEnd)) ? world.settle(p, 'COMPLETED') : 'carrier not in flight',
          );
        if (p.kind === 'refund' && p.scenario === 'failed')
          move(p, async () => {
            if (!(await world.inFlight(p, budgetEnd))) return 'refund not in flight';
            await sleep(3_000);
            return world.settle(p, 'FAILED', 'RECIPIENT_NOT_FOUND');
          });
      };

      const createErrors = new Map<Plan, string>();
      const withoutCarrier = new Map<Plan, string>();
      const context: CreationContext = { http: api, budgetEnd, index, withoutCarrier, live: partyOf };
      const create = async (p: Plan): Promise<void> => {
        try {
          if (p.kind === 'payin') await createPayin(context, p);
          else if (p.kind === 'payout') await createPayout(context, p);
          else await createRefund(context, p);
          if (p.id) index.learn(p, p.id);
          scheduleMoves(p);
        } catch (err) {
          createErrors.set(p, String(err instanceof Error ? err.message : err));
        }
      };
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < plans.length) {
            const p = plans[next++]!;
            if (p.kind === 'refund') continue; // right after its carrier
            await create(p);
            const refund = plans.find((r) => r.kind === 'refund' && r.payin === p);
            if (refund) await create(refund);
          }
        }),
      );
      const created = plans.filter((p) => p.id !== null).length;
      progress(
        `${created}/${plans.length} created (${createErrors.size} not accepted), ${worker.kills} kills`,
      );

      // Until every transaction is final or flagged, pawaPay's moves and the pending windows are
      // past, and nothing changed for SETTLE_MS (or the budget is spent).
      const windowsEnd = () =>
        Math.max(
          0,
          ...plans.map((p) => {
            const w = p.schedule.reads;
            const anchor = anchorOf(p);
            return w && !('fault' in w) && anchor !== null ? anchor + deadlineMs(p) + w.afterDeadlineMs : 0;
          }),
        );
      const run: RunState = {
        mongo,
        models: ledgerModels(mongo),
        simulator: env.simulator,
        api,
        plans,
        startedAt,
        concurrency: CONCURRENCY,
        createErrors,
        withoutCarrier,
        books: world.books(plans),
      };
      // Past our deadline a flagged transaction is re-read 1, 2, 4... minutes apart (ask-operator.ts),
      // or when a callback wakes it. Once the windows are over, ops resend pawaPay's callback of each
      // flagged transaction whose books disagree (once): its workflow reads the status again.
      const resent = new Map<string, string>();
      let report = await evaluate(run);
      let fingerprint = '';
      let stableSince = Date.now();
      for (let round = 0; ; round++) {
        if (round > 0) {
          await sleep(3_000);
          report = await evaluate(run);
        }
        const fp = JSON.stringify(
          report.rows.map((r) => [
            r.ours.status,
            r.ours.credit,
            r.ours.debit,
            r.ours.reversal,
            r.operator.status,
          ]),
        );
        if (fp !== fingerprint) [fingerprint, stableSince] = [fp, Date.now()];
        const open = report.rows.filter(
          (r) => r.ours.id !== null && !isFinal(r.plan.kind, r.ours.status) && !isFlagged(r.ours),
        );
        const quiet = movesPending === 0 && Date.now() > windowsEnd();
        const flaggedDivergent = report.rows.filter(
          (r) =>
            quiet &&
            isFlagged(r.ours) &&
            !resent.has(r.plan.reference) &&
            report.divergences.some((d) => d.reference === r.plan.reference),
        );
        if (flaggedDivergent.length > 0) {
          for (const r of flaggedDivergent)
            resent.set(
              r.plan.reference,
              String((await world.resendCallback(r.plan)) ?? 'unknown to pawaPay'),
            );
          progress(`callbacks resent for ${flaggedDivergent.length} flagged transactions`);
          stableSince = Date.now();
          continue;
        }
        if (
          settled({
            round,
            quiet,
            open,
            divergences: report.divergences.length,
            stableSince,
            settleMs: SETTLE_MS,
            budgetEnd,
            toCome: `${movesPending} pawaPay moves to come`,
            progress,
          })
        )
          break;
      }
      killing = false;
      await chaos.catch(() => undefined);

      // A cancel fault means something on payouts only (pawaPay cancels nothing else).
      const faulted = plans.filter(
        (p) => faultLabels(p).filter((l) => p.kind === 'payout' || !l.startsWith('cancel:')).length > 0,
      ).length;
      const applied = (log: ReadonlyArray<{ fault: string | null }>) => {
        const m: Record<string, number> = {};
        for (const e of log) if (e.fault) m[e.fault] = (m[e.fault] ?? 0) + 1;
        return m;
      };
      const figures = {
        seed: SEED,
        seconds: Math.round((Date.now() - startedAt) / 1000),
        items: ITEMS,
        transactions: plans.length,
        created,
        byKind: Object.fromEntries(
          ['payin', 'payout', 'refund'].map((k) => [k, plans.filter((p) => p.kind === k).length]),
        ),
        faulted,
        workerKills: worker.kills,
        appliedOnProviderPath: applied(world.providerProxy.log),
        appliedOnCallbackPath: applied(world.callbackProxy.log),
        requestsSeen: { provider: world.providerProxy.log.length, callbacks: world.callbackProxy.log.length },
        pawapayMoves: moves,
        callbacksResentForFlagged: Object.fromEntries(resent),
        pawapayStatuses: Object.fromEntries(
          ['completed', 'failed', 'pending', 'unknown'].map((s) => [
            s,
            report.rows.filter((r) => r.operator.status === s).length,
          ]),
        ),
        flagged: report.rows.filter((r) => isFlagged(r.ours)).length,
        divergences: report.divergences.length,
        api5xx: api.serverErrors,
      };
      process.stderr.write(
        [
          `pawapay fault suite: ${ITEMS} items (${plans.length} transactions), ${faulted} faulted, ` +
            `${worker.kills} worker kills, ${report.divergences.length} divergences`,
          JSON.stringify(figures, null, 2),
          ...(await Promise.all(
            report.divergences.map(
              async (d) =>
                `DIVERGENCE ${d.kind} ${d.reference} ${d.id ?? '(no id)'}: ${d.what}\n  schedule: ${d.schedule}\n` +
                `  ours: ${JSON.stringify(d.ours)}\n  pawaPay: ${JSON.stringify(d.operator)}\n` +
                (await diagnose(d, { mongo: env.mongo, temporal: env.temporal, logFiles: env.logFiles })),
            ),
          )),
        ].join('\n') + '\n',
      );
      const out = join(repoRoot, 'bench-results');
      mkdirSync(out, { recursive: true });
      writeFileSync(
        join(out, `pawapay-faults-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
        JSON.stringify(
          {
            figures,
            divergences: report.divergences,
            proxyLogs: { provider: world.providerProxy.log, callbacks: world.callbackProxy.log },
            transactions: report.rows.map((r) => ({
              kind: r.plan.kind,
              reference: r.plan.reference,
              scenario: r.plan.scenario,
              schedule: describeSchedule(r.plan),
              ours: r.ours,
              pawapay: r.operator,
            })),
          },
          null,
          2,
        ),
      );

      // The ledger's own invariants, then every transaction's books against pawaPay's.
      const ledger = Ledger.on(mongo);
      const unsound: string[] = [];
      let sumAll = 0;
      for (const account of await run.models.accounts.find({}).lean().exec()) {
        const v = await ledger.verify(account.id);
        if (v.balance !== v.sumOfEntries)
          unsound.push(`${account.id}: balance ${v.balance}, entries ${v.sumOfEntries}`);
        if (account.kind !== 'system' && v.balance < 0) unsound.push(`${account.id}: negative ${v.balance}`);
        sumAll += v.balance;
      }
      expect(unsound).toEqual([]);
      expect(sumAll).toBe(0);
      expect(report.divergences.map((d) => `${d.kind} ${d.reference} ${d.id ?? ''}: ${d.what}`)).toEqual([]);
    },
    BUDGET_MS + 240_000,
  );
});
