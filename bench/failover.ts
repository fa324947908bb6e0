// `npm run bench:failover` (docs/benchmarks.md, "Failover between two routes"; issue 43 §5): live
// payins on two pairs side by side, MTN CI with two routes (the simulator's `simulator` and
// `simulator-2`) and MTN CM with one (`simulator`), at the same rate. The first route of both is
// closed (the simulator's outage control) for the middle third of the run. Prints, per pair and
// third: payins created and succeeded, the share that succeeded within BENCH_FAILOVER_SLA seconds,
// and time to success (p50, p95); for the routed pair: failovers, time to eliminate the closed route
// and to notice its recovery; and, from both routes' books, the transactions completed at two
// routes (must be 0). Writes bench-results/failover-<time>.json.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection as TemporalConnection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import type { Connection } from 'mongoose';
import { waitForPort, type LocalServer } from '../src/infra/local-servers';
import { MerchantService } from '../src/merchants';
import { RouteBookStore, type RouteEntry } from '../src/operators/routes/book';
import { ApiClient } from '../test/helpers/http';
import { startReceiver } from '../test/helpers/webhook-receiver';
import { percentile, resultsDir, round, sleep, waitFor } from './common';
import { nodeProcess, stopProcess, waitForPoller } from './processes';
import { benchService, embeddedServers } from './servers';

const seconds = Number(process.env.BENCH_FAILOVER_SECONDS ?? 180);
const ratePerSecond = Number(process.env.BENCH_FAILOVER_RATE ?? 2);
const slaSeconds = Number(process.env.BENCH_FAILOVER_SLA ?? 10);
/** A short window (route measures are per minute) so that elimination and recovery both fit in the run. */
const eliminationWindow = process.env.BENCH_ELIMINATION_WINDOW ?? '1m';

const pairs = [
  { name: 'MTN_CI (2 routes)', country: 'CI' as const, msisdn: '+2250500000001' },
  { name: 'MTN_CM (1 route)', country: 'CM' as const, msisdn: '+237670000001' },
];
const thirds = ['before', 'first route closed', 'after'] as const;

interface Sent {
  reference: string;
  id: string;
  pair: number;
  third: number;
  at: number;
}

