import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import type { Connection } from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';
import { createLogger } from '../../src/infra/logger';
import {
  freePort,
  startFerretDB,
  startTemporalDevServer,
  type LocalServer,
} from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { connectMongo } from '../../src/persistence/mongo';
import { buildApi } from '../../src/main/wiring';
import { Ledger } from '../../src/ledger';
import { ledgerModels } from '../../src/ledger/models';
import { splitFee } from '../../src/domain/fees';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { ApiClient, type ApiResponse } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import type { TestStack } from '../helpers/stack';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// The reliability suite: mixed transactions in flight while the worker (a child process) is killed
// with SIGKILL at random moments and restarted, and FerretDB is killed and restarted once. Then no
// money may be lost or created, every transaction ends, every event reached the merchant signed.
// Opt-in (it takes minutes): `CHAOS_TRANSACTIONS=40 npm run test:chaos` is the short version CI
// runs, `npm run test:chaos` the long one (300).
// It runs on the real Temporal dev server in real time, not on the time-skipping test server: what
// is under test is Temporal's own recovery (a dead worker's workflow tasks leave its sticky queue,
// its activities time out and are retried elsewhere), which the test server does not reproduce.
// So the waits that matter are short here: expiry 20 s, partner checks from 3 s, operator timeout 1 s.

const TRANSACTIONS = Number(process.env.CHAOS_TRANSACTIONS ?? 40);
const KILLS = Number(process.env.CHAOS_KILLS ?? Math.max(2, Math.round(TRANSACTIONS / 40)));
const CONCURRENCY = 8;
const FUNDING = 50_000_000;
// A killed worker's activities are retried after their start-to-close timeout (webhooks: 1 min).
const BUDGET_MS = Number(process.env.CHAOS_BUDGET_MS ?? 240_000 + TRANSACTIONS * 3_000);
const progress = (startedAt: number, what: string) =>
  process.stderr.write(`chaos +${Math.round((Date.now() - startedAt) / 1000)}s: ${what}\n`);

type PayinKind =
  'completed' | 'failed' | 'pending' | 'corrected' | 'no-callback' | 'slow' | 'orange' | 'wave';
type Planned =
  | { kind: 'payin'; variant: PayinKind; reference: string; amount: number }
  | { kind: 'payout'; variant: 'completed' | 'failed'; reference: string; amount: number };

const payinVariants: PayinKind[] = [
  'completed',
  'failed',
  'pending',
  'corrected',
  'no-callback',
  'slow',
  'orange',
  'wave',
];
const expectedPayinStatus: Record<PayinKind, string> = {
  completed: 'success',
  failed: 'failed',
  pending: 'expired',
  corrected: 'success',
  'no-callback': 'success',
  slow: 'success',
  orange: 'success',
  wave: 'success',
};

