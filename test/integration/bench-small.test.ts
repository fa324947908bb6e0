import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { repoRoot } from '../../src/infra/tools';

// `npm run bench` as documented, end to end at a small size (about 40 s on 2 cores). 8 latency
// requests are fewer than the phase's 16 clients: the slice/connection case that once crashed it.
jest.setTimeout(240_000);

it('npm run bench runs at a small size and writes its results', async () => {
  const { stdout } = await promisify(execFile)('npm', ['run', 'bench'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      BENCH_PAYINS: '8',
      BENCH_CONCURRENCY: '4',
      BENCH_ROUNDS: '1',
      BENCH_STORED: '200',
      BENCH_READ_SECONDS: '1',
      BENCH_POSTINGS: '20',
      BENCH_LATENCY_REQUESTS: '8',
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  const written = /written: (\S+\.json)/.exec(stdout)?.[1];
  expect(written).toBeDefined();
  const results = JSON.parse(readFileSync(written!, 'utf8')) as {
    latency: { requests: number };
    perKind: Record<string, { storeCommands: number; temporalEvents: number }>;
    cpuPerPayin: Record<string, number | null>;
  };
  expect(results.latency.requests).toBe(8);
  // Issue 31 item 4: store commands and Temporal events per kind, CPU per payin per process.
  expect(Object.keys(results.perKind)).toEqual(['direct payin', 'session payin', 'payout', 'refund']);
  for (const kind of Object.values(results.perKind)) {
    expect(kind.storeCommands).toBeGreaterThan(0);
    expect(kind.temporalEvents).toBeGreaterThan(0);
  }
  expect(results.cpuPerPayin.worker).toBeGreaterThan(0);
}, 240_000);
