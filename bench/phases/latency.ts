import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { basic } from '../../test/helpers/http';
import { payin, percentile, sizes } from '../common';

// Creation latency, the API against a bare route (bench/bare-route.ts), both separate processes on
// the same FerretDB and Temporal, measured side by side: one client back to back (the two
// interleaved in slices of 20), then 16 clients at once each (in slices of 64).

export interface LatencyContext {
  apiUrl: string;
  bareUrl: string;
  credentials: { apiKey: string; apiClient: string };
  /** The payins' reference prefix (they are real payins, completed by the worker). */
  prefix: string;
}

const stats = (ms: number[]) => ({
  p50: Math.round(percentile(ms, 50)),
  p99: Math.round(percentile(ms, 99)),
});
/** Largest slice at 16 clients (each side in turn). */
const SLICE_16 = 64;
const CLIENTS = 16;

/**
 * Splits n requests into slices of at most `max`, as even as possible, so no last slice is left
 * smaller than the clients (autocannon refuses more connections than requests).
 */
export function slices(n: number, max: number): number[] {
  const count = Math.ceil(n / max);
  return Array.from(
    { length: count },
    (_, i) => Math.floor(((i + 1) * n) / count) - Math.floor((i * n) / count),
  );
}
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export async function latencyBench({ apiUrl, bareUrl, credentials, prefix }: LatencyContext) {
  const n = sizes.latencyRequests;
  console.log(`latency: ${n} creations each, one client back to back, then 16 clients...`);
  let seq = 0;
  const apiRequest = () => ({
    method: 'POST' as const,
    headers: {
      authorization: basic(credentials),
      'content-type': 'application/json',
      'x-idempotency-key': randomUUID(),
    },
    body: JSON.stringify(payin(`${prefix}-${seq++}`)),
  });
  const timed = async (url: string, init: RequestInit) => {
    const t0 = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`${url}: ${res.status}`);
    return performance.now() - t0;
  };
  const sequential = { api: [] as number[], bare: [] as number[] };
  /** Answers other than 201 at 16 clients, by status (their payins may not exist). */
  const refused = new Map<number, number>();
  for (const slice of slices(n, 20)) {
    for (let i = 0; i < slice; i++)
      sequential.api.push(await timed(`${apiUrl}/v1/direct/payin`, apiRequest()));
    for (let i = 0; i < slice; i++)
      sequential.bare.push(
        await timed(`${bareUrl}/bare`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      );
  }
  const concurrent = async (
    url: string,
    build: () => { method: 'POST'; headers: Record<string, string>; body: string },
    amount: number,
  ) => {
    const latencies: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const run = autocannon(
        {
          url,
          connections: Math.min(CLIENTS, amount),
          amount,
          requests: [{ setupRequest: (req) => ({ ...req, ...build() }) }],
        },
        (err) => (err ? reject(err as Error) : resolve()),
      );
      run.on('response', (_c, status, _b, ms) => {
        latencies.push(ms);
        if (status !== 201) refused.set(status, (refused.get(status) ?? 0) + 1);
      });
    });
    return latencies;
  };
  // Interleaved in slices too: the payins the API creates keep the worker busy for a while, and
  // the bare route measured after all of them would run under that backlog alone.
  const c16Api: number[] = [];
  const c16Bare: number[] = [];
  for (const amount of slices(n, SLICE_16)) {
    c16Api.push(...(await concurrent(`${apiUrl}/v1/direct/payin`, apiRequest, amount)));
    c16Bare.push(
      ...(await concurrent(
        `${bareUrl}/bare`,
        () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
        amount,
      )),
    );
  }
  const side = (api: number[], bare: number[]) => {
    const a = stats(api);
    const b = stats(bare);
    return { api: a, bareRoute: b, ratioP50: ratio(a.p50, b.p50), ratioP99: ratio(a.p99, b.p99) };
  };
  if (refused.size)
    console.log(`latency: answers other than 201 at 16 clients: ${JSON.stringify([...refused])}`);
  console.log(`latency: ${seq} payin requests built`);
  return {
    requests: n,
    oneClient: side(sequential.api, sequential.bare),
    clients16: side(c16Api, c16Bare),
    created: seq,
    /** Creations answered other than 201 at 16 clients, by status. */
    refused: Object.fromEntries(refused),
  };
}
