// `npm run bench`: end-to-end figures measured side by side in one run, on one stack (docs/benchmarks.md).
// Starts FerretDB and the Temporal dev server (unless MONGODB_URI / TEMPORAL_ADDRESS are set), the
// operator simulator, the API and the worker as separate processes, then measures:
//   1. payins created over HTTP and completed (success, ledger credit, webhook) per second
//   2. the bound: a bare workflow with as many no-op activities, on the same server
//   3. Temporal history events and billable actions per payin, payout and refund
//   4. status reads with 1,000 and with BENCH_STORED stored transactions
//   5. ledger postings on one hot account and spread over 100 accounts
// Prints a table and writes bench-results/bench-<time>.json. Sizes: see `sizes` below.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  Client,
  Connection as TemporalConnection,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Connection } from 'mongoose';
import { configSchema } from '../src/config';
import {
  freePort,
  startFerretDB,
  startTemporalDevServer,
  waitForPort,
  type LocalServer,
} from '../src/infra/local-servers';
import { repoRoot } from '../src/infra/tools';
import { connectMongo } from '../src/persistence/mongo';
import { MerchantService } from '../src/merchants';
import { Ledger, type Account } from '../src/ledger';
import { startSimulator } from '../src/simulator/server';
import { ApiClient, basic } from '../test/helpers/http';
import { startReceiver } from '../test/helpers/webhook-receiver';

const int = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const sizes = {
  /** Issue size: 2,000. */
  payins: int('BENCH_PAYINS', 300),
  concurrency: int('BENCH_CONCURRENCY', 16),
  /** Issue size: 100,000. */
  stored: int('BENCH_STORED', 10_000),
  /** Rounds in which end-to-end payins and the bound alternate (each a share of `payins`). */
  rounds: Math.max(1, int('BENCH_ROUNDS', 4)),
  readSeconds: int('BENCH_READ_SECONDS', 5),
  postings: int('BENCH_POSTINGS', 500),
};
const profile = process.env.BENCH_PROFILE === '1';
const resultsDir = join(repoRoot, 'bench-results');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pool<T>(items: T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

// ---- Temporal cost from real histories ----

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const E = {
  started: 1,
  activityScheduled: 10,
  timerStarted: 17,
  marker: 25,
  signaled: 26,
  childInitiated: 30,
  signalExternal: 39,
  upsertSA: 40,
  updateAccepted: 41,
  propertiesModified: 45,
} as const;

/**
 * Billable actions as Temporal Cloud counts them, read from a history: the start, each activity
 * scheduled, timer, signal received, update accepted, child or external signal initiated,
 * marker (side effect, local activity) and search-attribute or memo change.
 */
function billableActions(events: HistoryEvent[]): number {
  const billable = new Set<number>(Object.values(E));
  return events.filter((e) => billable.has(Number(e.eventType))).length;
}

/** Counted over the workflows that exist: a webhook delivered at its first attempt has none. */
async function cost(client: Client, workflowIds: string[]) {
  let events = 0;
  let actions = 0;
  let activities = 0;
  let workflows = 0;
  for (const id of workflowIds) {
    const history = await client.workflow
      .getHandle(id)
      .fetchHistory()
      .catch((err: unknown) => {
        // fetchHistory answers gRPC NOT_FOUND (5) itself, not WorkflowNotFoundError.
        if (err instanceof WorkflowNotFoundError || (err as { code?: number }).code === 5) return null;
        throw err;
      });
    if (!history) continue;
    workflows++;
    const list = history.events ?? [];
    events += list.length;
    actions += billableActions(list);
    activities += list.filter((e) => Number(e.eventType) === E.activityScheduled).length;
  }
  return { workflows, historyEvents: events, billableActions: actions, activities };
}

/** A workflow's history as [event type, ms since its first event]: where its time went. */
async function timeline(client: Client, workflowId: string): Promise<[string, number][]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const at = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const events = history.events ?? [];
  const start = events[0] ? at(events[0]) : 0;
  return events.map((e) => [
    String(temporal.api.enums.v1.EventType[Number(e.eventType)] ?? e.eventType).replace('EVENT_TYPE_', ''),
    Math.round(at(e) - start),
  ]);
}

// ---- processes ----

