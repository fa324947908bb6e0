import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { dirname, join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ferretdbPath, postgresBinDir, temporalCliPath, temporalServerDir } from './tools';
import { searchAttributes } from '../temporal/search-attributes';
import { ensureSearchAttributes } from '../temporal/ensure-search-attributes';

// Starts the real servers as local child processes (npm start, tests, benchmarks).

export interface LocalServer {
  name: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A free port below 32768: the Temporal server stores its services' ports as SQL smallint. */
export async function freeLowPort(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((res) => {
      const srv = createServer();
      srv.once('error', () => res(false));
      srv.listen(candidate, '127.0.0.1', () => srv.close(() => res(true)));
    });
    if (free) return candidate;
  }
}

/**
 * A free port for a server started next, drawn below Linux's ephemeral range (32768-60999): a port
 * the kernel picks for listen(0) is also one it hands to outgoing connections, and on a busy machine
 * one of those took it in the seconds before the child bound it (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  return freeLowPort();
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

/**
 * The environment of a Temporal server we start: ours without the OpenTelemetry variables, which
 * configure this service's tracing (OTEL_TRACES_EXPORTER) and which the Go server would read as
 * its own (refusing `zipkin`, or sending its spans where ours go).
 */
function temporalServerEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  return { ...env, TEMPORAL_VERSION_CHECK_DISABLED: '1' };
}

/**
 * FerretDB with its SQLite backend; telemetry off, no debug listener (its default port clashes)
 * unless `debugAddr` asks for one (its Prometheus counters at /debug/metrics: the bench counts
 * store commands with them).
 */
