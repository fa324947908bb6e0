import { join } from 'node:path';
import { repoRoot } from '../src/infra/tools';
import { basic } from '../test/helpers/http';

// Sizes and small helpers the bench's phases share (bench/run.ts).

const int = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const sizes = {
  /** Issue size: 2,000. */
  payins: int('BENCH_PAYINS', 300),
  concurrency: int('BENCH_CONCURRENCY', 16),
  /** Issue size: 100,000. */
  stored: int('BENCH_STORED', 10_000),
  /** Rounds in which end-to-end payins and the bound alternate (each a share of `payins`). */
  rounds: Math.max(1, int('BENCH_ROUNDS', 4)),
  readSeconds: int('BENCH_READ_SECONDS', 5),
  postings: int('BENCH_POSTINGS', 500),
  /** Activities of today's bound: what a payin's workflow ran before issue 20 cut it (7). */
  boundActivities: int('BENCH_BOUND_ACTIVITIES', 7),
  /** Creations per client in the latency phase, one client back to back, then 16 at once. */
  latencyRequests: int('BENCH_LATENCY_REQUESTS', 200),
  /**
   * 1: a second API starts payins with PAYIN_LOCAL_ACTIVITIES=false, and its payins take their turn
   * in every round: local activities against regular ones, side by side (embedded topology).
   */
  compareLocal: process.env.BENCH_COMPARE_LOCAL === '1',
  /** 1: the Temporal server dispatches activities eagerly (system.enableActivityEagerExecution). */
  eagerActivities: process.env.BENCH_EAGER_ACTIVITIES === '1',
};
export const profile = process.env.BENCH_PROFILE === '1';
export const resultsDir = join(repoRoot, 'bench-results');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function pool<T>(
  items: T[],
  width: number,
  fn: (item: T, i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export const round = (x: number) => Math.round(x * 10) / 10;

/** The p-th percentile (nearest rank) of the values, in their unit. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done in ${timeoutMs} ms`);
    await sleep(100);
  }
}

export function payin(reference: string) {
  return {
    reference,
    sandboxScenario: 'completed',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  };
}

/**
 * Of the payins `refs`, those the API knows. A creation answered other than 201 (a 502 from the
 * balancer, a 503) may have created nothing: the bench waits for the webhooks of what exists and
 * counts the rest, rather than waiting for what was never created.
 */
export async function createdOf(
  apiUrl: string,
  credentials: { apiKey: string; apiClient: string },
  refs: string[],
): Promise<string[]> {
  const known: string[] = [];
  await pool(refs, 8, async (ref) => {
    const res = await fetch(`${apiUrl}/v1/payin/${encodeURIComponent(ref)}`, {
      headers: { authorization: basic(credentials) },
    });
    await res.arrayBuffer();
    if (res.status === 200) known.push(ref);
    else if (res.status !== 404) throw new Error(`GET payin ${ref}: ${res.status}`);
  });
  return known;
}
