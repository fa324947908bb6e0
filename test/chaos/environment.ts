import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import type { Connection } from 'mongoose';
import { configSchema } from '../../src/config';
import { dataConverter } from '../../src/temporal/codec';
import { createLogger } from '../../src/infra/logger';
import {
  freePort,
  startFerretDB,
  startTemporalDevServer,
  type LocalServer,
} from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { connectMongo } from '../../src/persistence/mongo';
import { buildApi } from '../../src/main/wiring';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// The chaos suite's world (test/integration/chaos.test.ts): its own FerretDB and Temporal dev
// server (real time: what is under test is Temporal's own recovery, which the time-skipping test
// server does not reproduce), the API in this process, the worker as a child process that can be
// killed with SIGKILL and is restarted as a supervisor would, the operator simulator and a webhook
// receiver. The waits that matter are short: expiry 20 s, partner checks from 3 s, operator 1 s.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChaosEnvironment {
  private dir: string | undefined;
  private ferretPort = 0;
  private ferret: LocalServer | undefined;
  /** FerretDB's failed (re)starts, for storeState(). */
  private readonly ferretFailures: string[] = [];
  private temporalServer: LocalServer | undefined;
  private temporalConnection: TemporalConnection | undefined;
  private temporal: Client | undefined;
  private server: Server | undefined;
  private workerEnv: NodeJS.ProcessEnv = {};
  private simulator: RunningSimulator | undefined;
  mongo!: Connection;
  receiver!: WebhookReceiver;
  worker: ChildProcess | null = null;
  /** The worker's last lines of output (start-up failures, warnings). */
  workerLog: string[] = [];
  // Set by stop(): no worker is (re)started after teardown, even if the test body still runs.
  tornDown = false;

  /** The operator simulator, whose books the suite checks against. */
  get operatorUrl(): string {
    if (!this.simulator) throw new Error('not started');
    return this.simulator.url;
  }

  /** Where the API listens. */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as { port: number }).port}`;
  }

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'momo-chaos-'));
    const dir = this.dir;
    this.ferretPort = await freePort();
    this.ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port: this.ferretPort });
    const temporalPort = await freePort();
    this.temporalServer = await startTemporalDevServer({
      dataDir: join(dir, 'temporal'),
      port: temporalPort,
      uiPort: await freePort(),
      namespace: 'default',
    });
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    this.temporalConnection = await TemporalConnection.connect({ address: temporalAddress });
    const temporal = (this.temporal = new Client({
      connection: this.temporalConnection,
      namespace: 'default',
      dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
    }));
    const mongoUri = `mongodb://127.0.0.1:${this.ferretPort}/chaos`;
    const mongo = (this.mongo = await connectMongo(mongoUri));
    const taskQueue = `chaos-${randomUUID().slice(0, 8)}`;
    const settings = {
      NODE_ENV: 'test',
      TEMPORAL_TASK_QUEUE: taskQueue,
      OPERATOR_TIMEOUT: '1s',
      PAYIN_EXPIRY: '20s',
      PAYIN_PARTNER_CHECK_INTERVAL: '3s',
      PAYIN_CORRECTION_WINDOW: '5m',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_CACHE_TTL: '10m',
    };
    const config = configSchema.parse({ ...settings, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1' });
    const simulator = (this.simulator = await startSimulator({
      port: 0,
      callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
      slowResponseMs: 1_500,
    }));
    config.OPERATOR_BASE_URL = simulator.url;
    const app = await buildApi({ config, mongo, temporal, logger: createLogger('error') });
    const server = (this.server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    }));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    simulator.simulator.setCallbackBaseUrl(`http://127.0.0.1:${port}`);
    this.receiver = await startReceiver();
    this.workerEnv = {
      ...process.env,
      ...settings,
      LOG_LEVEL: 'info',
      MONGODB_URI: mongoUri,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
      OPERATOR_BASE_URL: simulator.url,
      WORKER_METRICS_PORT: '0',
    };
    await this.startWorker();
  }

  async stop(): Promise<void> {
    this.tornDown = true;
    await this.killWorker();
    await this.simulator?.stop();
    this.server?.closeAllConnections();
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
    await this.receiver?.close();
    await this.mongo?.close();
    await this.temporalConnection?.close();
    await this.temporalServer?.stop();
    await this.ferret?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  async startWorker(): Promise<void> {
    if (this.tornDown) return;
    const workerLog: string[] = (this.workerLog = []);
    // One process (no tsx CLI wrapper in between), so SIGKILL really kills the worker.
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
      cwd: repoRoot,
      env: { ...this.workerEnv, TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.worker = proc;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker did not start:\n${workerLog.join('')}`)),
        60_000,
      );
      const onData = (chunk: Buffer) => {
        workerLog.push(chunk.toString());
        if (workerLog.length > 100) workerLog.shift();
        if (chunk.toString().includes('worker running')) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${code ?? signal}) before running:\n${workerLog.join('')}`));
      });
    });
  }

  /**
   * Starts the worker again until it runs, as a process supervisor does (compose's `restart:
   * unless-stopped`): a worker whose start-up meets the FerretDB restart exits, and is restarted.
   */
  async superviseWorker(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startWorker();
      } catch (err) {
        if (this.tornDown || attempt >= 10) throw err;
        await sleep(1_000);
      }
    }
  }

  async killWorker(): Promise<void> {
    const proc = this.worker;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  /** Whether the worker process is gone (killed and not restarted, or never started). */
  workerDown(): boolean {
    return !this.worker || this.worker.exitCode !== null || this.worker.signalCode !== null;
  }

  /**
   * Kills FerretDB with SIGKILL and starts it again on the same data and port, as a supervisor
   * would: a start that fails (too slow on a loaded machine, its port not yet free) is tried again.
   */
  async restartFerret(): Promise<void> {
    const ferret = this.ferret!;
    ferret.process.kill('SIGKILL');
    await new Promise((r) => ferret.process.once('exit', r));
    this.ferret = undefined;
    await sleep(1_500);
    for (let attempt = 1; ; attempt++) {
      try {
        this.ferret = await startFerretDB({ dataDir: join(this.dir!, 'ferretdb'), port: this.ferretPort });
        return;
      } catch (err) {
        this.ferretFailures.push(`start ${attempt}: ${String(err).slice(0, 600)}`);
        if (this.tornDown || attempt >= 5) throw err;
        await sleep(1_000);
      }
    }
  }

  /** Where the store stands, for a test that waited too long on 503s: FerretDB, the driver, the API. */
  async storeState(): Promise<string> {
    const proc = this.ferret?.process;
    const readiness = await fetch(`${this.apiUrl}/health/ready`, { signal: AbortSignal.timeout(5_000) })
      .then(async (res) => `${res.status} ${await res.text()}`)
      .catch((err: unknown) => String(err));
    return JSON.stringify({
      ferretdb: proc ? { pid: proc.pid, exitCode: proc.exitCode, signal: proc.signalCode } : 'not running',
      failedStarts: this.ferretFailures,
      driverReadyState: this.mongo?.readyState,
      readiness,
    });
  }

  /** What a transaction that never ends waits for: its status, pending activities and last events. */
  async whereStuck(workflowId: string): Promise<string> {
    if (!this.temporal) return 'unknown';
    try {
      const handle = this.temporal.workflow.getHandle(workflowId);
      const d = await handle.describe();
      const pending = (d.raw.pendingActivities ?? []).map(
        (a) => `${a.activityType?.name} attempt ${a.attempt}: ${a.lastFailure?.message ?? '-'}`,
      );
      const events = ((await handle.fetchHistory()).events ?? [])
        .slice(-8)
        .map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? String(e.eventType));
      const workerWarnings = this.workerLog
        .join('')
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l))
        .slice(-5);
      return JSON.stringify({
        status: d.status.name,
        historyLength: d.historyLength,
        pending,
        events,
        workerWarnings,
      });
    } catch (err) {
      return `not described: ${String(err)}`;
    }
  }
}
