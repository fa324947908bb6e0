import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { basic } from '../../test/helpers/http';
import type { CpuMeter } from '../processes';
import { createdOf, payin, pool, round, sizes, waitFor } from '../common';

// Phases 1 and 2, run in alternating rounds by bench/run.ts: payins created over HTTP and completed
// (success, ledger credit, webhook), and the bound (bare workflows with as many no-op activities).

export interface ThroughputContext {
  apiUrl: string;
  /** An API starting payins with PAYIN_LOCAL_ACTIVITIES=false (BENCH_COMPARE_LOCAL), or null. */
  regularApiUrl: string | null;
  credentials: { apiKey: string; apiClient: string };
  client: Client;
  taskQueue: string;
  bareQueue: string;
  /** The payins' references, bench-0 .. bench-(BENCH_PAYINS - 1). */
  refs: string[];
  /** When each payin's payin.completed webhook arrived, by reference. */
  completedAt: Map<string, number>;
  cpu: CpuMeter;
}

/** The two phases' rounds and the totals they add up to. */
export function throughputPhases({
  apiUrl,
  regularApiUrl,
  credentials,
  client,
  taskQueue,
  bareQueue,
  refs,
  completedAt,
  cpu,
}: ThroughputContext) {
  // Each phase's wall seconds per round; a phase's time is their sum.
  const e2eTotals = {
    createSeconds: 0,
    non2xx: 0,
    /** Creations answered other than 2xx that created no payin (not waited for). */
    neverCreated: 0,
    latencies: [] as number[],
    cpu: {},
    rounds: [] as number[],
  };
  const regularTotals = {
    createSeconds: 0,
    non2xx: 0,
    /** Creations answered other than 2xx that created no payin (not waited for). */
    neverCreated: 0,
    latencies: [] as number[],
    cpu: {},
    rounds: [] as number[],
  };
  const boundTotals = { cpu: {}, rounds: [] as number[] };
  const minimalTotals = { cpu: {}, rounds: [] as number[] };
  const addCpu = (into: Record<string, number | null>, add: Record<string, number | null>) => {
    for (const [k, v] of Object.entries(add))
      into[k] = v === null || into[k] === null ? null : round((into[k] ?? 0) + v);
  };

  /** Payins `from`..`from + count - 1` created over HTTP; done when each one's webhook arrived. */
  const payinRound =
    (url: string, totals: typeof e2eTotals, prefix: string) => async (from: number, count: number) => {
      console.log(`1/5 ${prefix} payins ${from}..${from + count - 1} at concurrency ${sizes.concurrency}...`);
      let seq = from;
      const before = cpu.snapshot();
      const start = Date.now();
      const created = await new Promise<autocannon.Result>((resolve, reject) => {
        const run = autocannon(
          {
            url,
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
                  body: JSON.stringify(payin(`${prefix}-${seq++}`)),
                }),
              },
            ],
          },
          (err, result) => (err ? reject(err as Error) : resolve(result)),
        );
        // Every creation's latency, so the percentiles cover all rounds (autocannon's are per run).
        run.on('response', (_client, _status, _bytes, ms) => totals.latencies.push(ms));
      });
      totals.createSeconds += (Date.now() - start) / 1000;
      totals.non2xx += created.non2xx;
      const asked = refs.slice(from, from + count).map((r) => r.replace(/^bench-/, `${prefix}-`));
      const mine = created.non2xx ? await createdOf(url, credentials, asked) : asked;
      totals.neverCreated += asked.length - mine.length;
      await waitFor(() => mine.every((r) => completedAt.has(r)), 600_000, 'payins completed');
      totals.rounds.push((Math.max(...mine.map((r) => completedAt.get(r)!)) - start) / 1000);
      addCpu(totals.cpu, cpu.since(before));
    };
  const e2eRound = payinRound(apiUrl, e2eTotals, 'bench');
  // The same payins through an API that starts them with regular activities only.
  const regularRound = regularApiUrl ? payinRound(regularApiUrl, regularTotals, 'regular') : null;

  /** Bare workflows `from`..: started like the payins are created (a slot frees once started). */
  const bareRound =
    (totals: typeof boundTotals, prefix: string) =>
    async (from: number, count: number, activities: number) => {
      console.log(
        `2/5 ${prefix} workflows ${from}..${from + count - 1} of ${activities} no-op activities...`,
      );
      const before = cpu.snapshot();
      const start = Date.now();
      const handles: WorkflowHandle[] = [];
      await pool(refs.slice(from, from + count), sizes.concurrency, async (_r, i) => {
        handles[i] = await client.workflow.start('bareWorkflow', {
          taskQueue: bareQueue,
          workflowId: `${prefix}-${taskQueue}-${from + i}`,
          args: [activities],
        });
      });
      await Promise.all(handles.map((h) => h.result()));
      totals.rounds.push((Date.now() - start) / 1000);
      addCpu(totals.cpu, cpu.since(before));
    };
  // Today's bound: as many no-op activities as a payin ran before issue 20; the minimal durable
  // transaction: start, one no-op activity, complete (the orchestrator's own floor on this machine).
  const boundRound = bareRound(boundTotals, 'bare');
  const minimalRound = bareRound(minimalTotals, 'minimal');
  return {
    e2eTotals,
    regularTotals,
    boundTotals,
    minimalTotals,
    e2eRound,
    regularRound,
    boundRound,
    minimalRound,
  };
}
