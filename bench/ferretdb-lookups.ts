import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, startFerretDB } from '../src/infra/local-servers';

// What one lookup costs on FerretDB 1.24 (SQLite backend) as a collection grows: the evidence
// behind the `_id`-keyed storage (docs/benchmarks.md). `npx tsx bench/ferretdb-lookups.ts [sizes]`.
// Documents are ~300 bytes; each figure is the mean of LOOKUP_REPEAT calls, in milliseconds.

const sizes = (process.argv[2] ?? '100,10000,50000').split(',').map(Number);
const repeat = Number(process.env.LOOKUP_REPEAT ?? 20);

async function mean(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) await fn();
  return Math.round(Number(process.hrtime.bigint() - start) / repeat / 1e5) / 10;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ferretdb-lookups-'));
  const port = await freePort();
  const server = await startFerretDB({ dataDir: join(dir, 'data'), port });
  const client = await MongoClient.connect(`mongodb://127.0.0.1:${port}/lookups`);
  try {
    const rows: Record<string, string | number>[] = [];
    for (const n of sizes) {
      const col = client
        .db('lookups')
        .collection<{ _id: string; key: string; n: number; pad: string }>(`docs_${n}`);
      await col.createIndex({ key: 1 }, { unique: true });
      for (let i = 0; i < n; i += 1000) {
        const batch = Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({
          _id: `id-${i + k}`,
          key: `key-${i + k}`,
          n: i + k,
          pad: 'x'.repeat(250),
        }));
        await col.insertMany(batch);
      }
      const last = n - 1; // the newest row: a scan finds it last
      rows.push({
        documents: n,
        'findOne {_id} (newest)': await mean(() => col.findOne({ _id: `id-${last}` })),
        'findOne {_id} (oldest)': await mean(() => col.findOne({ _id: 'id-0' })),
        'findOne {_id} missing': await mean(() => col.findOne({ _id: 'absent' })),
        'findOne {_id, other}': await mean(() => col.findOne({ _id: `id-${last}`, n: last })),
        'findOne {uniqueKey}': await mean(() => col.findOne({ key: `key-${last}` })),
        'updateOne {_id}': await mean(() => col.updateOne({ _id: `id-${last}` }, { $set: { n: last } })),
        'insertOne (unique checks)': await mean(() =>
          col.insertOne({ _id: `new-${Math.random()}`, key: `k-${Math.random()}`, n: -1, pad: '' }),
        ),
      });
    }
    console.table(rows);
  } finally {
    await client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