function nodeProcess(script: string, env: NodeJS.ProcessEnv, name: string): ChildProcess {
  const flags = profile
    ? // A directory per process, default file names: the tsx loader runs in its own thread, which
      // writes a profile too, and one fixed name let the (idle) loader's overwrite the main thread's.
      ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, 'profiles', name)}`]
    : [];
  const proc = spawn(process.execPath, [...flags, '--import', 'tsx', script], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return proc;
}

async function waitForPoller(client: Client, taskQueue: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: 1,
    });
    if ((res.pollers ?? []).length > 0) return;
    await sleep(200);
  }
  throw new Error(`no worker polls ${taskQueue}`);
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: {
    id: number;
    hitCount?: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
}

/**
 * A process's busiest thread (its main thread, not the loader's): seconds on CPU out of the
 * profiled seconds, and self time per function as a share of the busy time, the top `n`.
 */
function topFunctions(dir: string, n = 15) {
  const idle = new Set(['(idle)', '(program)']);
  const read = (file: string) => {
    const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const total = prof.nodes.reduce((a, node) => a + (node.hitCount ?? 0), 0);
    const busy = prof.nodes
      .filter((node) => !idle.has(node.callFrame.functionName))
      .reduce((a, node) => a + (node.hitCount ?? 0), 0);
    return { prof, total, busy };
  };
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map(read)
    .sort((a, b) => b.busy - a.busy);
  const main = profiles[0];
  if (!main || main.busy === 0) return null;
  const byFn = new Map<string, number>();
  for (const node of main.prof.nodes) {
    const f = node.callFrame;
    if (idle.has(f.functionName)) continue;
    const where = f.url.replace(/^file:\/\//, '').replace(repoRoot, '.');
    const key = `${f.functionName || '(anonymous)'} ${where.split('node_modules/').pop()}:${f.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + (node.hitCount ?? 0));
  }
  const seconds = (main.prof.endTime - main.prof.startTime) / 1e6;
  return {
    profiledSeconds: Math.round(seconds),
    cpuSeconds: round((seconds * main.busy) / main.total),
    top: [...byFn.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([fn, hits]) => ({ fn, percentOfBusy: Math.round((1000 * hits) / main.busy) / 10 })),
  };
}

// ---- CPU per process ----

/** CPU seconds (user + system) a process used so far, from /proc (Linux); null elsewhere. */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (name) ": state is field 3, utime and stime fields 14 and 15, in clock ticks.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Where a phase's time went: CPU seconds of each process of the stack between two snapshots. */
function cpuMeter(processes: Record<string, number | undefined>) {
  const snapshot = (): Record<string, number | null> => {
    const own = process.cpuUsage();
    return {
      ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSecondsOf(pid)])),
      'bench (load, simulator, receiver)': (own.user + own.system) / 1e6,
    };
  };
  return {
    snapshot,
    since(before: Record<string, number | null>): Record<string, number | null> {
      const now = snapshot();
      return Object.fromEntries(
        Object.entries(now).map(([name, v]) => {
          const b = before[name];
          return [name, v === null || b === null || b === undefined ? null : round(v - b)];
        }),
      );
    },
  };
}

