// `npm run bench:tracing`: what OpenTelemetry tracing costs per payin (docs/benchmarks.md#tracing).
// On one FerretDB and one Temporal dev server, two copies of the service (an API and a worker each),
// one with OTEL_TRACES_EXPORTER=none, one exporting every span by OTLP to a receiver here; batches
// of direct payins alternate between them (off, on, on, off, ...) so drift weighs on both alike,
// and each batch's CPU is read per process from /proc. Prints CPU-s per payin, off and on.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { waitForPort } from '../src/infra/local-servers';
import { MerchantService } from '../src/merchants';
import { ApiClient } from '../test/helpers/http';
import { payin, pool, round } from './common';
import { cpuMeter, nodeProcess, stopProcess, waitForPoller } from './processes';
import { benchService, embeddedServers } from './servers';

const payins = Number(process.env.BENCH_PAYINS ?? 120);
const batches = Number(process.env.BENCH_ROUNDS ?? 4) * 2;
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'momo-bench-tracing-'));
  const children: ChildProcess[] = [];
  const embedded = await embeddedServers(dir, {});
  // The spans' destination: counted and dropped, as a collector would take them.
  let spanBytes = 0;
  const collector = createServer((req, res) => {
    req.on('data', (c: Buffer) => (spanBytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const otlp = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  try {
    const copies = [] as {
      name: 'off' | 'on';
      api: ApiClient;
      processes: Record<string, ChildProcess>;
      cpu: Record<string, number>;
      done: number;
    }[];
    for (const name of ['off', 'on'] as const) {
      const stack = await benchService({
        mongoUri: embedded.mongoUri,
        temporalAddress: embedded.temporalAddress,
        queue: `tracing-${name}`,
        logLevel: 'warn',
      });
      const env = {
        ...stack.env,
        OTEL_TRACES_EXPORTER: name === 'on' ? 'otlp' : 'none',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp,
      };
      const processes = {
        worker: nodeProcess('src/main/worker.ts', env, `tracing-${name}-worker`),
        api: nodeProcess(
          'src/main/api.ts',
          { ...env, PORT: String(stack.apiPort), HOST: '127.0.0.1' },
          `tracing-${name}-api`,
        ),
      };
      children.push(...Object.values(processes));
      await waitForPort(stack.apiPort, 60_000);
      await waitForPoller(stack.client, stack.taskQueue);
      const merchants = MerchantService.on(stack.mongo);
      await merchants.init();
      const created = await merchants.createMerchant(`Tracing ${name}`);
      const api = new ApiClient(stack.apiUrl, { apiKey: created.apiKey, apiClient: created.apiClient });
      copies.push({ name, api, processes, cpu: {}, done: 0 });
    }
    const run = async (copy: (typeof copies)[number], refs: string[]) => {
      await pool(refs, concurrency, async (ref) => {
        const res = await copy.api.post('/v1/direct/payin', payin(ref));
        if (res.status !== 201) throw new Error(`${ref}: ${res.status}`);
        for (;;) {
          const read = await copy.api.get(`/v1/payin/${ref}`);
          if (read.body.status === 'success') break;
          if (read.body.status === 'failed') throw new Error(`${ref} failed`);
          await new Promise((r) => setTimeout(r, 200));
        }
      });
    };
    // Warm-up: each copy compiles its code paths before it is measured.
    for (const copy of copies)
      await run(
        copy,
        [0, 1, 2, 3, 4].map((i) => `warm-${copy.name}-${i}`),
      );
    const perBatch = Math.ceil(payins / batches) * 2;
    for (let b = 0; b < batches; b++) {
      // off, on, on, off, off, on...: each copy goes first as often as second.
      const copy = copies[[0, 1, 1, 0][b % 4]!]!;
      const meter = cpuMeter({
        ...Object.fromEntries(embedded.servers.map((s) => [s.name, s.process.pid])),
        ...Object.fromEntries(Object.entries(copy.processes).map(([n, p]) => [n, p.pid])),
      });
      const before = meter.snapshot();
      await run(
        copy,
        Array.from({ length: perBatch }, (_, i) => `b${b}-${copy.name}-${i}`),
      );
      for (const [name, s] of Object.entries(meter.since(before)))
        if (s !== null) copy.cpu[name] = (copy.cpu[name] ?? 0) + s;
      copy.done += perBatch;
      console.log(`batch ${b + 1}/${batches}: tracing ${copy.name}, ${perBatch} payins`);
    }
    const names = Object.keys(copies[0]!.cpu);
    const per = (copy: (typeof copies)[number], name: string) => (copy.cpu[name] ?? 0) / copy.done;
    console.log('\nCPU-s per direct payin (each batch waits for its payins to read `success`)');
    console.log(`| process | tracing off | tracing on | on / off |\n| --- | --- | --- | --- |`);
    const [off, on] = copies as [(typeof copies)[number], (typeof copies)[number]];
    for (const name of [...names, 'sum']) {
      const a = name === 'sum' ? names.reduce((t, n) => t + per(off, n), 0) : per(off, name);
      const b = name === 'sum' ? names.reduce((t, n) => t + per(on, n), 0) : per(on, name);
      console.log(`| ${name} | ${a.toFixed(4)} | ${b.toFixed(4)} | ${a > 0 ? (b / a).toFixed(2) : '-'} |`);
    }
    console.log(
      `\n${off.done} + ${on.done} payins; spans exported: ${round(spanBytes / 1024)} KiB of OTLP JSON`,
    );
  } finally {
    for (const child of children) await stopProcess(child);
    for (const server of embedded.servers.reverse()) await server.stop();
    collector.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
