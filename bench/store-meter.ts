// Store commands counted where every process's commands arrive: FerretDB's own request counters
// (`ferretdb_client_requests_total` on its debug listener, /debug/metrics), so the API's and the
// workers' commands are seen without instrumenting them. The bench's own queries are kept out of
// the windows it measures.

export type StoreMeter = () => Promise<number>;

/** The total of FerretDB's client requests so far (every command of every connection). */
export function storeMeter(debugAddr: string): StoreMeter {
  return async () => {
    const text = await (await fetch(`http://${debugAddr}/debug/metrics`)).text();
    let total = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith('ferretdb_client_requests_total')) continue;
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return total;
  };
}

/**
 * The commands `fn` causes: the counter's difference over it, less what the stack does when idle
 * (pollers, schedules) over as long, measured just before.
 */
export async function commandsOf(meter: StoreMeter, fn: () => Promise<void>): Promise<number> {
  const idleMs = 1_000;
  const idleFrom = await meter();
  await new Promise((r) => setTimeout(r, idleMs));
  const idlePerMs = ((await meter()) - idleFrom) / idleMs;
  const from = await meter();
  const start = Date.now();
  await fn();
  const used = (await meter()) - from;
  return Math.max(0, Math.round(used - idlePerMs * (Date.now() - start)));
}
