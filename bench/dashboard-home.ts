import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { connectMongo } from '../src/persistence/mongo';
import { TransactionStore } from '../src/persistence/transactions';
import { RefundStore } from '../src/persistence/refunds';
import { ReadChains } from '../src/persistence/read-chains';
import { streamOf, type IndexMember } from '../src/persistence/transaction-index';
import { TransactionSearch } from '../src/services/transaction-search';
import { Ledger } from '../src/ledger';
import { MerchantService } from '../src/merchants';
import { EventStore } from '../src/events/event-store';
import { EndpointStore } from '../src/webhooks/endpoint-store';
import { DeliveryLog } from '../src/webhooks/delivery-log';
import { RequestLogStore } from '../src/request-log/store';
import { configSchema } from '../src/config';
import { dashboardDataRoutes } from '../src/dashboard/routes/data';
import { transactionRoutes } from '../src/api/routes/transactions';
import { errorHandler } from '../src/api/problem';
import { seedHistory } from '../test/helpers/seed-history';

// How fast the dashboard's pages answer with BENCH_HOME_STORED (100,000) transactions of one
// merchant spread over the last 30 days (docs/benchmarks.md, Dashboard): GET /home (its first
// fold, then visits), the transaction list as the page asks it (/dashboard/api/v1/transactions:
// first page, a filtered page, a reference), and a timeline. Transactions and their list entries
// are written in bulk in the shape the stores write them; HTTP on loopback, one request at a time.
// `npx tsx bench/dashboard-home.ts` (BENCH_HOME_STORED, BENCH_HOME_REPEAT).

