import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { freePort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';

// The worker as a child process that a test kills with SIGKILL and starts again, as the chaos
// suite does (test/integration/chaos.test.ts): one process, no tsx CLI wrapper in between, so the
// signal really kills the worker.

export class WorkerProcess {
  private proc: ChildProcess | null = null;
  private stopped = false;
  /** The last lines the worker wrote (stdout and stderr), for a failure's message. */
  readonly tail: string[] = [];
  starts = 0;
  kills = 0;

  private readonly log: WriteStream | null;

  /** `logFile`: every start's output, appended (test/faults/diagnose.ts reads it). */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    logFile?: string,
  ) {
    this.log = logFile ? createWriteStream(logFile, { flags: 'a' }) : null;
  }

  get running(): boolean {
    const p = this.proc;
    return p !== null && p.exitCode === null && p.signalCode === null;
  }

  /** Starts a worker and waits for its "worker running" line (60 s at most). No-op once stopped. */
  async start(): Promise<void> {
    if (this.stopped) return;
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
      cwd: repoRoot,
      env: { ...this.env, TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    this.starts++;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker did not start:\n${this.tail.join('')}`)),
        60_000,
      );
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        this.log?.write(chunk);
        this.tail.push(text);
        if (this.tail.length > 200) this.tail.shift();
        if (text.includes('worker running')) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${code ?? signal}) before running:\n${this.tail.join('')}`));
      });
    });
  }

  /** SIGKILL, as a crash: nothing is flushed, nothing is shut down. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
    this.kills++;
  }

  /** Kills it for good: no start after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    const kills = this.kills;
    await this.kill();
    this.kills = kills;
    await new Promise<void>((r) => (this.log ? this.log.end(r) : r()));
  }
}
