import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { connectMongo } from '../src/persistence/mongo';
import { Ledger } from '../src/ledger';
import { fundFromSandbox } from '../src/ledger/postings';
import { TransactionStore } from '../src/persistence/transactions';
import { RefundStore } from '../src/persistence/refunds';
import { StatementStore, type Statement } from '../src/statements/store';
import { generateStatement } from '../src/statements/generate';

// How long a statement of BENCH_STATEMENT_ENTRIES (10,000) ledger entries takes to generate and
// store, in CSV and in JSON, on one FerretDB: what the statement activity does (docs/statements.md).
// `npx tsx bench/statement.ts`.

const entries = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 10_000);
const merchantId = 'mer_0123456789abcdef01234567_test';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-statement-'));
  const port = await freePort();
  const server = await startFerretDB({ dataDir: join(dir, 'data'), port });
  const mongo = await connectMongo(`mongodb://127.0.0.1:${port}/bench`);
  try {
    const ledger = Ledger.on(mongo);
    const transactions = TransactionStore.on(mongo);
    const refunds = RefundStore.on(mongo);
    const statements = StatementStore.on(mongo);
    await Promise.all([ledger.init(), transactions.init(), refunds.init(), statements.init()]);
    const from = new Date(Date.now() - 1000);
    const seeded = Date.now();
    for (let i = 0; i < entries; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, entries - i) }, (_, k) =>
          fundFromSandbox(ledger, {
            merchantId,
            currency: 'XOF',
            amount: i + k + 1,
            reason: `entry ${i + k}`,
          }),
        ),
      );
    console.error(`seeded ${entries} entries in ${Math.round((Date.now() - seeded) / 1000)}s`);
    const account = await ledger.mainAccount(merchantId, 'XOF');
    const rows: Record<string, string | number>[] = [];
    for (const format of ['csv', 'json'] as const) {
      const st: Statement = {
        id: `st_bench_${format}`,
        merchantId,
        accountId: account.id,
        currency: 'XOF',
        from,
        to: new Date(Date.now() + 60_000),
        format,
        status: 'pending',
        createdAt: new Date(),
        readyAt: null,
        openingBalance: null,
        closingBalance: null,
        entryCount: null,
        chunks: null,
        failure: null,
      };
      await statements.insertOrGet(st);
      const start = process.hrtime.bigint();
      const made = await generateStatement({ ledger, transactions, refunds }, st);
      const generatedMs = Number(process.hrtime.bigint() - start) / 1e6;
      const chunks = await statements.putContent(st.id, made.content);
      const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
      rows.push({
        format,
        entries: made.count,
        'generate (ms)': Math.round(generatedMs),
        'generate + store (ms)': Math.round(totalMs),
        'size (KB)': Math.round(Buffer.byteLength(made.content) / 1024),
        chunks,
        // generateStatement throws unless opening + entries = closing.
        opening: made.opening,
        closing: made.closing,
      });
    }
    console.table(rows);
  } finally {
    await mongo.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