// ---- the run ----

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  if (profile) rmSync(join(resultsDir, 'profiles'), { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'momo-bench-'));
  const servers: LocalServer[] = [];
  const children: ChildProcess[] = [];
  let mongo: Connection | undefined;
  let temporalConn: TemporalConnection | undefined;
  try {
    let mongoUri = process.env.MONGODB_URI;
    if (!mongoUri) {
      const port = await freePort();
      servers.push(await startFerretDB({ dataDir: join(dir, 'ferretdb'), port }));
      mongoUri = `mongodb://127.0.0.1:${port}/bench`;
    }
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    if (!temporalAddress) {
      const port = await freePort();
      servers.push(
        await startTemporalDevServer({
          dataDir: join(dir, 'temporal'),
          port,
          uiPort: await freePort(),
          namespace: 'default',
        }),
      );
      temporalAddress = `127.0.0.1:${port}`;
    }
    mongo = await connectMongo(mongoUri);
    temporalConn = await TemporalConnection.connect({ address: temporalAddress });
    const client = new Client({ connection: temporalConn });

    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const config = configSchema.parse({});
    const simulator = await startSimulator({
      port: 0,
      callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
      callbackBaseUrl: apiUrl,
      settleDelayMs: 20,
    });
    const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
    const common: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      MONGODB_URI: mongoUri,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      OPERATOR_BASE_URL: simulator.url,
      OPERATOR_CALLBACK_BASE_URL: apiUrl,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
      WORKER_METRICS_PORT: '0',
      TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
    };
    children.push(nodeProcess('src/main/worker.ts', common, 'worker'));
    children.push(
      nodeProcess('src/main/api.ts', { ...common, PORT: String(apiPort), HOST: '127.0.0.1' }, 'api'),
    );
    const bareQueue = `${taskQueue}-bare`;
    children.push(
      nodeProcess('bench/bare-worker.ts', { ...common, TEMPORAL_TASK_QUEUE: bareQueue }, 'bare-worker'),
    );
    await waitForPort(apiPort, 60_000);
    await waitForPoller(client, taskQueue);
    await waitForPoller(client, bareQueue);

    const merchants = MerchantService.on(mongo);
    await merchants.init();
    const { merchantId, apiKey, apiClient } = await merchants.createMerchant('Bench merchant');
    const credentials = { apiKey, apiClient };
    const api = new ApiClient(apiUrl, credentials);
    const receiver = await startReceiver();
    const completedAt = new Map<string, number>();
    receiver.respond = ({ body }) => {
      const event = JSON.parse(body) as { type: string; data: { reference: string } };
      if (event.type === 'payin.completed') completedAt.set(event.data.reference, Date.now());
      return { status: 200 };
    };
    const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/hooks`, eventTypes: [] });
    if (hook.status !== 201)
      throw new Error(`webhook registration: ${hook.status} ${JSON.stringify(hook.body)}`);
    // Warm-up: the first requests compile code paths in every process.
    for (let i = 0; i < 5; i++) {
      await api.post('/v1/direct/payin', payin(`warmup-${i}`));
    }
    await waitFor(() => [0, 1, 2, 3, 4].every((i) => completedAt.has(`warmup-${i}`)), 60_000, 'warm-up');
    // The bare worker too, so neither phase pays its first workflows' compilation.
    for (let i = 0; i < 5; i++)
      await client.workflow.execute('bareWorkflow', {
        taskQueue: bareQueue,
        workflowId: `bare-warmup-${taskQueue}-${i}`,
        args: [1],
      });

    // 4, first half: status reads with 1,000 stored transactions, before the payins (afterwards
    // the store holds BENCH_PAYINS of them already). The warm-up payins are among those read.
    console.log('4/5 status reads with 1,000 stored transactions...');
    const known = Array.from({ length: 5 }, (_, i) => `warmup-${i}`);
    await storeSynthetic(mongo, merchantId, 1_000, known, 'warmup-0');
    const reads1k = await readBench(apiUrl, credentials, known);

    const cpu = cpuMeter({
      ...Object.fromEntries(servers.map((s) => [s.name, s.process.pid])),
      worker: children[0]?.pid,
      api: children[1]?.pid,
      'bare worker': children[2]?.pid,
    });

    // 1 and 2, side by side: end-to-end payins and the bound alternate in rounds (e2e then bound,
    // then bound then e2e, ...), each round a share of BENCH_PAYINS. Whatever drifts during the run
    // (the servers' growing databases, other load on the machine) then weighs on both phases alike;
    // run one after the other, the bound alone varied from 50 to 66 s for the same 300 workflows.
    const refs = Array.from({ length: sizes.payins }, (_, i) => `bench-${i}`);
    const shares = Array.from(
      { length: sizes.rounds },
      (_, r) =>
        Math.floor(((r + 1) * sizes.payins) / sizes.rounds) - Math.floor((r * sizes.payins) / sizes.rounds),
    );
    // Each phase's wall seconds per round; a phase's time is their sum.
    const e2eTotals = {
      createSeconds: 0,
      non2xx: 0,
      latencies: [] as number[],
      cpu: {},
      rounds: [] as number[],
    };
    const boundTotals = { cpu: {}, rounds: [] as number[] };
    const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
    const addCpu = (into: Record<string, number | null>, add: Record<string, number | null>) => {
      for (const [k, v] of Object.entries(add))
        into[k] = v === null || into[k] === null ? null : round((into[k] ?? 0) + v);
    };

    /** Payins `from`..`from + count - 1` created over HTTP; done when each one's webhook arrived. */
    const e2eRound = async (from: number, count: number) => {
      console.log(`1/5 payins ${from}..${from + count - 1} at concurrency ${sizes.concurrency}...`);
      let seq = from;
      const before = cpu.snapshot();
      const start = Date.now();
      const created = await new Promise<autocannon.Result>((resolve, reject) => {
        const run = autocannon(
          {
            url: apiUrl,
            connections: Math.min(sizes.concurrency, count), // autocannon refuses more
            amount: count,
            requests: [
              {
                method: 'POST',
                path: '/v1/direct/payin',
                setupRequest: (req) => ({
                  ...req,
                  headers: {
                    authorization: basic(credentials),
                    'content-type': 'application/json',
                    'x-idempotency-key': randomUUID(),
                  },
                  body: JSON.stringify(payin(`bench-${seq++}`)),
                }),
              },
            ],
          },
          (err, result) => (err ? reject(err as Error) : resolve(result)),
        );
        // Every creation's latency, so the percentiles cover all rounds (autocannon's are per run).
        run.on('response', (_client, _status, _bytes, ms) => e2eTotals.latencies.push(ms));
      });
      e2eTotals.createSeconds += (Date.now() - start) / 1000;
      e2eTotals.non2xx += created.non2xx;
      const mine = refs.slice(from, from + count);
      await waitFor(() => mine.every((r) => completedAt.has(r)), 600_000, 'payins completed');
      e2eTotals.rounds.push((Math.max(...mine.map((r) => completedAt.get(r)!)) - start) / 1000);
      addCpu(e2eTotals.cpu, cpu.since(before));
    };

    /** Bare workflows `from`..: started like the payins are created (a slot frees once started). */
    const boundRound = async (from: number, count: number, activities: number) => {
      console.log(`2/5 bare workflows ${from}..${from + count - 1} of ${activities} no-op activities...`);
      const before = cpu.snapshot();
      const start = Date.now();
      const handles: WorkflowHandle[] = [];
      await pool(refs.slice(from, from + count), sizes.concurrency, async (_r, i) => {
        handles[i] = await client.workflow.start('bareWorkflow', {
          taskQueue: bareQueue,
          workflowId: `bare-${taskQueue}-${from + i}`,
          args: [activities],
        });
      });
      await Promise.all(handles.map((h) => h.result()));
      boundTotals.rounds.push((Date.now() - start) / 1000);
      addCpu(boundTotals.cpu, cpu.since(before));
    };

    // 3. Temporal cost per transaction (before the first bound round: it uses the payin's activity count).
    const db = mongo; // narrowed for the closure below
    const measureCost = async () => {
      console.log('3/5 Temporal cost per transaction...');
      const endpointId = (hook.body as { id: string }).id;
      const deliveries = async (reference: string, typePrefix: string) => {
        const events = await api.get(`/v1/events?reference=${encodeURIComponent(reference)}&limit=100`);
        return ((events.body as { data: { id: string; type: string }[] }).data ?? [])
          .filter((e) => e.type.startsWith(typePrefix))
          .map((e) => `webhook:${e.id}:${endpointId}`);
      };
      const payinCost = await cost(client, [
        `payin:${merchantId}:bench-0`,
        ...(await deliveries('bench-0', 'payin.')),
      ]);
      const payinOwn = await cost(client, [`payin:${merchantId}:bench-0`]);
      const payinDeliveries = await deliveries('bench-0', 'payin.');

      await fund(db, merchantId);
      const po = await api.post('/v1/direct/payout', {
        reference: 'bench-payout',
        sandboxScenario: 'completed',
        customerName: 'Kouassi Yao',
        payout: { amount: 5000, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
      });
      if (po.status !== 201) throw new Error(`payout: ${po.status} ${JSON.stringify(po.body)}`);
      await waitFor(
        async () => (await api.get('/v1/direct/payout/bench-payout')).body.status === 'completed',
        60_000,
        'payout',
      );
      await sleep(1_000);
      const payoutCost = await cost(client, [
        `payout:${merchantId}:bench-payout`,
        ...(await deliveries('bench-payout', 'payout.')),
      ]);

      const rf = await api.post('/v1/payin/bench-1/refund', {
        amount: 1000,
        reason: 'bench',
        externalReference: 'bench-refund',
        sandboxScenario: 'completed',
      });
      if (rf.status !== 201) throw new Error(`refund: ${rf.status} ${JSON.stringify(rf.body)}`);
      const rfRef = (rf.body as { reference: string }).reference;
      await waitFor(
        async () => (await api.get(`/v1/refunds/${rfRef}`)).body.status === 'completed',
        60_000,
        'refund',
      );
      await sleep(1_000);
      const refundDoc = await db.db!.collection('refunds').findOne({ id: rfRef });
      const refundCost = await cost(client, [
        String(refundDoc?.workflowId),
        ...(await deliveries('bench-1', 'refund.')),
      ]);
      return { payinCost, payinOwn, payinDeliveries, payoutCost, refundCost };
    };

    let costs: Awaited<ReturnType<typeof measureCost>> | undefined;
    let from = 0;
    for (const [r, count] of shares.entries()) {
      if (r % 2 === 0) {
        await e2eRound(from, count);
        costs ??= await measureCost();
        await boundRound(from, count, costs.payinOwn.activities);
      } else {
        await boundRound(from, count, costs!.payinOwn.activities);
        await e2eRound(from, count);
      }
      from += count;
    }
    const { payinCost, payinOwn, payinDeliveries, payoutCost, refundCost } = costs!;
    const activities = payinOwn.activities;
    const e2eSeconds = sum(e2eTotals.rounds);
    const boundSeconds = sum(boundTotals.rounds);
    const e2eCpuSeconds = e2eTotals.cpu;
    const boundCpuSeconds = boundTotals.cpu;
    const boundPerSecond = round(sizes.payins / boundSeconds);
    // Completed means credited too: one credit entry per payin.
    const txIds = (
      await mongo
        .db!.collection('transactions')
        .find({ merchantId, reference: { $in: refs } }, { projection: { id: 1, status: 1 } })
        .toArray()
    ).filter((t) => t.status === 'success');
    const credits = await mongo.db!.collection('ledger_entries').countDocuments({
      sourceRef: { $in: txIds.map((t) => `${String(t.id)}:payin-credit`) },
      leg: 'credit',
    });
    const e2e = {
      payins: sizes.payins,
      non2xx: e2eTotals.non2xx,
      successful: txIds.length,
      credited: credits,
      webhooks: refs.filter((r) => completedAt.has(r)).length,
      createPerSecond: round(sizes.payins / e2eTotals.createSeconds),
      completedPerSecond: round(sizes.payins / e2eSeconds),
      createLatencyMs: {
        p50: Math.round(percentile(e2eTotals.latencies, 50)),
        p99: Math.round(percentile(e2eTotals.latencies, 99)),
      },
    };
    // One of each, event by event (in the JSON only): what a payin waits on that a bare one does not.
    const timelines = {
      payin: await timeline(client, `payin:${merchantId}:bench-0`),
      payinWebhook: payinDeliveries[0] ? await timeline(client, payinDeliveries[0]).catch(() => []) : [],
      bare: await timeline(client, `bare-${taskQueue}-0`),
    };

    // 4, second half: status reads with BENCH_STORED stored transactions.
    console.log(`4/5 status reads with ${sizes.stored.toLocaleString('en')} stored transactions...`);
    known.push(...refs);
    await storeSynthetic(mongo, merchantId, sizes.stored, known, 'bench-0');
    const readsBig = await readBench(apiUrl, credentials, known);

    // 5. Ledger postings, from this process on its own connection (as a worker would).
    console.log(`5/5 ledger: ${sizes.postings} transfers on one hot account, then over 100 accounts...`);
    const ledgerFigures = await ledgerBench(mongo, sizes.postings, sizes.concurrency);

    const results = {
      at: new Date().toISOString(),
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      sizes,
      e2e,
      bound: {
        workflows: sizes.payins,
        activitiesPerWorkflow: activities,
        workflowsPerSecond: boundPerSecond,
      },
      /** Wall seconds of each round, in the order run (e2e first in even rounds, bound first in odd). */
      rounds: {
        payinsPerRound: shares,
        e2eSeconds: e2eTotals.rounds.map(round),
        boundSeconds: boundTotals.rounds.map(round),
      },
      // From the unrounded rates (the same payin count over the two wall times), to two decimals.
      ratioE2eToBound: Math.round((boundSeconds / e2eSeconds) * 100) / 100,
      /** CPU seconds per process during each phase (wall seconds alongside), and the load average. */
      cpu: {
        e2e: { wallSeconds: round(e2eSeconds), ...e2eCpuSeconds },
        bound: { wallSeconds: round(boundSeconds), ...boundCpuSeconds },
        loadAverage: (await import('node:os')).loadavg().map(round),
      },
      temporalCost: { payin: payinCost, payinWorkflowOnly: payinOwn, payout: payoutCost, refund: refundCost },
      reads: { at1k: reads1k, atStored: readsBig, ratio: round(readsBig.perSecond / reads1k.perSecond) },
      ledger: ledgerFigures,
      timelines,
      profiles: {} as Record<string, unknown>,
    };

    await simulator.stop();
    await receiver.close();
    for (const c of children) await stopProcess(c);
    children.length = 0;
    if (profile) {
      const profDir = join(resultsDir, 'profiles');
      for (const name of readdirSync(profDir)) results.profiles[name] = topFunctions(join(profDir, name));
    }
    const out = join(resultsDir, `bench-${results.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    printTable(results);
    console.log(`\nwritten: ${out}`);
  } finally {
    for (const c of children) await stopProcess(c);
    await mongo?.close();
    await temporalConn?.close();
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function payin(reference: string) {
  return {
    reference,
    sandboxScenario: 'completed',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  };
}

const round = (x: number) => Math.round(x * 10) / 10;

/** The p-th percentile (nearest rank) of the values, in their unit. */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done in ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function fund(mongo: Connection, merchantId: string): Promise<void> {
  const ledger = Ledger.on(mongo);
  await ledger.transfer({
    sourceRef: `fund:${randomUUID()}`,
    fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF')).id,
    toAccountId: (await ledger.mainAccount(merchantId, 'XOF')).id,
    amount: 10_000_000,
    reason: 'bench funding',
  });
}

/**
 * Tops the merchant's stored transactions up to `total` with copies of a real payin record (the
 * reads only need documents of the real shape; running that many workflows would take hours),
 * stored as TransactionStore stores them: `_id` = id, and a `transaction_refs` entry per reference
 * (without it a read of a copy is a 404, and the figure measures nothing).
 */
async function storeSynthetic(
  mongo: Connection,
  merchantId: string,
  total: number,
  known: string[],
  templateReference: string,
): Promise<void> {
  const col = mongo.db!.collection<{ _id: string }>('transactions');
  const refs = mongo.db!.collection<{ _id: string; id: string }>('transaction_refs');
  const template = await col.findOne({ merchantId, reference: templateReference });
  if (!template) throw new Error('no template payin');
  const { _id: _ignored, ...fields } = template;
  let count = await col.countDocuments({});
  const batch = 1_000;
  while (count < total) {
    const n = Math.min(batch, total - count);
    const docs = Array.from({ length: n }, (_, k) => {
      const reference = `stored-${count + k}`;
      const id = `pr_stored${count + k}`;
      known.push(reference);
      return {
        ...fields,
        _id: id,
        id,
        reference,
        workflowId: `payin:${merchantId}:${reference}`,
        idempotencyKey: null,
      };
    });
    await col.insertMany(docs, { ordered: false });
    await refs.insertMany(
      docs.map((d) => ({ _id: `${merchantId}|payin|${d.reference}`, id: d.id })),
      { ordered: false },
    );
    count += n;
  }
}

async function readBench(url: string, credentials: { apiKey: string; apiClient: string }, refs: string[]) {
  const result = await autocannon({
    url,
    connections: sizes.concurrency,
    duration: sizes.readSeconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: `/v1/payin/${refs[Math.floor(Math.random() * refs.length)]}`,
          headers: { authorization: basic(credentials) },
        }),
      },
    ],
  });
  return {
    stored: refs.length,
    requests: result.requests.total,
    non2xx: result.non2xx,
    perSecond: round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}