function payinBody(p: Extract<Planned, { kind: 'payin' }>) {
  const msisdn = {
    completed: '+2250500001001',
    failed: '+2250500001002',
    pending: '+2250500001003',
    corrected: '+2250500009902',
    'no-callback': '+2250500009903',
    slow: '+2250500009904',
    orange: '+2250700001001',
    wave: '+2250100001001',
  }[p.variant];
  const provider = p.variant === 'orange' ? 'ORANGE' : p.variant === 'wave' ? 'WAVE' : 'MTN';
  return {
    reference: p.reference,
    sandboxScenario: p.variant === 'failed' ? 'failed' : p.variant === 'pending' ? 'pending' : 'completed',
    customerName: 'Awa Koné',
    payin: {
      amount: p.amount,
      msisdn,
      provider,
      country: 'CI',
      ...(p.variant === 'orange' ? { otp: '1234' } : {}),
    },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const enabled = process.env.CHAOS_TRANSACTIONS !== undefined;
(enabled ? describe : describe.skip)(
  `chaos: ${TRANSACTIONS} transactions, ${KILLS} worker kills, a FerretDB restart`,
  () => {
    let dir: string;
    let ferretPort: number;
    let ferret: LocalServer;
    let temporalServer: LocalServer;
    let whereStuck: (workflowId: string) => Promise<string> = async () => 'unknown';
    let temporalConnection: TemporalConnection;
    let mongo: Connection;
    let simulator: RunningSimulator;
    let server: Server;
    let receiver: WebhookReceiver;
    let worker: ChildProcess | null = null;
    let workerEnv: NodeJS.ProcessEnv;
    let workerLog: string[] = [];
    const statuses: number[] = [];
    // Set by afterAll: no worker is (re)started after teardown, even if the test body still runs.
    let tornDown = false;
    let suiteStarted = Date.now();

    async function startWorker(): Promise<void> {
      if (tornDown) return;
      workerLog = [];
      // One process (no tsx CLI wrapper in between), so SIGKILL really kills the worker.
      const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
        cwd: repoRoot,
        env: { ...workerEnv, TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      worker = proc;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker did not start:\n${workerLog.join('')}`)),
          60_000,
        );
        const onData = (chunk: Buffer) => {
          workerLog.push(chunk.toString());
          if (workerLog.length > 100) workerLog.shift();
          if (chunk.toString().includes('worker running')) {
            clearTimeout(timer);
            resolve();
          }
        };
        proc.stdout.on('data', onData);
        proc.stderr.on('data', onData);
        proc.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`worker exited (${code ?? signal}) before running:\n${workerLog.join('')}`));
        });
      });
    }

    /**
     * Starts the worker again until it runs, as a process supervisor does (compose's `restart:
     * unless-stopped`): a worker whose start-up meets the FerretDB restart exits, and is restarted.
     */
    async function superviseWorker(): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await startWorker();
        } catch (err) {
          if (tornDown || attempt >= 10) throw err;
          await sleep(1_000);
        }
      }
    }

    async function killWorker(): Promise<void> {
      const proc = worker;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'momo-chaos-'));
      ferretPort = await freePort();
      ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port: ferretPort });
      const temporalPort = await freePort();
      temporalServer = await startTemporalDevServer({
        dataDir: join(dir, 'temporal'),
        port: temporalPort,
        uiPort: await freePort(),
        namespace: 'default',
      });
      const temporalAddress = `127.0.0.1:${temporalPort}`;
      temporalConnection = await TemporalConnection.connect({ address: temporalAddress });
      const temporal = new Client({
        connection: temporalConnection,
        namespace: 'default',
        dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
      });
      // What a transaction that never ends waits for: its status, pending activities and last events.
      whereStuck = async (workflowId: string) => {
        try {
          const handle = temporal.workflow.getHandle(workflowId);
          const d = await handle.describe();
          const pending = (d.raw.pendingActivities ?? []).map(
            (a) => `${a.activityType?.name} attempt ${a.attempt}: ${a.lastFailure?.message ?? '-'}`,
          );
          const events = ((await handle.fetchHistory()).events ?? [])
            .slice(-8)
            .map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? String(e.eventType));
          const workerWarnings = workerLog
            .join('')
            .split('\n')
            .filter((l) => /"level":(40|50|60)/.test(l))
            .slice(-5);
          return JSON.stringify({
            status: d.status.name,
            historyLength: d.historyLength,
            pending,
            events,
            workerWarnings,
          });
        } catch (err) {
          return `not described: ${String(err)}`;
        }
      };
      const mongoUri = `mongodb://127.0.0.1:${ferretPort}/chaos`;
      mongo = await connectMongo(mongoUri);
      const taskQueue = `chaos-${randomUUID().slice(0, 8)}`;
      const settings = {
        NODE_ENV: 'test',
        TEMPORAL_TASK_QUEUE: taskQueue,
        OPERATOR_TIMEOUT: '1s',
        PAYIN_EXPIRY: '20s',
        PAYIN_PARTNER_CHECK_INTERVAL: '3s',
        PAYIN_CORRECTION_WINDOW: '5m',
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
      config.OPERATOR_BASE_URL = simulator.url;
      const app = await buildApi({ config, mongo, temporal, logger: createLogger('error') });
      server = await new Promise<Server>((res) => {
        const s = app.listen(0, '127.0.0.1', () => res(s));
      });
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      simulator.simulator.setCallbackBaseUrl(`http://127.0.0.1:${port}`);
      receiver = await startReceiver();
      workerEnv = {
        ...process.env,
        ...settings,
        LOG_LEVEL: 'info',
        MONGODB_URI: mongoUri,
        TEMPORAL_ADDRESS: temporalAddress,
        TEMPORAL_NAMESPACE: 'default',
        WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
        OPERATOR_BASE_URL: simulator.url,
        WORKER_METRICS_PORT: '0',
      };
      await startWorker();
    }, 120_000);

    afterAll(async () => {
      tornDown = true;
      await killWorker();
      await simulator?.stop();
      server?.closeAllConnections();
      await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
      await receiver?.close();
      await mongo?.close();
      await temporalConnection?.close();
      await temporalServer?.stop();
      await ferret?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    /**
     * POSTs until the API accepts it (same idempotency key): 503 and in-flight answers are retried,
     * as a client would, for as long as the run's budget lasts (a refund waits for its payin's
     * workflow to decide, behind the backlog of every transaction in flight).
     */
    async function create(api: ApiClient, path: string, body: unknown): Promise<ApiResponse<any>> {
      const key = randomUUID();
      const deadline = suiteStarted + BUDGET_MS;
      for (;;) {
        let res: ApiResponse<any> | null = null;
        try {
          res = await api.post(path, body, { 'x-idempotency-key': key });
          statuses.push(res.status);
        } catch {
          // the connection dropped: retry
        }
        if (res && (res.status === 200 || res.status === 201)) return res;
        if (res && ![409, 503].includes(res.status))
          throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
        if (Date.now() > deadline)
          throw new Error(`${path} not accepted within the budget (last ${res?.status})`);
        await sleep(300);
      }
    }

    /** GETs until the API answers other than 503 (FerretDB down) or the connection drops. */
    async function read(api: ApiClient, path: string): Promise<ApiResponse<any>> {
      for (let i = 0; ; i++) {
        try {
          const res = await api.get(path);
          statuses.push(res.status);
          if (res.status !== 503 || i > 100) return res;
        } catch (err) {
          if (i > 100) throw err;
        }
        await sleep(300);
      }
    }

    async function pool<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < items.length) await fn(items[next++]!);
        }),
      );
    }

    it(
      'loses no money and ends every transaction',
      async () => {
        const started = Date.now();
        suiteStarted = started;
        const merchant = await createTestMerchant({ mongo } as TestStack, 'Chaos merchant');
        const api = new ApiClient(
          `http://127.0.0.1:${(server.address() as { port: number }).port}`,
          merchant.credentials,
          {},
          30_000,
        );
        const ledger = Ledger.on(mongo);
        const main = await ledger.mainAccount(merchant.merchantId, 'XOF');
        await ledger.transfer({
          sourceRef: `fund:${randomUUID()}`,
          fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF')).id,
          toAccountId: main.id,
          amount: FUNDING,
          reason: 'chaos funding',
        });
        const hook = await create(api, '/v1/webhooks', { url: `${receiver.url}/hooks` });
        const wh = new Webhook(hook.body.secret as string);

        // 80 % payins of every kind, 20 % payouts; refunds follow the completed payins.
        const planned: Planned[] = Array.from({ length: TRANSACTIONS }, (_, i) => {
          const amount = 1_000 + ((i * 7_919) % 49_000);
          const reference = `chaos-${i}`;
          if (i % 5 === 4)
            return { kind: 'payout', variant: i % 10 === 9 ? 'failed' : 'completed', reference, amount };
          return {
            kind: 'payin',
            variant: payinVariants[(i - Math.floor(i / 5)) % payinVariants.length]!,
            reference,
            amount,
          };
        });

        // The chaos: kills of the worker at random moments, and FerretDB killed once in the middle.
        let kills = 0;
        // KILLS kills, 5 to 25 s apart: through the creations and into the refunds. (Faster, the
        // worker would spend its life restarting and timing out its predecessor's tasks.)
        const chaos = (async () => {
          while (kills < KILLS && !tornDown) {
            await sleep(5_000 + Math.random() * 20_000);
            await killWorker();
            kills++;
            await sleep(200 + Math.random() * 1_500);
            await superviseWorker();
          }
        })();
        let ferretRestarted = false;
        const restartFerret = async () => {
          ferret.process.kill('SIGKILL');
          await new Promise((r) => ferret.process.once('exit', r));
          await sleep(1_500);
          ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port: ferretPort });
          ferretRestarted = true;
        };

        let createdCount = 0;
        let ferretDone: Promise<void> = Promise.resolve();
        await pool(planned, async (p) => {
          if (p.kind === 'payin') await create(api, '/v1/direct/payin', payinBody(p));
          else
            await create(api, '/v1/direct/payout', {
              reference: p.reference,
              sandboxScenario: p.variant,
              customerName: 'Kouassi Yao',
              payout: { amount: p.amount, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
            });
          if (++createdCount === Math.floor(TRANSACTIONS / 2)) ferretDone = restartFerret();
        });
        await ferretDone;
        progress(started, `${TRANSACTIONS} created; ${kills} worker kills so far, FerretDB restarted`);

        // Partial refunds of completed payins once they succeed: two per payin, some failing.
        const refundable = planned.filter(
          (p): p is Extract<Planned, { kind: 'payin' }> => p.kind === 'payin' && p.variant === 'completed',
        );
        const refunds: { reference: string; payin: string; scenario: string }[] = [];
        await pool(refundable, async (p) => {
          const ok = async () => (await read(api, `/v1/payin/${p.reference}`)).body?.status === 'success';
          while (!(await ok())) {
            if (Date.now() - started > BUDGET_MS)
              throw new Error(
                `payin ${p.reference} never succeeded: ${await whereStuck(`payin:${merchant.merchantId}:${p.reference}`)}`,
              );
            await sleep(1_000);
          }
          for (const [n, scenario] of [
            [1, 'completed'],
            [2, refunds.length % 3 === 0 ? 'failed' : 'completed'],
          ] as const) {
            const res = await create(api, `/v1/payin/${p.reference}/refund`, {
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
        if (!worker || worker.exitCode !== null || worker.signalCode !== null) await superviseWorker();
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
            records.set(p.reference, (await read(api, path)).body);
          }
          for (const r of refunds)
            records.set(r.reference, (await read(api, `/v1/refunds/${r.reference}`)).body);
          const open = planned
            .filter((p) => {
              const status = records.get(p.reference)?.status as string;
              if (p.kind === 'payout') return !finalOther(status);
              return status !== expectedPayinStatus[p.variant];
            })
            .map((p) => `${p.reference}=${records.get(p.reference)?.status}`);
          for (const r of refunds)
            if (!finalOther(records.get(r.reference)?.status))
              open.push(`${r.reference}=${records.get(r.reference)?.status}`);
          return open;
        };
        const verified = new Set<string>();
        let checked = 0;
        for (let round = 0; ; round++) {
          const open = await unfinished();
          const undelivered = open.length === 0 ? await undeliveredEvents() : ['(not checked yet)'];
          if (undelivered.length === 0) break;
          if (round % 10 === 0)
            progress(
              started,
              `${open.length} not final: ${open.slice(0, 8).join(', ')}; ${undelivered.length} events not delivered`,
            );
          if (Date.now() - started > BUDGET_MS)
            throw new Error(
              `not final in time: ${open.join(', ')}; not delivered: ${undelivered.slice(0, 20).join(', ')}\n${workerLog.join('').slice(-3000)}`,
            );
          await sleep(2_000);
        }
        progress(started, `all final, all events delivered (${kills} worker kills, FerretDB restarted)`);

        // Every answer was a success, a business answer, or a 503 while FerretDB was down: never a 500.
        expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);

        // Outcomes as planned, and money conserved against them.
        let expectedBalance = FUNDING;
        let expectedFees = 0;
        for (const p of planned) {
          const rec = records.get(p.reference);
          if (p.kind === 'payin') {
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
        const fees = await ledger.systemAccount('fees', 'XOF');
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
        expect(await undeliveredEvents()).toEqual([]);

        /** The events listed by the API that have not reached the receiver with a valid signature. */
        async function undeliveredEvents(): Promise<string[]> {
          for (; checked < receiver.received.length; checked++) {
            const w = receiver.received[checked]!;
            if (w.status !== 200) continue;
            // The signature as the receiver got it: Standard Webhooks' verify() also refuses a
            // timestamp over 5 minutes old, and this check may run long after the delivery.
            const id = String(w.headers['webhook-id']);
            const sentAt = new Date(Number(w.headers['webhook-timestamp']) * 1000);
            const expected = wh.sign(id, sentAt, w.body);
            const given = String(w.headers['webhook-signature'] ?? '').split(' ');
            if (!given.includes(expected)) continue; // forged or broken: not delivered
            const event = JSON.parse(w.body) as { id: string };
            if (event.id === id) verified.add(event.id);
          }
          const missing: string[] = [];
          let cursor: string | null = null;
          do {
            const page: ApiResponse<any> = await read(
              api,
              `/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
            );
            if (page.status !== 200) return [`events page answered ${page.status}`];
            for (const e of page.body.data as { id: string; type: string }[])
              if (!verified.has(e.id)) missing.push(`${e.type} ${e.id}`);
            cursor = page.body.nextCursor as string | null;
          } while (cursor);
          return missing;
        }
      },
      BUDGET_MS + 60_000,
    );
  },
);
