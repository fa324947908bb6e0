import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import {
  freePort,
  startFerretDBOnPostgres,
  startPostgres,
  type LocalServer,
} from '../../src/infra/local-servers';
import { postgresBinDir } from '../../src/infra/tools';

// FerretDB on its PostgreSQL backend, as docker-compose.yml and the production bench run it: a lookup
// by `_id` must use the collection's unique `_id` index, not scan the table (scripts/provision patches
// FerretDB 1.24's pushdown; without it a status read grew linearly with the stored documents).
// Needs Debian's PostgreSQL (`bash scripts/provision production` checks it); skipped without it.
const havePostgres = (() => {
  try {
    postgresBinDir();
    return true;
  } catch {
    return false;
  }
})();

(havePostgres ? describe : describe.skip)('FerretDB on PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferretdb-pg-'));
  const servers: LocalServer[] = [];
  let pgPort = 0;
  let client: MongoClient;
  const psql = (sql: string) =>
    execFileSync(
      'psql',
      ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', '-d', 'ferretdb', '-At', '-c', sql],
      { encoding: 'utf8' },
    ).trim();

  beforeAll(async () => {
    pgPort = await freePort();
    servers.push(await startPostgres({ dataDir: join(dir, 'pg'), port: pgPort }));
    const port = await freePort();
    servers.push(await startFerretDBOnPostgres({ pgPort, port, stateDir: join(dir, 'ferretdb') }));
    client = await MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds documents by _id through the _id index, never a table scan', async () => {
    // Enough pages that PostgreSQL's planner never prefers a scan for a one-row lookup.
    const docs = client.db('probe').collection<{ _id: string; n: number; pad: string }>('docs');
    const pad = 'x'.repeat(200);
    for (let from = 0; from < 3_000; from += 500)
      await docs.insertMany(
        Array.from({ length: 500 }, (_, i) => ({ _id: `d_${from + i}`, n: from + i, pad })),
      );
    const table = psql(
      `select table_name from information_schema.tables where table_schema = 'probe' and table_name like 'docs%'`,
    );
    // PostgreSQL counts scans per table; a backend may hold its counts up to 10 s before reporting
    // them (PGSTAT_IDLE_INTERVAL), so each reading waits that long after the last query.
    const scans = async (): Promise<{ seq: number; idx: number }> => {
      await new Promise((r) => setTimeout(r, 11_000));
      const [seq, idx] = psql(`select seq_scan, idx_scan from pg_stat_user_tables where relname = '${table}'`)
        .split('|')
        .map(Number);
      return { seq: seq!, idx: idx! };
    };
    await docs.findOne({ _id: 'd_1' }); // the first query of a fresh table, planned before its statistics
    const before = await scans();
    for (const n of [0, 7, 1_500, 2_999])
      expect(await docs.findOne({ _id: `d_${n}` })).toEqual({ _id: `d_${n}`, n, pad });
    expect(await docs.findOne({ _id: 'd_missing' })).toBeNull();
    const after = await scans();
    expect({ seqScans: after.seq - before.seq, indexScans: after.idx - before.idx }).toEqual({
      seqScans: 0,
      indexScans: 5,
    });
    // Other filters are FerretDB's own, unchanged: still answered right.
    expect(await docs.countDocuments({ n: { $gte: 2_990 } })).toBe(10);
  }, 90_000);
});
