import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../src/infra/tools';
import { Ledger } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';
import type { FaultProxy } from '../helpers/fault-proxy';
import { FaultEnvironment } from './environment';
import { Http } from './http';
import { settleAtOperator } from './operator-books';
import { reconcile } from './reconcile';
import { evaluate } from './evaluate';
import { diagnose } from './diagnose';
import { settled } from './settle';
import { createPayin, createPayout, createRefund } from './create';
import { createTestMerchant } from '../helpers/merchants';
import type { TestStack } from '../helpers/stack';
import { isFinal, isFlagged } from './books';
import {
  describeSchedule,
  drawKillGaps,
  drawPlans,
  anchorOf,
  faultLabels,
  installFaults,
  PlanIndex,
  type Plan,
} from './schedule';

// The fault suite (issue 15): a fault proxy between the worker's operator gateway and the operator
// simulator, and another between the simulator's callbacks and the API, inject a schedule of faults
// into every transaction (drawn by fast-check from a fixed seed): requests dropped, answers lost or
// late, `pending` reported after completion across our deadline, 404 on status reads after
// acceptance, 5xx and 429, 4xx refusals, callbacks duplicated, late and out of order, cancellations
// unanswered; the operator itself approves or settles some pending ones after our deadline; the
// worker is killed (SIGKILL) and restarted meanwhile. At the end, for every transaction, the money
// our ledger moved must be what the operator's books say it moved, every transaction final or
// flagged for ops, every balance the sum of its entries, all accounts summing to zero.
// Opt-in, like the chaos suite: `npm run test:faults` (FAULT_TRANSACTIONS, default 500), and the
// short version `FAULT_TRANSACTIONS=60 npm run test:faults`. Real Temporal dev server, real time.
// Its world, schedule, creations, operator books and reconciliation are modules of test/faults/.

const ITEMS = Number(process.env.FAULT_TRANSACTIONS ?? 60);
const SEED = Number(process.env.FAULT_SEED ?? 20_261_123);
const KILLS = Number(process.env.FAULT_KILLS ?? Math.max(2, Math.round(ITEMS / 40)));
const CONCURRENCY = Number(process.env.FAULT_CONCURRENCY ?? 8);
/** The whole run, creations and waits; past it, whatever is not final is reported, not waited for. */
const BUDGET_MS = Number(process.env.FAULT_BUDGET_MS ?? 150_000 + ITEMS * 1_500);
/** With everything final or flagged, how long nothing may change before the books are compared. */
const SETTLE_MS = Number(process.env.FAULT_SETTLE_MS ?? 30_000);
const FUNDING = 500_000_000;
const timings = {
  OPERATOR_TIMEOUT: '1s',
  PAYIN_EXPIRY: '20s',
  PAYOUT_EXPIRY: '30s',
  PAYIN_PARTNER_CHECK_INTERVAL: '3s',
  PAYIN_CORRECTION_WINDOW: '5m',
};
/**
 * Our deadline per kind, from which pending windows and late operator moves are placed. A refund's
 * is 48 h and not configurable: its windows are only "a while" (10 s from its first read, plus the
 * window's own length), short enough for the refund's reads (5, 10, 20 s apart) to see the end.
 */