const stored = Number(process.env.BENCH_HOME_STORED ?? 100_000);
const repeat = Number(process.env.BENCH_HOME_REPEAT ?? 40);
/** BENCH_HOME_FOLD=0: the list, search and timeline only. */
const withHome = process.env.BENCH_HOME_FOLD !== '0';
/** Positions walked by `_id` to time the previous first fold (extrapolated to all). */
const walkSample = Number(process.env.BENCH_HOME_WALK_SAMPLE ?? 2_000);
const merchantId = 'mer_0123456789abcdef01234567_test';
const DAY_MS = 86_400_000;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-home-'));
  const port = await freePort();
  const ferret = await startFerretDB({ dataDir: join(dir, 'data'), port });
  const mongo = await connectMongo(`mongodb://127.0.0.1:${port}/bench`);
  let server: Server | undefined;
  try {
    const transactions = TransactionStore.on(mongo);
    const refunds = RefundStore.on(mongo);
    const ledger = Ledger.on(mongo);
    const merchants = MerchantService.on(mongo);
    await Promise.all([transactions.init(), refunds.init(), ledger.init(), merchants.init()]);
    const started = Date.now();
    // Payins and one payout in five, 2% failed, the last 20 pending, over the last 30 days.
    await seedHistory(mongo, {
      merchantId,
      count: stored,
      from: Date.now() - 30 * DAY_MS + 60_000,
      to: Date.now() - 60_000,
      tag: 'bench',
      pending: 20,
    });
    console.error(`seeded ${stored} in ${Math.round((Date.now() - started) / 1000)}s`);

    const app = express();
    app.use((req, _res, next) => {
      req.merchantId = merchantId;
      req.member = {
        id: 'mem_bench',
        email: 'bench@merchant.example',
        name: 'Bench',
        role: 'owner',
        merchantId: 'mer_0123456789abcdef01234567',
        totpEnabled: false,
      };
      next();
    });
    app.use(
      '/dashboard/api',
      dashboardDataRoutes({
        mongo,
        merchants,
        ledger,
        transactions,
        refunds,
        events: EventStore.on(mongo),
        endpoints: EndpointStore.on(mongo, configSchema.parse({}).DATA_ENCRYPTION_KEYS),
        deliveries: DeliveryLog.on(mongo),
        requestLog: RequestLogStore.on(mongo),
      }),
      transactionRoutes(new TransactionSearch({ transactions, refunds })),
    );
    app.use(errorHandler((err) => console.error(err)));
    server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    const addr = server.address();
    const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/dashboard/api`;

    const get = async (path: string) => {
      const t = performance.now();
      const res = await fetch(`${base}${path}`);
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t, body };
    };
    let first = { ms: 0, body: {} as Record<string, unknown> };
    let walked = '';
    let cold = first;
    if (withHome) {
      // The first visit starts the fold and answers `ready: false` past 3 s; visits until it is ready.
      const coldStart = performance.now();
      first = await get('/home');
      cold = first;
      while (cold.body.ready !== true) {
        await new Promise((r) => setTimeout(r, 500));
        cold = await get('/home');
      }
      cold = { ...cold, ms: performance.now() - coldStart };
      console.error(
        `first visit: ${Math.round(first.ms)} ms (ready: ${String(first.body.ready)}); figures ready after ${Math.round(cold.ms)} ms; today ${JSON.stringify(cold.body.today)}`,
      );
    }
    const rows: Record<string, string | number>[] = [];
    const measure = async (name: string, path: string) => {
      await get(path);
      const times: number[] = [];
      for (let i = 0; i < repeat; i++) times.push((await get(path)).ms);
      times.sort((a, b) => a - b);
      const at = (p: number) =>
        Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]! * 10) / 10;
      rows.push({ page: name, p50: at(0.5), p95: at(0.95) });
    };
    if (withHome) await measure('GET /home (after the first fold)', '/home');
    if (withHome) {
      // The first fold before the scan: every position of the window read by `_id`, then its record
      // (a document and a version probe), as many at once as it did. Timed on the last
      // BENCH_HOME_WALK_SAMPLE positions and extrapolated to all of them.
      const chains = new ReadChains<IndexMember>(mongo, 'transaction_index');
      const stream = streamOf(merchantId, { by: 'all' });
      const head = await chains.head(stream);
      const t = performance.now();
      const chunks: number[] = [];
      for (let p = head - walkSample + 1; p <= head; p += 25) chunks.push(p);
      const entries = [];
      for (let i = 0; i < chunks.length; i += 8)
        entries.push(
          ...(await Promise.all(chunks.slice(i, i + 8).map((p) => chains.range(stream, p, p + 24)))).flat(),
        );
      for (let i = 0; i < entries.length; i += 100)
        await Promise.all(entries.slice(i, i + 100).map((e) => transactions.findById(e.doc.id)));
      const ms = performance.now() - t;
      walked = `walking by \`_id\` (the previous first fold): ${walkSample} positions in ${Math.round(ms)} ms, so ${stored} in about ${Math.round((ms * stored) / walkSample / 1000)} s`;
      console.error(walked);
    }
    await measure('transactions, first page (25)', '/v1/transactions?limit=25');
    await measure(
      'transactions, type=payout&status=failed',
      '/v1/transactions?limit=25&type=payout&status=failed',
    );
    await measure(
      'transactions, reference (exact)',
      `/v1/transactions?reference=ref-${Math.floor(stored / 2)}`,
    );
    await measure('search: a part of a reference', `/transactions/search?q=f-${Math.floor(stored / 2)}`);
    await measure('search: last four digits of a number', '/transactions/search?phone=4321');
    await measure('timeline of one payin', `/transactions/${idOf(Math.floor(stored / 10) * 5)}/timeline`);
    console.log(
      `stored: ${stored} transactions of one merchant over 30 days; first visit ${Math.round(first.ms)} ms (ready: ${String(first.body.ready)}), figures ready after ${Math.round(cold.ms)} ms`,
    );
    if (walked) console.log(walked);
    console.table(rows);
  } finally {
    await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
    await mongo.close();
    await ferret.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const idOf = (seq: number) => `p${seq % 5 === 0 ? 'r' : 'i'}_bench${String(seq).padStart(10, '0')}`;

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