async function ledgerBench(mongo: Connection, postings: number, width: number) {
  const ledger = Ledger.on(mongo);
  const owner = `mer_bench_${randomUUID().slice(0, 8)}`;
  const funding = await ledger.systemAccount('sandbox-funding', 'XOF');
  // Set-up, not measured: one at a time (100 concurrent inserts overrun FerretDB's SQLite writer).
  const accounts: Account[] = [];
  for (let i = 0; i < 100; i++) accounts.push(await ledger.createSubAccount(owner, 'XOF', `a${i}`));
  const hot = await ledger.createSubAccount(owner, 'XOF', 'hot');
  for (const a of [hot, ...accounts])
    await ledger.transfer({
      sourceRef: `fund:${a.id}`,
      fromAccountId: funding.id,
      toAccountId: a.id,
      amount: 1e9,
      reason: 'bench',
    });
  const run = async (label: string, pick: (i: number) => [string, string]) => {
    const ops = Array.from({ length: postings }, (_, i) => i);
    const start = Date.now();
    await pool(ops, width, async (i) => {
      const [from, to] = pick(i);
      await ledger.transfer({
        sourceRef: `${label}:${owner}:${i}`,
        fromAccountId: from,
        toAccountId: to,
        amount: 1,
        reason: 'bench',
      });
    });
    const seconds = (Date.now() - start) / 1000;
    return {
      transfers: postings,
      transfersPerSecond: round(postings / seconds),
      entriesPerSecond: round((2 * postings) / seconds),
    };
  };
  // Hot: every transfer debits the same account. Spread: each account is one of 100.
  const hotFigures = await run('hot', (i) => [hot.id, accounts[i % 100]!.id]);
  const spread = await run('spread', (i) => [accounts[i % 100]!.id, accounts[(i + 37) % 100]!.id]);
  return {
    hotAccount: hotFigures,
    spread100: spread,
    ratio: round(hotFigures.transfersPerSecond / spread.transfersPerSecond),
  };
}

