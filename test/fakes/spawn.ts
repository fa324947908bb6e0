import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

// Provider fakes run as separate HTTP processes, like the real providers: a test talks to them over
// the network only. Each fake's main.ts prints `listening <url>` on stdout once it accepts requests.

export interface FakeProcess {
  url: string;
  stop(): Promise<void>;
}

/** Spawns `node --import tsx <mainPath>` with `env`, and resolves once it prints its URL. */
export async function spawnFake(mainPath: string, env: Record<string, string> = {}): Promise<FakeProcess> {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', mainPath], {
    env: { ...process.env, ...env, PORT: env.PORT ?? '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mainPath} did not start in 30 s`)), 30_000);
    proc.once('exit', (code) => reject(new Error(`${mainPath} exited with ${code}`)));
    lines.on('line', (line) => {
      const m = /^listening (\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}
