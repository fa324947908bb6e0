import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { connectMongo } from '../src/persistence/mongo';
import { TransactionStore } from '../src/persistence/transactions';
import { RefundStore } from '../src/persistence/refunds';
import { chainKey } from '../src/persistence/read-chains';
import { streamOf, type IndexList } from '../src/persistence/transaction-index';
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
import { storedDirectPayin } from '../test/helpers/payin-input';

// How fast the dashboard's pages answer with BENCH_HOME_STORED (100,000) transactions of one
// merchant spread over the last 30 days (docs/benchmarks.md, Dashboard): GET /home (its first
// fold, then visits), the transaction list as the page asks it (/dashboard/api/v1/transactions:
// first page, a filtered page, a reference), and a timeline. Transactions and their list entries
// are written in bulk in the shape the stores write them; HTTP on loopback, one request at a time.
// `npx tsx bench/dashboard-home.ts` (BENCH_HOME_STORED, BENCH_HOME_REPEAT).

const stored = Number(process.env.BENCH_HOME_STORED ?? 100_000);
const repeat = Number(process.env.BENCH_HOME_REPEAT ?? 40);
/** BENCH_HOME_FOLD=0: the list, search and timeline only (the first fold takes minutes at 100,000). */
const withHome = process.env.BENCH_HOME_FOLD !== '0';
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
    await seed(mongo);
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
    console.table(rows);
  } finally {
    await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
    await mongo.close();
    await ferret.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const idOf = (seq: number) => `p${seq % 5 === 0 ? 'r' : 'i'}_bench${String(seq).padStart(10, '0')}`;

/** Payins and one payout in five, 2% failed, the last 20 pending, over the last 30 days. */
async function seed(mongo: Awaited<ReturnType<typeof connectMongo>>): Promise<void> {
  const db = mongo.db!;
  const txs = db.collection<{ _id: string }>('transactions');
  const entries = db.collection<{ _id: string }>('transaction_index');
  const refs = db.collection<{ _id: string; id: string }>('transaction_refs');
  const heads = new Map<string, number>();
  const start = Date.now() - 30 * DAY_MS + 60_000;
  const step = (30 * DAY_MS - 120_000) / stored;
  for (let i = 0; i < stored; i += 1000) {
    const n = Math.min(1000, stored - i);
    const docs = [];
    const listed: { _id: string }[] = [];
    for (let k = 0; k < n; k++) {
      const seq = i + k;
      const id = idOf(seq);
      const kind = id.startsWith('pr_') ? 'payout' : 'payin';
      const provider = ['MTN_CI', 'ORANGE_CI', 'MOOV_CI', 'WAVE_CI'][seq % 4]!;
      const createdAt = new Date(start + seq * step);
      const status =
        seq >= stored - 20
          ? 'pending'
          : seq % 50 === 0
            ? 'failed'
            : kind === 'payin'
              ? 'success'
              : 'completed';
      docs.push({
        ...storedDirectPayin({ id, merchantId, reference: `ref-${seq}`, workflowId: `${kind}:${id}` }),
        _id: id,
        kind,
        provider,
        status,
        amount: 1000 + (seq % 50) * 100,
        refundIds: [],
        createdAt,
        updatedAt: createdAt,
      });
      const lists: IndexList[] = [
        { by: 'all' },
        { by: 'type', value: kind },
        { by: 'provider', value: provider },
      ];
      for (const list of lists) {
        const stream = streamOf(merchantId, list);
        const at = (heads.get(stream) ?? 0) + 1;
        heads.set(stream, at);
        listed.push({
          _id: chainKey(stream, at),
          stream,
          seq: at,
          member: `${kind}:${id}`,
          at: createdAt,
          max: createdAt,
          doc: { kind, id, ref: `ref-${seq}`, p4: String(1000 + (seq % 9000)) },
        } as { _id: string });
      }
    }
    await txs.insertMany(docs, { ordered: false });
    await entries.insertMany(listed, { ordered: false });
    await refs.insertMany(
      docs.map((d) => ({ _id: `${merchantId}|${d.kind}|${d.reference}`, id: d.id })),
      { ordered: false },
    );
  }
  const hints = db.collection<{ _id: string; seq: number }>('transaction_index_heads');
  for (const [stream, seq] of heads) await hints.replaceOne({ _id: stream }, { seq }, { upsert: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
