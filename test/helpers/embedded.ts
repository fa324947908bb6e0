import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';

// `npm start` (src/main/embedded.ts) as a user runs it, on free ports, with the test run's MongoDB
// standing in for the embedded FerretDB: started once per test file, stopped with SIGTERM.

export interface EmbeddedStack {
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts it in the shell `base` (a user's environment), with `settings` and any `ports` chosen by the
 * caller on top (the others free), and waits until it says it runs.
 */
export async function startEmbedded(
  base: NodeJS.ProcessEnv,
  settings: NodeJS.ProcessEnv,
  ports: Record<string, number> = {},
  /** A cold machine (fresh CI) may need more than the default to start Temporal and FerretDB. */
  startTimeoutMs = 110_000,
): Promise<EmbeddedStack> {
  const dir = mkdtempSync(join(tmpdir(), 'momo-embedded-'));
  const port = async (name: string) => String(ports[name] ?? (await freePort()));
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main/embedded.ts'], {
    cwd: repoRoot,
    env: {
      ...base,
      LOG_LEVEL: 'warn',
      DATA_DIR: dir,
      PORT: await port('PORT'),
      EMBEDDED_MONGODB_PORT: await port('EMBEDDED_MONGODB_PORT'),
      EMBEDDED_TEMPORAL_PORT: await port('EMBEDDED_TEMPORAL_PORT'),
      EMBEDDED_TEMPORAL_UI_PORT: await port('EMBEDDED_TEMPORAL_UI_PORT'),
      EMBEDDED_SIMULATOR_PORT: await port('EMBEDDED_SIMULATOR_PORT'),
      CODEC_SERVER_PORT: await port('CODEC_SERVER_PORT'),
      TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      // It stops the worker, then Temporal and FerretDB; a stuck shutdown must not hold a run.
      const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start did not start:\n${output}`)),
        startTimeoutMs,
      );
      const check = setInterval(() => {
        if (output.includes('momo-payments is running')) {
          clearInterval(check);
          clearTimeout(timer);
          resolve();
        }
      }, 200);
      proc.once('exit', (code) => {
        clearInterval(check);
        clearTimeout(timer);
        reject(new Error(`npm start exited (${code}):\n${output}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { output: () => output, stop };
}
