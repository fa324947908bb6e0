import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { ferretdbPath, temporalCliPath } from './tools';
import { searchAttributes } from '../temporal/search-attributes';

// Starts the real servers as local child processes (npm start, tests, benchmarks).

export interface LocalServer {
  name: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

export async function waitForPort(port: number, timeoutMs: number, proc?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && proc.exitCode !== null)
      throw new Error(`process exited with code ${proc.exitCode} before listening on ${port}`);
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        res(true);
      });
      s.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function track(name: string, proc: ChildProcess, logs: string[]): LocalServer {
  const keep = (chunk: Buffer) => {
    logs.push(chunk.toString());
    if (logs.length > 200) logs.shift();
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return {
    name,
    process: proc,
    stop: () =>
      new Promise<void>((res) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return res();
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(timer);
          res();
        });
        proc.kill('SIGTERM');
      }),
  };
}

async function started(
  server: LocalServer,
  port: number,
  timeoutMs: number,
  logs: string[],
): Promise<LocalServer> {
  try {
    await waitForPort(port, timeoutMs, server.process);
    return server;
  } catch (err) {
    await server.stop();
    throw new Error(
      `${server.name} did not start: ${(err as Error).message}\n${logs.join('').slice(-2000)}`,
      { cause: err },
    );
  }
}

/** FerretDB with its SQLite backend; telemetry off, no debug listener (its default port clashes). */
export async function startFerretDB(opts: { dataDir: string; port: number }): Promise<LocalServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const logs: string[] = [];
  const proc = spawn(
    ferretdbPath(),
    [
      '--handler=sqlite',
      `--sqlite-url=file:${opts.dataDir.replace(/\/?$/, '/')}`,
      `--listen-addr=127.0.0.1:${opts.port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      // Its state file (telemetry id) goes with its data, not into the working directory.
      `--state-dir=${opts.dataDir}`,
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return started(track('FerretDB', proc, logs), opts.port, 15_000, logs);
}

/** Temporal dev server with its Web UI and our search attributes; no version check phone-home. */
export async function startTemporalDevServer(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** The codec server the Web UI asks to decode payloads (src/api/codec-server.ts). */
  uiCodecEndpoint?: string;
}): Promise<LocalServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const logs: string[] = [];
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--db-filename',
    `${opts.dataDir}/temporal.sqlite`,
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    // No phone-home: the server's periodic version check is off.
    '--dynamic-config-value',
    'frontend.enableServerVersionCheck=false',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value',
    'frontend.enableExecuteMultiOperation=true',
  ];
  if (opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  for (const [name, type] of Object.entries(searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);
  const proc = spawn(temporalCliPath(), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' },
  });
  return started(track('Temporal dev server', proc, logs), opts.port, 60_000, logs);
}