export async function startFerretDB(opts: {
  dataDir: string;
  port: number;
  debugAddr?: string;
}): Promise<LocalServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const logs: string[] = [];
  const proc = spawn(
    ferretdbPath(),
    [
      '--handler=sqlite',
      `--sqlite-url=file:${opts.dataDir.replace(/\/?$/, '/')}`,
      `--listen-addr=127.0.0.1:${opts.port}`,
      `--debug-addr=${opts.debugAddr ?? '-'}`,
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
  /** More dynamic config values (`key=value`), e.g. the bench's `system.enableActivityEagerExecution=true`. */
  dynamicConfig?: string[];
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
  for (const value of opts.dynamicConfig ?? []) args.push('--dynamic-config-value', value);
  for (const [name, type] of Object.entries(searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);
  const proc = spawn(temporalCliPath(), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: temporalServerEnv(),
  });
  const deadline = Date.now() + 90_000;
  const server = await started(track('Temporal dev server', proc, logs), opts.port, 60_000, logs);
  // Its port opens before it serves: on a loaded machine a client connecting at once could meet
  // gRPC's connect deadline. Started means it answers for its namespace.
  for (;;) {
    const err = await namespaceUnanswered(opts.port, opts.namespace);
    if (!err) return server;
    if (Date.now() > deadline || proc.exitCode !== null) {
      await server.stop();
      throw new Error(`Temporal dev server does not answer: ${err.message}\n${logs.join('').slice(-2000)}`, {
        cause: err,
      });
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Null once a Temporal server on this port answers for the namespace, else why not. */
async function namespaceUnanswered(port: number, namespace: string): Promise<Error | null> {
  try {
    const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: '5s' });
    try {
      await connection.workflowService.describeNamespace({ namespace });
      return null;
    } finally {
      await connection.close();
    }
  } catch (err) {
    return err as Error;
  }
}

// ---- The production topology (bench --topology production): PostgreSQL, a Temporal server on it,
// FerretDB on its PostgreSQL backend. Local processes, as docker-compose.yml describes them.

/**
 * Debian's PostgreSQL in `dataDir`, trust auth on loopback only, with the databases the Temporal
 * server and FerretDB use. initdb refuses root: as root it runs as the `postgres` user.
 */
export async function startPostgres(opts: { dataDir: string; port: number }): Promise<LocalServer> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  mkdirSync(opts.dataDir, { recursive: true });
  if (asRoot) {
    // The postgres user must reach its folder: a private temporary parent is opened to traverse.
    chmodSync(dirname(opts.dataDir), 0o755);
    execFileSync('chown', ['-R', 'postgres:postgres', opts.dataDir]);
  }
  run(join(bin, 'initdb'), ['-D', opts.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const logs: string[] = [];
  const args = [
    '-D',
    opts.dataDir,
    '-p',
    String(opts.port),
    '-k',
    opts.dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
  ];
  const proc = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', join(bin, 'postgres'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = await started(track('PostgreSQL', proc, logs), opts.port, 30_000, logs);
  for (const db of ['temporal', 'temporal_visibility', 'ferretdb'])
    execFileSync(
      'psql',
      ['-h', '127.0.0.1', '-p', String(opts.port), '-U', 'postgres', '-c', `CREATE DATABASE ${db}`],
      {
        stdio: 'ignore',
      },
    );
  return server;
}

/** The Temporal server (not the dev server) on PostgreSQL: schemas set up by its SQL tool, then started. */
export async function startTemporalServer(opts: {
  dataDir: string;
  pgPort: number;
  port: number;
  namespace: string;
  /** More dynamic config keys set to true, e.g. the bench's `system.enableActivityEagerExecution`. */
  enable?: string[];
}): Promise<LocalServer> {
  const dir = temporalServerDir();
  const sql = (db: string, ...args: string[]) =>
    execFileSync(
      join(dir, 'temporal-sql-tool'),
      [
        '--plugin',
        'postgres12',
        '--ep',
        '127.0.0.1',
        '-p',
        String(opts.pgPort),
        '-u',
        'postgres',
        '--db',
        db,
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
  for (const [db, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    sql(db, 'setup-schema', '-v', '0.0');
    sql(db, 'update-schema', '-d', join(dir, 'schema/postgresql/v12', schema, 'versioned'));
  }
  // Ports: the caller's for the frontend, free ones for the rest (a gRPC and a membership port each).
  const p: number[] = [];
  for (let i = 0; i < 8; i++) p.push(await freeLowPort());
  if (opts.port >= 32_768) throw new RangeError('the Temporal server port must be below 32768 (freeLowPort)');
  const configDir = join(opts.dataDir, 'config');
  mkdirSync(join(configDir, 'dynamicconfig'), { recursive: true });
  const store = (db: string, conns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "127.0.0.1:${opts.pgPort}"
        connectProtocol: "tcp"
        user: "postgres"
        password: ""
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true`;
  writeFileSync(
    join(configDir, 'production.yaml'),
    `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:${service(opts.port, p[0]!)}
  history:${service(p[1]!, p[2]!)}
  matching:${service(p[3]!, p[4]!)}
  worker:${service(p[5]!, p[6]!)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${opts.port}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "${join(configDir, 'dynamicconfig/production.yaml')}"
  pollInterval: "60s"
`,
  );
  // As the dev server runs: Updates and update-with-start on, no version check (no phone-home).
  writeFileSync(
    join(configDir, 'dynamicconfig/production.yaml'),
    ['frontend.enableUpdateWorkflowExecution', 'frontend.enableExecuteMultiOperation', ...(opts.enable ?? [])]
      .map((k) => `${k}:\n  - value: true\n`)
      .join('') + 'frontend.enableServerVersionCheck:\n  - value: false\n',
  );
  const logs: string[] = [];
  const proc = spawn(
    join(dir, 'temporal-server'),
    ['--root', opts.dataDir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: temporalServerEnv() },
  );
  const server = await started(track('Temporal server', proc, logs), opts.port, 90_000, logs);
  const connection = await Connection.connect({ address: `127.0.0.1:${opts.port}` });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await connection.workflowService.registerNamespace({
          namespace: opts.namespace,
          workflowExecutionRetentionPeriod: msToTs('1 day'),
        });
        break;
      } catch (err) {
        if ((err as { code?: number }).code === 6) break; // ALREADY_EXISTS
        if (attempt > 60) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    // The namespace reaches the frontend's cache within seconds: wait until it answers for it.
    for (let attempt = 0; ; attempt++) {
      try {
        await ensureSearchAttributes(connection, opts.namespace);
        await connection.workflowService.describeNamespace({ namespace: opts.namespace });
        break;
      } catch (err) {
        if (attempt > 60) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await connection.close();
  }
  return server;
}

/** FerretDB on its PostgreSQL backend (the production setting), the same build as the SQLite one. */
export async function startFerretDBOnPostgres(opts: {
  pgPort: number;
  port: number;
  stateDir: string;
  debugAddr?: string;
}): Promise<LocalServer> {
  mkdirSync(opts.stateDir, { recursive: true });
  const logs: string[] = [];
  const proc = spawn(
    ferretdbPath(),
    [
      '--handler=pg',
      `--postgresql-url=postgres://postgres@127.0.0.1:${opts.pgPort}/ferretdb`,
      `--listen-addr=127.0.0.1:${opts.port}`,
      `--debug-addr=${opts.debugAddr ?? '-'}`,
      '--telemetry=disable',
      `--state-dir=${opts.stateDir}`,
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return started(track('FerretDB (PostgreSQL)', proc, logs), opts.port, 15_000, logs);
}
