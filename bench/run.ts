// `npm run bench`: end-to-end figures measured side by side in one run, on one stack (docs/benchmarks.md).
// Starts FerretDB and the Temporal dev server (unless MONGODB_URI / TEMPORAL_ADDRESS are set), the
// operator simulator, the API and the worker as separate processes, then measures:
//   1. payins created over HTTP and completed (success, ledger credit, webhook) per second
//   2. two bounds on the same server: today's (a bare workflow with the 7 no-op activities a payin
//      ran before issue 20) and the minimal durable transaction (start, one no-op activity, end)
//   and creation latency: the API against a bare route (one insert, one workflow start)
//   3. Temporal history events and billable actions per payin, payout and refund
//   4. status reads with 1,000 and with BENCH_STORED stored transactions
//   5. ledger postings on one hot account and spread over 100 accounts
// Prints a table and writes bench-results/bench-<time>.json. Sizes: see `sizes` in bench/common.ts.
// Each phase lives in bench/phases/; the stack's processes in bench/processes.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection as TemporalConnection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import type { Connection } from 'mongoose';
import { repoRoot } from '../src/infra/tools';
import { modeOfApiKey, scopeOf } from '../src/domain/modes';
import {
  freeLowPort,
  freePort,
  startFerretDBOnPostgres,
  startPostgres,
  startTemporalServer,
  waitForPort,
  type LocalServer,
} from '../src/infra/local-servers';
import { MerchantService } from '../src/merchants';
import { ApiClient } from '../test/helpers/http';
import { startReceiver } from '../test/helpers/webhook-receiver';
import { createdOf, payin, percentile, profile, resultsDir, round, sizes, waitFor } from './common';
import {
  activityLatencies,
  cpuMeter,
  nodeProcess,
  stopProcess,
  topFunctions,
  waitForPoller,
} from './processes';
import { ledgerBench } from './phases/ledger';
import { readBench, storeSynthetic } from './phases/reads';
import {
  cost as measureTemporalCostOf,
  measureCost as measureTemporalCost,
  timeline,
} from './phases/temporal-cost';
import { throughputPhases } from './phases/throughput';
import { latencyBench } from './phases/latency';
import { printTable } from './report';
import { benchService, embeddedServers } from './servers';
import { storeMeter } from './store-meter';

/**
 * `embedded` (default): FerretDB on SQLite, the Temporal dev server, one API, one worker.
 * `production`: what docker-compose.yml describes, as local processes: PostgreSQL, a Temporal server
 * on it, FerretDB on its PostgreSQL backend, two APIs behind a proxy, two workers.
 */
const topologyArg = process.argv.indexOf('--topology');
const topology = topologyArg >= 0 ? process.argv[topologyArg + 1] : 'embedded';
if (topology !== 'embedded' && topology !== 'production')
  throw new Error(`--topology embedded|production, not ${topology}`);