const deadlineMs = (p: Plan) => (p.kind === 'payout' ? 30_000 : p.kind === 'refund' ? 10_000 : 20_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const enabled = process.env.FAULT_TRANSACTIONS !== undefined;
(enabled ? describe : describe.skip)(
  `faults: ${ITEMS} transactions, seed ${SEED}, ${KILLS} worker kills`,
  () => {
    const env = new FaultEnvironment(timings);
    let startedAt = Date.now();
    const progress = (what: string) =>
      process.stderr.write(`faults +${Math.round((Date.now() - startedAt) / 1000)}s: ${what}\n`);

    beforeAll(() => env.start(), 180_000);
    afterAll(() => env.stop(), 120_000);

    it(
      'moves exactly the money the operator moved, whatever the faults',
      async () => {
        startedAt = Date.now();
        const budgetEnd = startedAt + BUDGET_MS;
        const { mongo, simulator, operatorProxy, callbackProxy, apiUrl, worker, workerEnv, timers } = env;
        const plans = drawPlans(ITEMS, SEED);
        const index = new PlanIndex(
          plans,
          (kind, id) => simulator.simulator.transactions.get(`${kind}:${id}`)?.amount ?? null,
        );
        installFaults(plans, index, { operator: operatorProxy, callbacks: callbackProxy }, deadlineMs);

        const merchant = await createTestMerchant({ mongo } as TestStack, 'Fault suite merchant');
        const ledger = Ledger.on(mongo);
        const main = await ledger.mainAccount(merchant.merchantId, 'XOF');
        await ledger.transfer({
          sourceRef: `fund:${randomUUID()}`,
          fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
          toAccountId: main.id,
          amount: FUNDING,
          reason: 'fault suite funding',
        });
        const api = new Http(apiUrl, merchant.credentials);
        const models = ledgerModels(mongo);

        // Worker kills, spread from the first creation on (gaps drawn from the seed).
        const gaps = drawKillGaps(KILLS, SEED);
        let killing = true;
        const chaos = (async () => {
          for (const gap of gaps) {
            for (let waited = 0; waited < gap && killing; waited += 500) await sleep(500);
            if (!killing || Date.now() > budgetEnd - 60_000) break;
            await worker.kill();
            progress(`worker killed (${worker.kills}/${KILLS})`);
            await sleep(1_000);
            await worker.start();
          }
        })();

        // Late moves of the operator itself: a customer approving, an operator settling, around or
        // after our deadline (counted from its first status read, see anchorOf).
        let lateMovesPending = 0;
        const lateMoves: string[] = [];
        const later = (p: Plan, afterDeadlineMs: number, fn: () => Promise<string>) => {
          lateMovesPending++;
          const tick = () => {
            const anchor = anchorOf(p);
            if (anchor === null || Date.now() < anchor + deadlineMs(p) + afterDeadlineMs) {
              const t = setTimeout(() => {
                timers.delete(t);
                tick();
              }, 500);
              timers.add(t);
              return;
            }
            fn()
              .then((what) => lateMoves.push(`${p.reference}: ${what}`))
              .catch((err: unknown) => lateMoves.push(`${p.reference}: error ${String(err)}`))
              .finally(() => lateMovesPending--);
          };
          tick();
        };
        const scheduleLateMove = (p: Plan) => {
          if (p.kind === 'payin' && p.lateApprovalMs !== null)
            later(p, p.lateApprovalMs, () => settleAtOperator(simulator, p, 'completed'));
          if (p.kind === 'payout' && p.lateSettle) {
            const { afterDeadlineMs, outcome } = p.lateSettle;
            later(p, afterDeadlineMs, () => settleAtOperator(simulator, p, outcome));
          }
        };

        const createErrors = new Map<Plan, string>();
        // Refunds whose carrier payin ended without success, its books agreeing with the operator's
        // (e.g. expired at its deadline, the operator's cancellation confirmed, after a worker kill
        // held it): nothing to refund, so nothing to compare. The carrier itself is still compared.
        const withoutCarrier = new Map<Plan, string>();
        const create = async (p: Plan): Promise<void> => {
          try {
            const context = { http: api, budgetEnd, index, withoutCarrier };
            if (p.kind === 'payin') await createPayin(context, p);
            else if (p.kind === 'payout') await createPayout(context, p);
            else await createRefund(context, p);
            if (p.id) index.learn(p, p.id);
            scheduleLateMove(p);
          } catch (err) {
            createErrors.set(p, String(err instanceof Error ? err.message : err));
          }
        };

        // Creations: carriers first in each refund item, so a refund waits only for its own payin.
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < plans.length) {
              const p = plans[next++]!;
              if (p.kind === 'refund') continue; // created right after its carrier below
              await create(p);
              const refund = plans.find((r) => r.kind === 'refund' && r.payin === p);
              if (refund) await create(refund);
            }
          }),
        );
        const created = plans.filter((p) => p.id !== null).length;
        progress(
          `${created}/${plans.length} created (${createErrors.size} not accepted); ${worker.kills} kills so far`,
        );

        // Wait until every transaction is final or flagged, every late move and pending window is past,
        // and nothing changed for SETTLE_MS; or until the budget is spent (then report what is open).
        const windowsEnd = () =>
          Math.max(
            0,
            ...plans.map((p) => {
              const w = p.schedule.reads;
              const anchor = anchorOf(p);
              return w && !('fault' in w) && anchor !== null ? anchor + deadlineMs(p) + w.afterDeadlineMs : 0;
            }),
          );
        const run = {
          mongo,
          models,
          simulator,
          api,
          plans,
          startedAt,
          concurrency: CONCURRENCY,
          createErrors,
          withoutCarrier,
        };
        let report: Awaited<ReturnType<typeof evaluate>>;
        let fingerprint = '';
        let stableSince = Date.now();
        for (let round = 0; ; round++) {
          report = await evaluate(run);
          const fp = JSON.stringify(
            report.rows.map((r) => [
              r.ours.status,
              r.ours.credit?.applied,
              r.ours.debit?.applied,
              r.ours.reversal?.applied,
              r.operator.status,
              isFlagged(r.ours),
            ]),
          );
          if (fp !== fingerprint) {
            fingerprint = fp;
            stableSince = Date.now();
          }
          const open = report.rows.filter(
            (r) => !isFinal(r.plan.kind, r.ours.status) && !isFlagged(r.ours) && r.ours.id !== null,
          );
          const quiet = lateMovesPending === 0 && Date.now() > windowsEnd();
          if (
            settled({
              round,
              quiet,
              open,
              divergences: report.divergences.length,
              stableSince,
              settleMs: SETTLE_MS,
              budgetEnd,
              toCome: `${lateMovesPending} late operator moves to come`,
              progress,
            })
          )
            break;
          await sleep(3_000);
        }
        // No kill after the comparison: what was compared is what the run ends with.
        killing = false;
        await chaos.catch(() => undefined);
        if (!worker.running) await worker.start();
        const beforeReconciliation = report.divergences;

        // Reconciliation against the operator's statements, once the tree has it.
        const reconciliation = await reconcile(workerEnv, simulator.url, startedAt);
        if (reconciliation.available) report = await evaluate(run);

        // Figures.
        const byKind = (k: string) =>
          plans.filter((p) =>
            k === 'carrier'
              ? p.kind === 'payin' && p.carrier
              : k === 'session'
                ? p.kind === 'payin' && p.flow === 'session'
                : k === 'direct'
                  ? p.kind === 'payin' && p.flow === 'direct' && !p.carrier
                  : p.kind === k,
          ).length;
        const scheduled = new Map<string, number>();
        for (const p of plans) for (const l of faultLabels(p)) scheduled.set(l, (scheduled.get(l) ?? 0) + 1);
        const applied = (proxy: FaultProxy) => {
          const m = new Map<string, number>();
          for (const e of proxy.log) if (e.fault) m.set(e.fault, (m.get(e.fault) ?? 0) + 1);
          return Object.fromEntries([...m].sort());
        };
        const classes = new Map<string, number>();
        for (const d of report.divergences) {
          const c = d.what.replace(/\(.*\)|: .*/, '').trim();
          classes.set(c, (classes.get(c) ?? 0) + 1);
        }
        const figures = {
          seed: SEED,
          seconds: Math.round((Date.now() - startedAt) / 1000),
          transactions: {
            total: plans.length,
            created,
            payinsDirect: byKind('direct'),
            payinsSession: byKind('session'),
            payinsCarryingRefunds: byKind('carrier'),
            payouts: byKind('payout'),
            refunds: byKind('refund'),
          },
          workerKills: worker.kills,
          faultSchedules: {
            transactionsWithFaults: plans.filter((p) => faultLabels(p).length > 0).length,
            scheduled: Object.fromEntries([...scheduled].sort()),
            appliedOnOperatorPath: applied(operatorProxy),
            appliedOnCallbackPath: applied(callbackProxy),
            requestsSeen: { operator: operatorProxy.log.length, callbacks: callbackProxy.log.length },
          },
          lateOperatorMoves: lateMoves,
          flagged: report.rows.filter((r) => isFlagged(r.ours)).length,
          notFinal: report.rows.filter(
            (r) => !withoutCarrier.has(r.plan) && !isFinal(r.plan.kind, r.ours.status),
          ).length,
          refundsWithoutCarrier: [...withoutCarrier].map(([p, status]) => `${p.reference}: payin ${status}`),
          divergencesBeforeReconciliation: beforeReconciliation.length,
          divergences: report.divergences.length,
          divergenceClasses: Object.fromEntries([...classes].sort()),
          reconciliation,
          api5xx: api.serverErrors,
          operatorView: report.source,
        };
        const diagnosis = { mongo, temporal: env.temporal, logFiles: env.logFiles };
        const text = [
          `fault suite: ${JSON.stringify(figures, null, 2)}`,
          ...(await Promise.all(
            report.divergences.map(
              async (d) =>
                `DIVERGENCE ${d.kind} ${d.reference} ${d.id ?? '(no id)'}: ${d.what}\n` +
                `  schedule: ${d.schedule}\n  ours: ${JSON.stringify(d.ours)}\n  operator: ${JSON.stringify(d.operator)}\n` +
                (await diagnose(d, diagnosis)),
            ),
          )),
        ].join('\n');
        process.stderr.write(`${text}\n`);
        const out = join(repoRoot, 'bench-results');
        mkdirSync(out, { recursive: true });
        writeFileSync(
          join(out, `faults-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
          JSON.stringify(
            {
              figures,
              divergences: report.divergences,
              beforeReconciliation,
              proxyLogs: { operator: operatorProxy.log, callbacks: callbackProxy.log },
              transactions: report.rows.map((r) => ({
                kind: r.plan.kind,
                reference: r.plan.reference,
                scenario:
                  r.plan.kind === 'payin' || r.plan.kind === 'payout' || r.plan.kind === 'refund'
                    ? r.plan.scenario
                    : null,
                schedule: describeSchedule(r.plan),
                ours: r.ours,
                operator: r.operator,
              })),
            },
            null,
            2,
          ),
        );

        // The ledger's own invariants: each balance the sum of its entries, all summing to zero.
        let sumAll = 0;
        const unsound: string[] = [];
        for (const account of await models.accounts.find({}).lean().exec()) {
          const v = await ledger.verify(account.id);
          if (v.balance !== v.sumOfEntries)
            unsound.push(`${account.id}: balance ${v.balance}, entries ${v.sumOfEntries}`);
          if (account.kind !== 'system' && v.balance < 0)
            unsound.push(`${account.id}: negative ${v.balance}`);
          sumAll += v.balance;
        }
        expect(unsound).toEqual([]);
        expect(sumAll).toBe(0);
        expect(reconciliation.unexplained).toBe(0);
        // Every transaction: both books agree, and it is final or flagged. Listed above in full.
        expect(report.divergences.map((d) => `${d.kind} ${d.reference} ${d.id ?? ''}: ${d.what}`)).toEqual(
          [],
        );
      },
      BUDGET_MS + 240_000,
    );
  },
);
