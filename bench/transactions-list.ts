import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { connectMongo } from '../src/persistence/mongo';
import { TransactionStore } from '../src/persistence/transactions';
import { RefundStore } from '../src/persistence/refunds';
import { chainKey } from '../src/persistence/read-chains';
import { streamOf, type IndexList } from '../src/persistence/transaction-index';
import { TransactionSearch } from '../src/services/transaction-search';
import { transactionSearchQuery } from '../src/contract/schemas/transaction-search';
import { storedDirectPayin } from '../test/helpers/payin-input';

// What one page of GET /v1/transactions costs with 1,000 and with BENCH_LIST_STORED (1,000,000)
// stored transactions, side by side in one run on one FerretDB (docs/search.md). The service's
// search and records, without HTTP. Transactions and their list entries are written in bulk in the
// shape the stores write them (running a million workflows would take days).
// `npx tsx bench/transactions-list.ts` (BENCH_LIST_STORED, BENCH_LIST_REPEAT to change the sizes).

const big = Number(process.env.BENCH_LIST_STORED ?? 1_000_000);
const repeat = Number(process.env.BENCH_LIST_REPEAT ?? 20);
const small = 1_000;
const merchantId = 'mer_0123456789abcdef01234567_test';
/** One in this many transactions carries the metadata pair searched for. */
const TAGGED_EVERY = 100;

type Query = Record<string, unknown>;
const queries: Record<string, Query> = {
  'first page, limit 100': { limit: 100 },
  'status=failed (rare, post-filtered)': { limit: 100, status: 'failed' },
  'metadata[campaign]=nov (1 in 100)': { limit: 5, metadata: { campaign: 'nov' } },
  'type=payin': { limit: 100, type: 'payin' },
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-list-'));
  const port = await freePort();
  const server = await startFerretDB({ dataDir: join(dir, 'data'), port });
  const mongo = await connectMongo(`mongodb://127.0.0.1:${port}/bench`);
  try {
    const transactions = TransactionStore.on(mongo);
    const refunds = RefundStore.on(mongo);
    await Promise.all([transactions.init(), refunds.init()]);
    const search = new TransactionSearch({ transactions, refunds });
    const rows: Record<string, string | number>[] = [];
    const heads = new Map<string, number>();
    let stored = 0;
    for (const total of [small, big]) {
      const started = Date.now();
      stored = await seed(mongo, stored, total, heads);
      console.error(`seeded ${total} in ${Math.round((Date.now() - started) / 1000)}s`);
      const row: Record<string, string | number> = { stored: total };
      for (const [name, q] of Object.entries(queries)) row[name] = await pageMs(search, q);
      row['page at the middle (cursor)'] = await pageMs(search, { limit: 100 }, Math.floor(total / 2));
      rows.push(row);
    }
    console.table(rows);
    const [a, b] = rows;
    console.log('ratio (large / small), per query:');
    for (const k of Object.keys(a!).filter((k) => k !== 'stored'))
      console.log(`  ${k}: ${(Number(b![k]) / Number(a![k])).toFixed(2)}`);
  } finally {
    await mongo.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mean milliseconds of one page (search and its records), over `repeat` calls. */
async function pageMs(search: TransactionSearch, query: Query, below?: number): Promise<number> {
  const q = transactionSearchQuery.parse(query);
  const cursor = below ? { s: below, q: '' } : undefined;
  await search.search(merchantId, q, cursor); // warm the head
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) {
    const page = await search.search(merchantId, q, cursor);
    await Promise.all(page.items.map((f) => search.recordOf(f)));
  }
  return Math.round(Number(process.hrtime.bigint() - start) / repeat / 1e5) / 10;
}

/** Stores transactions `from`..`to` and appends them to their lists, as the stores would. */
async function seed(
  mongo: Awaited<ReturnType<typeof connectMongo>>,
  from: number,
  to: number,
  heads: Map<string, number>,
): Promise<number> {
  const db = mongo.db!;
  const txs = db.collection<{ _id: string }>('transactions');
  const entries = db.collection<{ _id: string }>('transaction_index');
  const base = Date.now() - to * 1000;
  for (let i = from; i < to; i += 1000) {
    const n = Math.min(1000, to - i);
    const docs = [];
    const listed: { _id: string }[] = [];
    for (let k = 0; k < n; k++) {
      const seq = i + k;
      const id = `pr_bench${String(seq).padStart(10, '0')}`;
      const tx = {
        ...storedDirectPayin({ id, merchantId, reference: `ref-${seq}`, workflowId: `payin:${id}` }),
        status: seq % 50 === 0 ? 'failed' : 'success',
        refundIds: [],
        createdAt: new Date(base + seq * 1000),
        ...(seq % TAGGED_EVERY === 0 ? { metadata: { campaign: 'nov' } } : {}),
      };
      docs.push({ ...tx, _id: id });
      const lists: IndexList[] = [{ by: 'all' }, { by: 'type', value: 'payin' }];
      if (tx.metadata) lists.push({ by: 'metadata', key: 'campaign', value: 'nov' });
      for (const list of lists) {
        const stream = streamOf(merchantId, list);
        const at = (heads.get(stream) ?? 0) + 1;
        heads.set(stream, at);
        listed.push({
          _id: chainKey(stream, at),
          stream,
          seq: at,
          member: `payin:${id}`,
          at: tx.createdAt,
          doc: { kind: 'payin', id },
        } as { _id: string });
      }
    }
    await txs.insertMany(docs, { ordered: false });
    await entries.insertMany(listed, { ordered: false });
  }
  // The heads' hints, as appends leave them.
  const hints = db.collection<{ _id: string; seq: number }>('transaction_index_heads');
  for (const [stream, seq] of heads) await hints.replaceOne({ _id: stream }, { seq }, { upsert: true });
  return to;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
