import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { repoRoot } from '../src/infra/tools';
import { profile, resultsDir, round, sleep } from './common';

// The stack's processes as the bench runs them (bench/run.ts): started, awaited, stopped, and
// where their CPU went (per phase from /proc, per function from --cpu-prof with BENCH_PROFILE=1).

export function nodeProcess(script: string, env: NodeJS.ProcessEnv, name: string): ChildProcess {
  const flags = profile
    ? // A directory per process, default file names: the tsx loader runs in its own thread, which
      // writes a profile too, and one fixed name let the (idle) loader's overwrite the main thread's.
      ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, 'profiles', name)}`]
    : [];
  const proc = spawn(process.execPath, [...flags, '--import', 'tsx', script], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return proc;
}

export async function waitForPoller(client: Client, taskQueue: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: 1,
    });
    if ((res.pollers ?? []).length > 0) return;
    await sleep(200);
  }
  throw new Error(`no worker polls ${taskQueue}`);
}

export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: {
    id: number;
    hitCount?: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
}

/**
 * A process's busiest thread (its main thread, not the loader's): seconds on CPU out of the
 * profiled seconds, and self time per function as a share of the busy time, the top `n`.
 */
export function topFunctions(dir: string, n = 15) {
  const idle = new Set(['(idle)', '(program)']);
  const read = (file: string) => {
    const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const total = prof.nodes.reduce((a, node) => a + (node.hitCount ?? 0), 0);
    const busy = prof.nodes
      .filter((node) => !idle.has(node.callFrame.functionName))
      .reduce((a, node) => a + (node.hitCount ?? 0), 0);
    return { prof, total, busy };
  };
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map(read)
    .sort((a, b) => b.busy - a.busy);
  const main = profiles[0];
  if (!main || main.busy === 0) return null;
  const byFn = new Map<string, number>();
  for (const node of main.prof.nodes) {
    const f = node.callFrame;
    if (idle.has(f.functionName)) continue;
    const where = f.url.replace(/^file:\/\//, '').replace(repoRoot, '.');
    const key = `${f.functionName || '(anonymous)'} ${where.split('node_modules/').pop()}:${f.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + (node.hitCount ?? 0));
  }
  const seconds = (main.prof.endTime - main.prof.startTime) / 1e6;
  return {
    profiledSeconds: Math.round(seconds),
    cpuSeconds: round((seconds * main.busy) / main.total),
    top: [...byFn.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([fn, hits]) => ({ fn, percentOfBusy: Math.round((1000 * hits) / main.busy) / 10 })),
  };
}

// ---- CPU per process ----

/** CPU seconds (user + system) a process used so far, from /proc (Linux); null elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (name) ": state is field 3, utime and stime fields 14 and 15, in clock ticks.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a process and every process under it (PostgreSQL serves each connection in a
 * process of its own): its own, its reaped children's, and its live descendants'.
 */
export function cpuSecondsOfTree(pid: number | undefined): number | null {
  if (!pid) return null;
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      stats.set(Number(entry), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // gone meanwhile
    }
  }
  const root = stats.get(pid);
  if (!root) return null;
  // Fields after "pid (name) ": ppid 2nd (index 1); utime, stime, cutime, cstime at 11..14.
  let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
  const under = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, f] of stats)
      if (!under.has(p) && under.has(Number(f[1]))) {
        under.add(p);
        ticks += Number(f[11]) + Number(f[12]);
        grew = true;
      }
  }
  return ticks / 100;
}

/** Where a phase's time went: CPU seconds of each process of the stack between two snapshots. */
export function cpuMeter(
  processes: Record<string, number | undefined>,
  trees: Record<string, number | undefined> = {},
) {
  const snapshot = (): Record<string, number | null> => {
    const own = process.cpuUsage();
    return {
      ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSecondsOf(pid)])),
      ...Object.fromEntries(Object.entries(trees).map(([name, pid]) => [name, cpuSecondsOfTree(pid)])),
      'bench (load, simulator, receiver)': (own.user + own.system) / 1e6,
    };
  };
  return {
    snapshot,
    since(before: Record<string, number | null>): Record<string, number | null> {
      const now = snapshot();
      return Object.fromEntries(
        Object.entries(now).map(([name, v]) => {
          const b = before[name];
          return [name, v === null || b === null || b === undefined ? null : round(v - b)];
        }),
      );
    },
  };
}

export type CpuMeter = ReturnType<typeof cpuMeter>;

/**
 * Mean execution time per activity type over the run, from each worker's Temporal Prometheus
 * exporter (`temporal_activity_execution_latency`, milliseconds), summed over the workers: where an
 * activity's time goes when the CPU is not busy.
 */
export async function activityLatencies(
  metricsAddresses: string[],
): Promise<Record<string, { executions: number; meanMs: number }>> {
  const sums = new Map<string, { sum: number; count: number }>();
  for (const address of metricsAddresses) {
    const text = await fetch(`http://${address}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    for (const line of text.split('\n')) {
      const m =
        /^temporal_(local_)?activity_execution_latency_(sum|count)\{[^}]*activity_type="([^"]+)"[^}]*\} ([\d.e+]+)/.exec(
          line,
        );
      if (!m) continue;
      // A local activity (workflows/shared/activity-proxies.ts, localFirst) is its own row.
      const type = m[1] ? `${m[3]!} (local)` : m[3]!;
      const entry = sums.get(type) ?? { sum: 0, count: 0 };
      entry[m[2] === 'sum' ? 'sum' : 'count'] += Number(m[4]);
      sums.set(type, entry);
    }
  }
  return Object.fromEntries(
    [...sums]
      .filter(([, e]) => e.count > 0)
      .sort(([, a], [, b]) => b.sum - a.sum)
      .map(([type, e]) => [type, { executions: e.count, meanMs: round(e.sum / e.count) }]),
  );
}
