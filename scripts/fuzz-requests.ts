// The requests an API served, by status class, for the fuzz's result (scripts/fuzz.ts): from the
// API in the fuzz's own process, or from the /metrics of the SDK suites' stack (npm run test:sdks --
// --fuzz). Apart from scripts/fuzz.ts, which loads the whole test stack.

export interface Served {
  total: number;
  byStatus: Record<string, number>;
}

/** One `payments_http_request_duration_seconds_count` sample: its route, its status, its count. */
export type Sample = { route: string; status: string; value: number };

/**
 * HTTP requests served, by status class: what the fuzz really sent, checks' extra requests
 * included. Accepted operator callbacks came from the simulator, not the fuzz (which cannot sign
 * them): left out.
 */
export function served(samples: Sample[]): Served {
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const v of samples) {
    if (v.route.startsWith('/operator-callbacks') && v.status.startsWith('2')) continue;
    const cls = `${v.status[0]}xx`;
    byStatus[cls] = (byStatus[cls] ?? 0) + v.value;
    total += v.value;
  }
  return { total, byStatus };
}

/** The samples of an API's GET /metrics (Prometheus text; loopback callers need no token). */
export function requestCountSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^payments_http_request_duration_seconds_count\{(.*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const label = (name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(m[1]!)?.[1] ?? '';
    samples.push({ route: label('route'), status: label('status'), value: Number(m[2]) });
  }
  return samples;
}

/**
 * The requests an API in another process serves from now on (the SDK suites' stack, which served
 * them before the fuzz): its /metrics now, subtracted from its /metrics when asked.
 */
export async function requestsServedFrom(baseUrl: string): Promise<() => Promise<Served>> {
  const read = async () => requestCountSamples(await (await fetch(`${baseUrl}/metrics`)).text());
  const key = (v: Sample) => `${v.route} ${v.status}`;
  const before = new Map((await read()).map((v) => [key(v), v.value]));
  return async () =>
    served((await read()).map((v) => ({ ...v, value: v.value - (before.get(key(v)) ?? 0) })));
}
