import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import type { Connection } from 'mongoose';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';
import { createLogger } from '../../src/infra/logger';
import { freePort, startTemporalDevServer, type LocalServer } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { Ledger } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';
import { buildApi } from '../../src/main/wiring';
import { connectMongo } from '../../src/persistence/mongo';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { basic, type Credentials } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import type { TestStack } from '../helpers/stack';
import {
  divergencesOf,
  isFinal,
  isFlagged,
  movementOf,
  type Divergence,
  type OperatorView,
  type OurView,
} from './books';
import {
  bookKindOf,
  describeSchedule,
  drawKillGaps,
  drawPlans,
  anchorOf,
  faultLabels,
  installFaults,
  operatorPathOf,
  PlanIndex,
  type BookKind,
  type PayinPlan,
  type Plan,
} from './schedule';
import { WorkerProcess } from './worker-process';

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
const operatorCodes = ['MTN', 'ORANGE', 'MOOV', 'WAVE'] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const enabled = process.env.FAULT_TRANSACTIONS !== undefined;
(enabled ? describe : describe.skip)(
  `faults: ${ITEMS} transactions, seed ${SEED}, ${KILLS} worker kills`,
  () => {
    let dir: string;
    let temporalServer: LocalServer;
    let temporalConnection: TemporalConnection;
    let mongo: Connection;
    let mongoUri: string;
    let simulator: RunningSimulator;
    let operatorProxy: FaultProxy;
    let callbackProxy: FaultProxy;
    let server: Server;
    let apiUrl: string;
    let worker: WorkerProcess;
    let workerEnv: NodeJS.ProcessEnv;
    let temporalAddress: string;
    const timers = new Set<NodeJS.Timeout>();
    let startedAt = Date.now();
    const progress = (what: string) =>
      process.stderr.write(`faults +${Math.round((Date.now() - startedAt) / 1000)}s: ${what}\n`);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'momo-faults-'));
      const temporalPort = await freePort();
      temporalServer = await startTemporalDevServer({
        dataDir: join(dir, 'temporal'),
        port: temporalPort,
        uiPort: await freePort(),
        namespace: 'default',
      });
      temporalAddress = `127.0.0.1:${temporalPort}`;
      temporalConnection = await TemporalConnection.connect({ address: temporalAddress });
      const temporal = new Client({
        connection: temporalConnection,
        namespace: 'default',
        dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
      });
      const base = process.env.TEST_MONGODB_URL;
      if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
      mongoUri = `${base}/faults_${randomBytes(4).toString('hex')}`;
      mongo = await connectMongo(mongoUri);
      const settings = {
        NODE_ENV: 'test',
        TEMPORAL_TASK_QUEUE: `faults-${randomUUID().slice(0, 8)}`,
        ...timings,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        RATE_LIMIT_PER_MINUTE: '0',
        AUTH_CACHE_TTL: '10m',
      };
      const config = configSchema.parse({ ...settings, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1' });
      simulator = await startSimulator({
        port: 0,
        callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
        slowResponseMs: 1_500,
      });
      // gateway -> operatorProxy -> simulator; simulator callbacks -> callbackProxy -> API.
      operatorProxy = await startFaultProxy({ target: simulator.url });
      config.OPERATOR_BASE_URL = operatorProxy.url;
      const app = await buildApi({ config, mongo, temporal, logger: createLogger('silent') });
      server = await new Promise<Server>((res) => {
        const s = app.listen(0, '127.0.0.1', () => res(s));
      });
      apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      callbackProxy = await startFaultProxy({ target: apiUrl });
      simulator.simulator.setCallbackBaseUrl(callbackProxy.url);
      workerEnv = {
        ...process.env,
        ...settings,
        LOG_LEVEL: 'info',
        MONGODB_URI: mongoUri,
        TEMPORAL_ADDRESS: temporalAddress,
        TEMPORAL_NAMESPACE: 'default',
        WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
        OPERATOR_BASE_URL: operatorProxy.url,
        WORKER_METRICS_PORT: '0',
      };
      worker = new WorkerProcess(workerEnv);
      await worker.start();
    }, 180_000);

    afterAll(async () => {
      for (const t of timers) clearTimeout(t);
      await worker?.stop();
      await callbackProxy?.stop();
      await operatorProxy?.stop();
      await simulator?.stop();
      server?.closeAllConnections();
      await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
      await mongo?.dropDatabase().catch(() => undefined);
      await mongo?.close();
      await temporalConnection?.close();
      await temporalServer?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it(
      'moves exactly the money the operator moved, whatever the faults',
      async () => {
        startedAt = Date.now();
        const budgetEnd = startedAt + BUDGET_MS;
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
          fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF')).id,
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
            later(p, p.lateApprovalMs, () => settleAtOperator(p, 'completed'));
          if (p.kind === 'payout' && p.lateSettle) {
            const { afterDeadlineMs, outcome } = p.lateSettle;
            later(p, afterDeadlineMs, () => settleAtOperator(p, outcome));
          }
        };

        /** The operator settles a pending transaction (the sandbox's test control; older simulators: in process). */
        async function settleAtOperator(p: Plan, outcome: 'completed' | 'failed'): Promise<string> {
          const kind = bookKindOf[operatorPathOf(p)];
          const id =
            p.id ??
            [...simulator.simulator.transactions.values()].find(
              (t) => t.kind === kind && t.amount === p.amount,
            )?.id;
          if (!id) return 'never reached the operator: nothing to settle';
          const post = (path: string, body: unknown) =>
            fetch(`${simulator.url}${path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            }).then(async (r) => ({
              status: r.status,
              body: (await r.json().catch(() => null)) as Record<string, unknown> | null,
            }));
          const res = await post(`/_sandbox/${operatorPathOf(p)}/${encodeURIComponent(id)}/settle`, {
            outcome,
          });
          if (res.status === 200) return `operator settled ${outcome}`;
          if (res.status === 409)
            return `too late to settle: ${JSON.stringify((res.body?.record as { outcome?: string })?.outcome ?? res.body)}`;
          if (res.status === 404 && res.body?.message === 'Unknown transaction')
            return 'unknown to the operator: nothing to settle';
          if (res.body?.message !== 'No such route') return `settle answered ${res.status}`;
          // A simulator without the settle control: the partner finds the funds, or the record is set in process.
          if (kind === 'collection') {
            const r = await post(`/_sandbox/collections/${encodeURIComponent(id)}/collected`, {});
            return r.status === 200
              ? 'customer approved (partner collected)'
              : `collected answered ${r.status}`;
          }
          const rec = simulator.simulator.transactions.get(`${kind}:${id}`) as unknown as
            { outcome: string; failure: unknown } | undefined;
          if (!rec || rec.outcome !== 'pending') return `too late to settle: ${rec?.outcome ?? 'unknown'}`;
          rec.outcome = outcome;
          rec.failure = outcome === 'failed' ? { code: 'PAYEE_REJECTED', message: 'Rejected late' } : null;
          return `operator settled ${outcome} (in process)`;
        }

        const createErrors = new Map<Plan, string>();
        // Refunds whose carrier payin ended without success, its books agreeing with the operator's
        // (e.g. expired at its deadline, the operator's cancellation confirmed, after a worker kill
        // held it): nothing to refund, so nothing to compare. The carrier itself is still compared.
        const withoutCarrier = new Map<Plan, string>();
        const create = async (p: Plan): Promise<void> => {
          try {
            if (p.kind === 'payin') await createPayin(api, p);
            else if (p.kind === 'payout') await createPayout(api, p);
            else await createRefund(api, p);
            if (p.id) index.learn(p, p.id);
            scheduleLateMove(p);
          } catch (err) {
            createErrors.set(p, String(err instanceof Error ? err.message : err));
          }
        };

        async function createPayin(http: Http, p: PayinPlan): Promise<void> {
          const msisdn = {
            MTN: '+2250500001001',
            ORANGE: '+2250700001001',
            MOOV: '+2250100001001',
            WAVE: '+2250100001001',
          }[p.provider];
          if (p.flow === 'direct') {
            p.startedAt = Date.now();
            const res = await http.create(
              '/v1/direct/payin',
              {
                reference: p.reference,
                sandboxScenario: p.scenario,
                customerName: 'Awa Koné',
                payin: {
                  amount: p.amount,
                  msisdn,
                  provider: p.provider,
                  country: 'CI',
                  ...(p.provider === 'ORANGE' ? { otp: '1234' } : {}),
                },
                action: {
                  successUrl: 'https://merchant.example/ok',
                  failureUrl: 'https://merchant.example/ko',
                },
              },
              budgetEnd,
            );
            p.id = res.id as string;
            return;
          }
          const session = await http.create(
            '/v1/payin/sessions',
            {
              reference: p.reference,
              sandboxScenario: p.scenario,
              amount: p.amount,
              msisdn,
              customerName: 'Awa Koné',
              country: 'CI',
              action: {
                successUrl: 'https://merchant.example/ok',
                failureUrl: 'https://merchant.example/ko',
              },
            },
            budgetEnd,
          );
          p.id = session.id as string;
          index.learn(p, p.id);
          // The customer confirms on the hosted page, from an address of its own (the page's rate limit is per address).
          p.startedAt = Date.now();
          const ip = `10.${(p.index >> 16) & 255}.${(p.index >> 8) & 255}.${p.index & 255}`;
          for (;;) {
            const res = await http
              .request(
                'POST',
                `/checkout/${p.id}/confirm`,
                { provider: 'MTN', msisdn },
                { 'x-forwarded-for': ip },
                false,
              )
              .catch(() => null);
            if (res && (res.status === 200 || res.status === 409)) return;
            if (res && ![429, 503].includes(res.status))
              throw new Error(`confirm answered ${res.status}: ${JSON.stringify(res.body)}`);
            if (Date.now() > budgetEnd)
              throw new Error(`confirm not accepted within the budget (last ${res?.status})`);
            await sleep(500);
          }
        }

        async function createPayout(http: Http, p: Extract<Plan, { kind: 'payout' }>): Promise<void> {
          p.startedAt = Date.now();
          const res = await http.create(
            '/v1/direct/payout',
            {
              reference: p.reference,
              sandboxScenario: p.scenario,
              customerName: 'Kouassi Yao',
              payout: { amount: p.amount, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
            },
            budgetEnd,
          );
          p.id = res.id as string;
        }

        async function createRefund(http: Http, p: Extract<Plan, { kind: 'refund' }>): Promise<void> {
          // Its carrier payin is created just before it in the same pool: wait for its success.
          for (;;) {
            const read = await http.request('GET', `/v1/payin/${p.payin.reference}`).catch(() => null);
            if (read?.status === 200 && read.body.status === 'success') break;
            if (read?.status === 200 && (read.body.status === 'failed' || read.body.status === 'expired')) {
              withoutCarrier.set(p, String(read.body.status));
              return;
            }
            if (Date.now() > budgetEnd)
              throw new Error(
                `its payin ${p.payin.reference} never succeeded (${String(read?.body?.status)})`,
              );
            await sleep(1_000);
          }
          p.startedAt = Date.now();
          const res = await http.create(
            `/v1/payin/${p.payin.reference}/refund`,
            {
              amount: p.amount,
              reason: 'fault suite refund',
              externalReference: p.reference,
              sandboxScenario: p.scenario,
            },
            budgetEnd,
          );
          p.id = res.reference as string;
        }

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
        let report: Awaited<ReturnType<typeof evaluate>>;
        let fingerprint = '';
        let stableSince = Date.now();
        for (let round = 0; ; round++) {
          report = await evaluate();
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
            quiet &&
            open.length === 0 &&
            (report.divergences.length === 0 || Date.now() - stableSince >= SETTLE_MS)
          )
            break;
          if (Date.now() > budgetEnd) {
            progress(`budget spent: ${open.length} not final, reported as divergences`);
            break;
          }
          if (round % 5 === 0)
            progress(
              `${open.length} open (${open
                .slice(0, 6)
                .map((r) => `${r.plan.reference}=${r.ours.status}`)
                .join(', ')}), ` +
                `${report.divergences.length} divergences, ${lateMovesPending} late operator moves to come`,
            );
          await sleep(3_000);
        }
        // No kill after the comparison: what was compared is what the run ends with.
        killing = false;
        await chaos.catch(() => undefined);
        if (!worker.running) await worker.start();
        const beforeReconciliation = report.divergences;

        // Reconciliation against the operator's statements, once the tree has it.
        const reconciliation = await reconcile();
        if (reconciliation.available) report = await evaluate();

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
        const text = [
          `fault suite: ${JSON.stringify(figures, null, 2)}`,
          ...report.divergences.map(
            (d) =>
              `DIVERGENCE ${d.kind} ${d.reference} ${d.id ?? '(no id)'}: ${d.what}\n` +
              `  schedule: ${d.schedule}\n  ours: ${JSON.stringify(d.ours)}\n  operator: ${JSON.stringify(d.operator)}`,
          ),
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

        /** Both sides of every transaction, and their divergences. */
        async function evaluate(): Promise<{
          rows: { plan: Plan; ours: OurView; operator: OperatorView }[];
          divergences: Divergence[];
          source: string;
        }> {
          const legs = new Map<string, number>();
          for (const l of await models.entries.find({}, { sourceRef: 1, leg: 1 }).lean().exec())
            legs.set(`${l.sourceRef}|${l.leg}`, (legs.get(`${l.sourceRef}|${l.leg}`) ?? 0) + 1);
          const stored = new Map<string, Record<string, unknown>>();
          for (const name of ['transactions', 'refunds'])
            for (const d of await mongo
              .collection(name)
              .find({}, { projection: { _id: 1, attention: 1 } })
              .toArray())
              stored.set(String(d._id), d);
          const books = await operatorBooks();
          const rows: { plan: Plan; ours: OurView; operator: OperatorView }[] = [];
          let i = 0;
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (i < plans.length) {
                const p = plans[i++]!;
                rows.push({
                  plan: p,
                  ours: await ourView(p, legs, stored),
                  operator: books.view(bookKindOf[operatorPathOf(p)], p),
                });
              }
            }),
          );
          rows.sort((a, b) => plans.indexOf(a.plan) - plans.indexOf(b.plan));
          const divergences: Divergence[] = [];
          for (const r of rows)
            for (const what of withoutCarrier.has(r.plan)
              ? []
              : divergencesOf(r.plan.kind, r.ours, r.operator))
              divergences.push({
                reference: r.plan.reference,
                id: r.ours.id,
                kind: r.plan.kind,
                what,
                schedule: describeSchedule(r.plan),
                ours: r.ours,
                operator: r.operator,
              });
          return { rows, divergences, source: books.source };
        }

        async function ourView(
          p: Plan,
          legs: Map<string, number>,
          stored: Map<string, Record<string, unknown>>,
        ): Promise<OurView> {
          if (p.id === null)
            return {
              id: null,
              status: null,
              amount: null,
              attention: null,
              createError: createErrors.get(p) ?? 'not created',
            };
          const path =
            p.kind === 'payin'
              ? `/v1/payin/${p.reference}`
              : p.kind === 'payout'
                ? `/v1/direct/payout/${p.reference}`
                : `/v1/refunds/${p.id}`;
          const res = await api.request('GET', path).catch(() => null);
          const body = res?.status === 200 ? (res.body as Record<string, unknown>) : null;
          const attention = body?.attention ?? stored.get(p.id)?.attention ?? null;
          const view: OurView = {
            id: p.id,
            status: (body?.status as string | undefined) ?? null,
            amount: (body?.amount as number | undefined) ?? null,
            attention,
          };
          if (p.kind === 'payin') view.credit = movementOf(legs, `${p.id}:payin-credit`);
          else {
            const what = p.kind === 'payout' ? 'payout' : 'refund';
            view.debit = movementOf(legs, `${p.id}:${what}-debit`);
            view.reversal = movementOf(legs, `${p.id}:${what}-reversal`);
          }
          return view;
        }

        /** The operator's books: its daily statements when the simulator serves them, else its in-process records. */
        async function operatorBooks(): Promise<{
          source: string;
          view: (kind: BookKind, p: Plan) => OperatorView;
        }> {
          const dates = new Set<string>();
          for (let t = startedAt - 86_400_000; t <= Date.now() + 86_400_000; t += 86_400_000)
            dates.add(new Date(t).toISOString().slice(0, 10));
          const entries = new Map<
            string,
            { status: OperatorView['status']; amount: number; failureCode: string | null }
          >();
          let statements = true;
          outer: for (const code of operatorCodes)
            for (const date of dates) {
              const res = await fetch(`${simulator.url}/operators/${code}/statements/${date}`).catch(
                () => null,
              );
              if (!res || res.status !== 200) {
                statements = false;
                break outer;
              }
              const body = (await res.json()) as {
                entries: {
                  kind: BookKind;
                  id: string;
                  amount: number;
                  status: OperatorView['status'];
                  failureCode: string | null;
                }[];
              };
              for (const e of body.entries)
                entries.set(`${e.kind}:${e.id}`, {
                  status: e.status,
                  amount: e.amount,
                  failureCode: e.failureCode,
                });
            }
          const idOf = (kind: BookKind, p: Plan) =>
            p.id ??
            [...simulator.simulator.transactions.values()].find(
              (t) => t.kind === kind && t.amount === p.amount,
            )?.id ??
            null;
          if (statements)
            return {
              source: 'statement',
              view: (kind, p) => {
                const id = idOf(kind, p);
                const e = id ? entries.get(`${kind}:${id}`) : undefined;
                return e
                  ? { ...e, source: 'statement' }
                  : { status: 'unknown', amount: null, failureCode: null, source: 'statement' };
              },
            };
          return {
            source: 'books',
            view: (kind, p) => {
              const id = idOf(kind, p);
              const t = id
                ? (simulator.simulator.transactions.get(`${kind}:${id}`) as SimRecord | undefined)
                : undefined;
              if (!t || t.tombstone)
                return { status: 'unknown', amount: null, failureCode: null, source: 'books' };
              const status = t.kind === 'collection' && t.partnerCollected ? 'completed' : t.outcome;
              return { status, amount: t.amount, failureCode: t.failure?.code ?? null, source: 'books' };
            },
          };
        }

        /** `payments reconcile` for every operator and day of the run, when the CLI has it. */
        async function reconcile(): Promise<Reconciliation> {
          const run = promisify(execFile);
          const env = { ...workerEnv, OPERATOR_BASE_URL: simulator.url, LOG_LEVEL: 'silent' };
          const cli = (args: string[]) =>
            run(process.execPath, ['bin/payments.js', ...args], {
              cwd: repoRoot,
              env,
              timeout: 120_000,
              maxBuffer: 64 << 20,
            }).then(
              (r) => ({ exitCode: 0, stdout: r.stdout, stderr: r.stderr }),
              (err: { code?: number; stdout?: string; stderr?: string }) => ({
                exitCode: typeof err.code === 'number' ? err.code : 1,
                stdout: err.stdout ?? '',
                stderr: err.stderr ?? '',
              }),
            );
          // Commander answers `<unknown> --help` with the program's help: look for the command in it.
          const help = await cli(['--help']);
          const none: Reconciliation = { available: false, unexplained: 0, findings: {}, runs: [] };
          if (!/^\s+reconcile\b/m.test(help.stdout)) return none;
          const result: Reconciliation = { ...none, available: true };
          const days = new Set([
            new Date(startedAt).toISOString().slice(0, 10),
            new Date().toISOString().slice(0, 10),
          ]);
          for (const operator of operatorCodes)
            for (const date of days) {
              const out = await cli(['reconcile', '--operator', operator, '--date', date, '--json']);
              let report: CliReport | null = null;
              try {
                report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as CliReport;
              } catch {
                // not a report: the error is in the output kept below
              }
              const findings = (report?.findings ?? []).map((f) => ({
                class: f.class,
                kind: f.kind,
                id: f.id,
                action: f.action,
                needsPerson: f.needsPerson,
                detail: f.detail,
              }));
              for (const f of findings)
                result.findings[`${f.class} (${f.action})`] =
                  (result.findings[`${f.class} (${f.action})`] ?? 0) + 1;
              // Exit 2: a finding needs a person; any other failure is the CLI's own, unexplained too.
              const unexplained =
                out.exitCode === 0
                  ? 0
                  : report
                    ? Math.max(1, findings.filter((f) => f.needsPerson).length)
                    : 1;
              result.unexplained += unexplained;
              result.runs.push({
                operator,
                date,
                exitCode: out.exitCode,
                totals: report?.totals ?? null,
                findings: findings.filter((f) => f.needsPerson || out.exitCode !== 0),
                ...(report ? {} : { output: `${out.stdout}${out.stderr}`.slice(-2000) }),
              });
            }
          return result;
        }
      },
      BUDGET_MS + 240_000,
    );
  },
);

/** What `payments reconcile --json` prints (src/reconciliation/types.ts), as far as the suite reads it. */
interface CliReport {
  totals: Record<string, number>;
  needsPerson: boolean;
  findings: {
    class: string;
    kind: string;
    id: string;
    action: string;
    needsPerson: boolean;
    detail: string;
  }[];
}

interface Reconciliation {
  available: boolean;
  /** Findings that need a person (or runs that failed): must be 0. */
  unexplained: number;
  /** Every finding by class and the action taken, corrections included ("found on the way"). */
  findings: Record<string, number>;
  runs: {
    operator: string;
    date: string;
    exitCode: number;
    totals: Record<string, number> | null;
    findings: CliReport['findings'];
    output?: string;
  }[];
}

/** The simulator's record of a transaction, as far as the books comparison needs it (tombstone: newer simulators). */
interface SimRecord {
  kind: BookKind;
  amount: number;
  outcome: 'pending' | 'completed' | 'failed';
  partnerCollected: boolean;
  failure: { code: string } | null;
  tombstone?: boolean;
}

/** JSON over fetch with the merchant's Basic credentials; counts 5xx answers other than 503. */
class Http {
  readonly serverErrors: string[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: Credentials,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    authenticated = true,
  ): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(authenticated ? { authorization: basic(this.credentials) } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: Record<string, any>;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, any>) : {};
    } catch {
      parsed = { text };
    }
    if (res.status >= 500 && res.status !== 503)
      this.serverErrors.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, body: parsed };
  }

  /** POSTs until accepted, with one idempotency key, as a client would: in flight (409), 429, 503 and dropped connections are retried. */
  async create(path: string, body: unknown, until: number): Promise<Record<string, any>> {
    const key = randomUUID();
    for (;;) {
      const res = await this.request('POST', path, body, { 'x-idempotency-key': key }).catch(() => null);
      if (res && (res.status === 200 || res.status === 201)) return res.body;
      const retry =
        res &&
        (res.status === 429 ||
          res.status === 503 ||
          (res.status === 409 && res.body.code === 'REQUEST_IN_PROGRESS'));
      if (res && !retry) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (Date.now() > until)
        throw new Error(`${path} not accepted within the budget (last ${res?.status ?? 'no answer'})`);
      await sleep(300);
    }
  }
}