const production = topology === 'production';

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  if (profile) rmSync(join(resultsDir, 'profiles'), { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'momo-bench-'));
  const servers: LocalServer[] = [];
  const children: ChildProcess[] = [];
  let mongo: Connection | undefined;
  let temporalConn: TemporalConnection | undefined;
  try {
    // FerretDB's debug listener: its command counters give the store commands per kind (phase 3).
    const ferretDebugAddr = `127.0.0.1:${await freePort()}`;
    const eager = sizes.eagerActivities ? ['system.enableActivityEagerExecution'] : [];
    let mongoUri = process.env.MONGODB_URI;
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    if (production) {
      // Builds the Temporal server once (cached); checks Debian's PostgreSQL.
      execFileSync('bash', [join(repoRoot, 'scripts/provision'), 'production'], { stdio: 'inherit' });
      console.log('production topology: PostgreSQL, Temporal server, FerretDB on PostgreSQL...');
      const pgPort = await freePort();
      servers.push(await startPostgres({ dataDir: join(dir, 'pg'), port: pgPort }));
      const temporalPort = await freeLowPort();
      servers.push(
        await startTemporalServer({
          dataDir: join(dir, 'temporal'),
          pgPort,
          port: temporalPort,
          namespace: 'default',
          enable: eager,
        }),
      );
      temporalAddress = `127.0.0.1:${temporalPort}`;
      const mongoPort = await freePort();
      servers.push(
        await startFerretDBOnPostgres({
          pgPort,
          port: mongoPort,
          stateDir: join(dir, 'ferretdb'),
          debugAddr: ferretDebugAddr,
        }),
      );
      mongoUri = `mongodb://127.0.0.1:${mongoPort}/bench`;
    }
    const embedded = await embeddedServers(dir, {
      ...(mongoUri ? { mongoUri } : {}),
      ...(temporalAddress ? { temporalAddress } : {}),
      ferretDebugAddr,
      dynamicConfig: eager.map((k) => `${k}=true`),
    });
    servers.push(...embedded.servers);
    ({ mongoUri, temporalAddress } = embedded);
    const stack = await benchService({
      mongoUri,
      temporalAddress,
      queue: 'bench',
      logLevel: 'warn',
    });
    ({ mongo, temporalConn } = stack);
    const { client, apiPort, apiUrl, simulator, taskQueue, env: common } = stack;
    // The service's processes: one API and one worker, or in production two of each, the APIs
    // behind a proxy (bench/proxy.ts) on apiPort. Named for the CPU table.
    const service: Record<string, ChildProcess> = {};
    const apiPorts: number[] = [];
    const metricsPort = async () => `127.0.0.1:${await freePort()}`;
    // Each worker's Temporal exporter, read at the end for the time per activity type.
    const workerMetrics = [common.TEMPORAL_METRICS_ADDRESS!];
    service.worker = nodeProcess('src/main/worker.ts', common, 'worker');
    if (production) {
      workerMetrics.push(await metricsPort());
      service['worker 2'] = nodeProcess(
        'src/main/worker.ts',
        { ...common, TEMPORAL_METRICS_ADDRESS: workerMetrics[1] },
        'worker-2',
      );
      apiPorts.push(await freePort(), await freePort());
      apiPorts.forEach((port, i) => {
        service[`api ${i + 1}`] = nodeProcess(
          'src/main/api.ts',
          { ...common, PORT: String(port), HOST: '127.0.0.1', TRUST_PROXY: 'loopback' },
          `api-${i + 1}`,
        );
      });
      for (const port of apiPorts) await waitForPort(port, 60_000);
    } else {
      service.api = nodeProcess(
        'src/main/api.ts',
        { ...common, PORT: String(apiPort), HOST: '127.0.0.1' },
        'api',
      );
    }
    // BENCH_COMPARE_LOCAL: the same payins started with regular activities only, by an API of their own.
    let regularApiUrl: string | null = null;
    if (sizes.compareLocal) {
      const port = await freePort();
      service['api (regular)'] = nodeProcess(
        'src/main/api.ts',
        { ...common, PORT: String(port), HOST: '127.0.0.1', PAYIN_LOCAL_ACTIVITIES: 'false' },
        'api-regular',
      );
      await waitForPort(port, 60_000);
      regularApiUrl = `http://127.0.0.1:${port}`;
    }
    children.push(...Object.values(service));
    const bareQueue = `${taskQueue}-bare`;
    const bareWorker = nodeProcess(
      'bench/bare-worker.ts',
      { ...common, TEMPORAL_TASK_QUEUE: bareQueue },
      'bare-worker',
    );
    children.push(bareWorker);
    const barePort = await freePort();
    children.push(
      nodeProcess(
        'bench/bare-route.ts',
        { ...common, TEMPORAL_TASK_QUEUE: bareQueue, PORT: String(barePort) },
        'bare-route',
      ),
    );
    await waitForPort(barePort, 60_000);
    // On the production topology the bare route is reached through the APIs' proxy, like for like.
    if (production) {
      service.proxy = nodeProcess(
        'bench/proxy.ts',
        {
          ...common,
          PORT: String(apiPort),
          UPSTREAMS: apiPorts.map((p) => `http://127.0.0.1:${p}`).join(','),
          BARE_UPSTREAM: `http://127.0.0.1:${barePort}`,
        },
        'proxy',
      );
      children.push(service.proxy);
    }
    await waitForPort(apiPort, 60_000);
    await waitForPoller(client, taskQueue);
    await waitForPoller(client, bareQueue);

    const merchants = MerchantService.on(mongo);
    await merchants.init();
    const created = await merchants.createMerchant('Bench merchant');
    const { apiKey, apiClient } = created;
    // The sandbox key works in the merchant's test scope: its records and workflow ids carry that id.
    const merchantId = scopeOf(created.merchantId, modeOfApiKey(apiKey));
    const credentials = { apiKey, apiClient };
    const api = new ApiClient(apiUrl, credentials);
    const receiver = await startReceiver();
    const completedAt = new Map<string, number>();
    const webhooks: { type: string; reference: string }[] = [];
    receiver.respond = ({ body }) => {
      const event = JSON.parse(body) as { type: string; data: { reference: string } };
      webhooks.push({ type: event.type, reference: event.data.reference });
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

    const cpu = cpuMeter(
      {
        ...Object.fromEntries(
          servers.filter((s) => s.name !== 'PostgreSQL').map((s) => [s.name, s.process.pid]),
        ),
        ...Object.fromEntries(Object.entries(service).map(([name, c]) => [name, c.pid])),
        'bare worker': bareWorker.pid,
      },
      // PostgreSQL serves each connection in a process of its own: the whole tree.
      Object.fromEntries(servers.filter((s) => s.name === 'PostgreSQL').map((s) => [s.name, s.process.pid])),
    );

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
    const {
      e2eTotals,
      regularTotals,
      boundTotals,
      minimalTotals,
      e2eRound,
      regularRound,
      boundRound,
      minimalRound,
    } = throughputPhases({
      apiUrl,
      regularApiUrl,
      credentials,
      client,
      taskQueue,
      bareQueue,
      refs,
      completedAt,
      cpu,
    });
    const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);

    // 3. Temporal cost per transaction (before the first bound round: it uses the payin's activity count).
    const db = mongo; // narrowed for the closure below
    const endpointId = (hook.body as { id: string }).id;
    const meter = storeMeter(ferretDebugAddr);
    const measureCost = () =>
      measureTemporalCost({ client, api, mongo: db, merchantId, endpointId, webhooks, meter });

    let costs: Awaited<ReturnType<typeof measureCost>> | undefined;
    let from = 0;
    const bound = (f: number, n: number) => boundRound(f, n, sizes.boundActivities);
    const minimal = (f: number, n: number) => minimalRound(f, n, 1);
    for (const [r, count] of shares.entries()) {
      // The three phases rotate their order from round to round, so drift weighs on each alike.
      const phases = [e2eRound, ...(regularRound ? [regularRound] : []), bound, minimal];
      const order = phases.map((_, i) => phases[(i + r) % phases.length]!);
      for (const phase of order) {
        await phase(from, count);
        if (phase === e2eRound) costs ??= await measureCost();
      }
      from += count;
    }
    const { payinCost, payinOwn, payinDeliveries, sessionCost, payoutCost, refundCost, storeCommands } =
      costs!;
    // The regular-activities payin's own history, for the events it costs against the local one.
    const regularOwn = regularRound
      ? await measureTemporalCostOf(client, [`payin:${merchantId}:regular-0`])
      : null;

    // Creation latency, the API against a bare route; its payins are completed before the reads.
    const latency = await latencyBench({
      apiUrl,
      bareUrl: production ? apiUrl : `http://127.0.0.1:${barePort}`,
      credentials,
      prefix: 'lat',
    });
    const latencyRefs = Array.from({ length: latency.created }, (_, i) => `lat-${i}`);
    const latencyCreated = Object.keys(latency.refused).length
      ? await createdOf(apiUrl, credentials, latencyRefs)
      : latencyRefs;
    const latencyNeverCreated = latencyRefs.length - latencyCreated.length;
    if (latencyNeverCreated) console.log(`latency: ${latencyNeverCreated} creations refused created nothing`);
    await waitFor(() => latencyCreated.every((r) => completedAt.has(r)), 600_000, 'latency payins completed');
    const e2eSeconds = sum(e2eTotals.rounds);
    const boundSeconds = sum(boundTotals.rounds);
    const e2eCpuSeconds = e2eTotals.cpu;
    const boundCpuSeconds = boundTotals.cpu;
    const boundPerSecond = round(sizes.payins / boundSeconds);
    const minimalSeconds = sum(minimalTotals.rounds);
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
      neverCreated: e2eTotals.neverCreated,
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
      topology,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      sizes,
      e2e,
      bound: {
        workflows: sizes.payins,
        activitiesPerWorkflow: sizes.boundActivities,
        workflowsPerSecond: boundPerSecond,
      },
      minimal: {
        workflows: sizes.payins,
        activitiesPerWorkflow: 1,
        workflowsPerSecond: round(sizes.payins / minimalSeconds),
      },
      /** Wall seconds of each round, in the order run (e2e first in even rounds, bound first in odd). */
      rounds: {
        payinsPerRound: shares,
        e2eSeconds: e2eTotals.rounds.map(round),
        boundSeconds: boundTotals.rounds.map(round),
        minimalSeconds: minimalTotals.rounds.map(round),
      },
      // From the unrounded rates (the same payin count over the two wall times), to two decimals.
      ratioE2eToBound: Math.round((boundSeconds / e2eSeconds) * 100) / 100,
      ratioE2eToMinimal: Math.round((minimalSeconds / e2eSeconds) * 100) / 100,
      /** CPU seconds per process during each phase (wall seconds alongside), and the load average. */
      cpu: {
        e2e: { wallSeconds: round(e2eSeconds), ...e2eCpuSeconds },
        bound: { wallSeconds: round(boundSeconds), ...boundCpuSeconds },
        minimal: { wallSeconds: round(minimalSeconds), ...minimalTotals.cpu },
        loadAverage: (await import('node:os')).loadavg().map(round),
      },
      temporalCost: {
        payin: payinCost,
        payinWorkflowOnly: payinOwn,
        session: sessionCost,
        payout: payoutCost,
        refund: refundCost,
      },
      /** Per kind, one whole life (webhooks included): store commands alone, Temporal events. */
      perKind: {
        'direct payin': { storeCommands: storeCommands.payin, temporalEvents: payinCost.historyEvents },
        'session payin': { storeCommands: storeCommands.session, temporalEvents: sessionCost.historyEvents },
        payout: { storeCommands: storeCommands.payout, temporalEvents: payoutCost.historyEvents },
        refund: { storeCommands: storeCommands.refund, temporalEvents: refundCost.historyEvents },
      },
      /** CPU seconds per payin of each process during the payins (phase 1). */
      cpuPerPayin: perPayin(e2eCpuSeconds, sizes.payins),
      /** BENCH_COMPARE_LOCAL: the same payins with regular activities only, in the same rounds. */
      regularActivities: regularRound
        ? {
            completedPerSecond: round(sizes.payins / sum(regularTotals.rounds)),
            /** Local activities' payins/s over regular ones' (> 1: local faster). */
            ratioLocalToRegular: Math.round((sum(regularTotals.rounds) / e2eSeconds) * 100) / 100,
            ratioToMinimal: Math.round((minimalSeconds / sum(regularTotals.rounds)) * 100) / 100,
            createLatencyMs: {
              p50: Math.round(percentile(regularTotals.latencies, 50)),
              p99: Math.round(percentile(regularTotals.latencies, 99)),
            },
            payinWorkflowOnly: regularOwn,
            rounds: regularTotals.rounds.map(round),
            cpuPerPayin: perPayin(regularTotals.cpu, sizes.payins),
          }
        : null,
      eagerActivities: sizes.eagerActivities,
      latency: { ...latency, neverCreated: latencyNeverCreated },
      reads: { at1k: reads1k, atStored: readsBig, ratio: round(readsBig.perSecond / reads1k.perSecond) },
      ledger: ledgerFigures,
      timelines,
      /** Mean execution time per activity type over the whole run, all workers. */
      activities: await activityLatencies(workerMetrics),
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
    const out = join(resultsDir, `bench-${topology}-${results.at.replace(/[:.]/g, '-')}.json`);
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

/** CPU seconds per payin, each process (three decimals). */
function perPayin(cpu: Record<string, number | null>, payins: number): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(cpu).map(([k, v]) => [k, v === null ? null : Math.round((v / payins) * 1000) / 1000]),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