const seconds$ = (s: number | null, otherwise: string) => (s === null ? otherwise : `${s} s`);

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'momo-bench-failover-'));
  const servers: LocalServer[] = [];
  const children: ChildProcess[] = [];
  let mongo: Connection | undefined;
  let temporalConn: TemporalConnection | undefined;
  try {
    const embedded = await embeddedServers(dir, {
      ...(process.env.MONGODB_URI ? { mongoUri: process.env.MONGODB_URI } : {}),
      ...(process.env.TEMPORAL_ADDRESS ? { temporalAddress: process.env.TEMPORAL_ADDRESS } : {}),
    });
    servers.push(...embedded.servers);
    const stack = await benchService({
      mongoUri: embedded.mongoUri,
      temporalAddress: embedded.temporalAddress,
      queue: 'bench-failover',
      // A single route's payins refused while its provider is measured closed log as errors: not shown.
      logLevel: 'fatal',
    });
    ({ mongo, temporalConn } = stack);
    const { client, apiPort, apiUrl, simulator, taskQueue, env: common } = stack;
    const env: NodeJS.ProcessEnv = {
      ...common,
      OPERATOR_ROUTES: JSON.stringify({ MTN_CI: ['simulator', 'simulator-2'], MTN_CM: 'simulator' }),
      OPERATOR_TIMEOUT: '1s',
      OPERATOR_FAILOVER_FENCE: '3s',
      ROUTE_ELIMINATION_WINDOW: eliminationWindow,
      PROVIDER_HEALTH_CACHE: '1s',
    };
    children.push(nodeProcess('src/main/worker.ts', env, 'worker'));
    children.push(
      nodeProcess('src/main/api.ts', { ...env, PORT: String(apiPort), HOST: '127.0.0.1' }, 'api'),
    );
    await waitForPort(apiPort, 60_000);
    await waitForPoller(client, taskQueue);

    const merchants = MerchantService.on(mongo);
    await merchants.init();
    const { live } = await merchants.createMerchant('Failover bench merchant');
    const api = new ApiClient(apiUrl, { apiKey: live.apiKey, apiClient: live.apiClient });
    const receiver = await startReceiver();
    const succeededAt = new Map<string, number>();
    receiver.respond = ({ body }) => {
      const event = JSON.parse(body) as { type: string; data: { reference: string } };
      if (event.type === 'payin.completed') succeededAt.set(event.data.reference, Date.now());
      return { status: 200 };
    };
    const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/hooks`, eventTypes: [] });
    if (hook.status !== 201) throw new Error(`webhook registration: ${hook.status}`);

    const control = (state: 'closed' | 'operational') =>
      Promise.all(
        pairs.map((p) =>
          fetch(`${simulator.url}/_sandbox/routes`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ operator: 'MTN', country: p.country, state, forSeconds: 3_600 }),
          }),
        ),
      );

    // Payins at a steady rate on both pairs; the first route closed for the middle third.
    const sent: Sent[] = [];
    const refused: string[] = [];
    const start = Date.now();
    const phaseMs = (seconds * 1000) / 3;
    const marks = { closedAt: start + phaseMs, reopenedAt: start + 2 * phaseMs };
    let third = 0;
    const creations: Promise<void>[] = [];
    for (let n = 0; ; n++) {
      const due = start + (n * 1000) / ratePerSecond;
      if (due >= start + seconds * 1000) break;
      await sleep(Math.max(0, due - Date.now()));
      const now = Date.now();
      if (third === 0 && now >= marks.closedAt) {
        await control('closed');
        marks.closedAt = Date.now();
        third = 1;
      } else if (third === 1 && now >= marks.reopenedAt) {
        await control('operational');
        marks.reopenedAt = Date.now();
        third = 2;
      }
      for (const [i, p] of pairs.entries()) {
        const reference = `failover-${p.country}-${n}-${randomUUID().slice(0, 8)}`;
        const at = Date.now();
        const inThird = third;
        creations.push(
          api
            .post('/v1/direct/payin', {
              reference,
              payin: { amount: 1_000, msisdn: p.msisdn, provider: 'MTN', country: p.country },
              action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
            })
            .then((r) => {
              if (r.status === 201)
                sent.push({ reference, id: String(r.body.id), pair: i, third: inThird, at });
              else refused.push(`${r.status} ${String(r.body.code)}`);
            }),
        );
      }
    }
    await Promise.all(creations);
    console.log(`${sent.length} payins created (${refused.length} refused); waiting for them to end...`);
    await waitFor(() => sent.every((s) => succeededAt.has(s.reference)), 180_000, 'payins').catch(
      () => undefined,
    );

    // The route book of every payin, and the simulator's books of both routes.
    const book = new RouteBookStore(mongo);
    const routes = new Map<string, RouteEntry[]>();
    for (const s of sent) routes.set(s.id, (await book.read('collection', s.id)).entries);
    const completedAt = (r: 0 | 1) =>
      new Set(
        [...simulator.simulator.routes[r]!.transactions.values()]
          .filter((t) => t.kind === 'collection' && t.outcome === 'completed')
          .map((t) => t.id),
      );
    const [atFirst, atSecond] = [completedAt(0), completedAt(1)];
    const atBoth = [...atFirst].filter((id) => atSecond.has(id)).length;

    const table = pairs.flatMap((p, i) =>
      thirds.map((name, t) => {
        const mine = sent.filter((s) => s.pair === i && s.third === t);
        const waits = mine.flatMap((s) =>
          succeededAt.has(s.reference) ? [succeededAt.get(s.reference)! - s.at] : [],
        );
        return {
          pair: p.name,
          third: name,
          created: mine.length,
          succeeded: waits.length,
          withinSla: mine.length
            ? round((100 * waits.filter((w) => w <= slaSeconds * 1000).length) / mine.length)
            : 0,
          p50s: waits.length ? round(percentile(waits, 50) / 1000) : null,
          p95s: waits.length ? round(percentile(waits, 95) / 1000) : null,
          failovers: mine.filter((s) => (routes.get(s.id) ?? []).length > 1).length,
          atSecondRoute: mine.filter((s) => atSecond.has(s.id)).length,
        };
      }),
    );
    // Elimination: the first payin after the closing that the ranking sent to the second route first.
    // Recovery: the first payin after the reopening that the ranking sent to the first route again.
    const routed = sent.filter((s) => s.pair === 0).sort((a, b) => a.at - b.at);
    const firstRoute = (s: Sent) => routes.get(s.id)?.[0];
    const eliminated = routed.find(
      (s) =>
        s.at >= marks.closedAt &&
        firstRoute(s)?.connector === 'simulator-2' &&
        firstRoute(s)?.reason === 'ranked-first',
    );
    const recovered = routed.find(
      (s) =>
        s.at >= marks.reopenedAt &&
        firstRoute(s)?.connector === 'simulator' &&
        firstRoute(s)?.reason === 'ranked-first',
    );
    // How the routed pair's payins were sent, per third: first route and reason (and the failovers).
    const decisions = thirds.map((name, t) => {
      const counts: Record<string, number> = {};
      for (const s of routed.filter((x) => x.third === t)) {
        const [first, second] = routes.get(s.id) ?? [];
        const key = `${first?.connector ?? 'none'} ${first?.reason ?? ''}${second ? ` → ${second.connector}` : ''}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return { third: name, ...counts };
    });
    // The ranking's inputs when the routed pair was last sent to its second route after the reopening.
    const lastAtSecond = routed
      .filter((x) => x.third === 2 && firstRoute(x)?.connector === 'simulator-2')
      .at(-1);
    const result = {
      at: new Date().toISOString(),
      settings: { seconds, ratePerSecond, slaSeconds, eliminationWindow, fence: '3s', operatorTimeout: '1s' },
      table,
      secondsToEliminate: eliminated ? round((eliminated.at - marks.closedAt) / 1000) : null,
      secondsToRecover: recovered ? round((recovered.at - marks.reopenedAt) / 1000) : null,
      decisions,
      rankingAfterReopening: lastAtSecond ? (firstRoute(lastAtSecond)?.ranking ?? null) : null,
      completedAtTwoRoutes: atBoth,
      refused,
      unfinished: sent.filter((s) => !succeededAt.has(s.reference)).length,
    };
    console.table(table);
    console.table(decisions);
    console.log(
      `time to eliminate the closed route: ${seconds$(result.secondsToEliminate, 'never')}; to notice its recovery: ${seconds$(
        result.secondsToRecover,
        'not within the run',
      )} (elimination window ${eliminationWindow})`,
    );
    console.log(`completed at two routes (both routes' books): ${atBoth}; unfinished: ${result.unfinished}`);
    const file = join(resultsDir, `failover-${result.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2));
    console.log(`written ${file}`);
    await receiver.close();
    await simulator.stop();
    if (atBoth > 0) process.exitCode = 1;
  } finally {
    for (const c of children) await stopProcess(c);
    await mongo?.close();
    await temporalConn?.close();
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