/** A read that was not a 200 measured nothing: say so next to the figure. */
const nonOk = (x: { non2xx: number }) => (x.non2xx > 0 ? ` (${x.non2xx} non-2xx!)` : '');

function printTable(r: {
  e2e: { completedPerSecond: number; createPerSecond: number; createLatencyMs: { p50: number; p99: number } };
  bound: { workflowsPerSecond: number; activitiesPerWorkflow: number };
  ratioE2eToBound: number;
  temporalCost: Record<string, { historyEvents: number; billableActions: number; workflows: number }>;
  reads: {
    at1k: { stored: number; perSecond: number; non2xx: number; latencyMs: { p50: number; p99: number } };
    atStored: { stored: number; perSecond: number; non2xx: number; latencyMs: { p50: number; p99: number } };
    ratio: number;
  };
  ledger: { hotAccount: { transfersPerSecond: number }; spread100: { transfersPerSecond: number } };
  cpu: Record<'e2e' | 'bound', Record<string, number | null>> & { loadAverage: number[] };
}): void {
  const cpuRow = (phase: 'e2e' | 'bound'): [string, string] => {
    const { wallSeconds, ...perProcess } = r.cpu[phase];
    return [
      `CPU s per process during ${phase} (${wallSeconds} s wall)`,
      Object.entries(perProcess)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ];
  };
  const rows: [string, string][] = [
    ['payins completed /s (success + credit + webhook)', String(r.e2e.completedPerSecond)],
    ['payins created /s', String(r.e2e.createPerSecond)],
    ['creation latency p50 / p99 (ms)', `${r.e2e.createLatencyMs.p50} / ${r.e2e.createLatencyMs.p99}`],
    [
      `bound: bare workflows /s (${r.bound.activitiesPerWorkflow} no-op activities)`,
      String(r.bound.workflowsPerSecond),
    ],
    ['ratio e2e / bound', String(r.ratioE2eToBound)],
    ...Object.entries(r.temporalCost).map(([k, c]): [string, string] => [
      `Temporal ${k}: workflows / history events / billable actions`,
      `${c.workflows} / ${c.historyEvents} / ${c.billableActions}`,
    ]),
    [
      `reads /s, p50 / p99 ms at ${r.reads.at1k.stored}`,
      `${r.reads.at1k.perSecond}, ${r.reads.at1k.latencyMs.p50} / ${r.reads.at1k.latencyMs.p99}${nonOk(r.reads.at1k)}`,
    ],
    [
      `reads /s, p50 / p99 ms at ${r.reads.atStored.stored}`,
      `${r.reads.atStored.perSecond}, ${r.reads.atStored.latencyMs.p50} / ${r.reads.atStored.latencyMs.p99}${nonOk(r.reads.atStored)}`,
    ],
    ['reads ratio (large / 1k)', String(r.reads.ratio)],
    ['ledger transfers /s, one hot account', String(r.ledger.hotAccount.transfersPerSecond)],
    ['ledger transfers /s, over 100 accounts', String(r.ledger.spread100.transfersPerSecond)],
    cpuRow('e2e'),
    cpuRow('bound'),
    ['load average at the end (1, 5, 15 min)', r.cpu.loadAverage.join(', ')],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  console.log('');
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
