import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Connection as MongoConnection } from 'mongoose';
import { configSchema } from '../../src/config';
import { freePort, startTemporalDevServer, type LocalServer } from '../../src/infra/local-servers';
import { buildActivityDeps } from '../../src/main/wiring';
import { createWorker } from '../../src/main/temporal/worker';
import { dataConverter } from '../../src/temporal/codec';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import { ensureReconciliationScheduleAtStart } from '../../src/main/schedules';
import { previousUtcDay, ReconciliationReportStore } from '../../src/reconciliation';
import { ensureReconciliationSchedule } from '../../src/main/reconciliation-schedule';
import { RECONCILIATION_SCHEDULE_ID } from '../../src/temporal/workflow-ids';
import { eventually } from '../helpers/http';
import { connectTestMongo } from '../helpers/stack';

// The daily schedule on the real Temporal dev server (the time-skipping test server has no
// Schedules): created once at worker start whatever the number of starts, moved when
// RECONCILIATION_TIME changes, and, triggered, a run reconciles yesterday for every operator.
describe('reconciliation schedule (Temporal dev server)', () => {
  let server: LocalServer;
  let dataDir: string;
  let address: string;
  let client: Client;
  let connection: Connection;
  let native: NativeConnection;
  let mongo: MongoConnection;
  let simulator: RunningSimulator;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed already in this process
    }
    dataDir = mkdtempSync(join(tmpdir(), 'momo-recon-devserver-'));
    const port = await freePort();
    server = await startTemporalDevServer({ dataDir, port, uiPort: await freePort(), namespace: 'default' });
    address = `127.0.0.1:${port}`;
    connection = await Connection.connect({ address });
    client = new Client({
      connection,
      dataConverter: dataConverter(configSchema.parse({}).PAYLOAD_CODEC_KEYS),
    });
    native = await NativeConnection.connect({ address });
    mongo = await connectTestMongo();
    const config = configSchema.parse({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      TEMPORAL_TASK_QUEUE: taskQueue,
    });
    simulator = await startSimulator({ port: 0, callbackSecrets: config.OPERATOR_CALLBACK_SECRETS });
    config.OPERATOR_BASE_URL = simulator.url;
    worker = await createWorker({
      connection: native,
      namespace: 'default',
      taskQueue,
      deps: await buildActivityDeps({ mongo, config }),
      payloadKeys: config.PAYLOAD_CODEC_KEYS,
      workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE!,
    });
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    await client?.schedule
      .getHandle(RECONCILIATION_SCHEDULE_ID)
      .delete()
      .catch(() => undefined);
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await native?.close();
    await connection?.close();
    await simulator?.stop();
    await mongo?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is created once, moved when the time changes, and its run reconciles yesterday for every operator', async () => {
    const cfg = { taskQueue, time: '03:15' };
    expect(await ensureReconciliationSchedule(client, cfg)).toBe('created');
    expect(await ensureReconciliationSchedule(client, cfg)).toBe('unchanged');
    // What a worker start does (its own connection; `off` leaves the schedule alone).
    await ensureReconciliationScheduleAtStart(
      {
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_TASK_QUEUE: taskQueue,
        RECONCILIATION_TIME: '03:15',
        LOG_LEVEL: 'silent',
        PAYLOAD_CODEC_KEYS: configSchema.parse({}).PAYLOAD_CODEC_KEYS,
      },
      address,
    );
    expect(await ensureReconciliationSchedule(client, { taskQueue, time: 'off' })).toBe('off');
    expect(await ensureReconciliationSchedule(client, { ...cfg, time: '04:00' })).toBe('updated');
    const handle = client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID);
    const described = await handle.describe();
    expect(described.spec.calendars).toHaveLength(1);
    expect(described.spec.calendars![0]).toMatchObject({ hour: [{ start: 4 }], minute: [{ start: 0 }] });
    expect(described.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'reconciliationWorkflow',
      taskQueue,
    });

    // Yesterday, the operator collected for an id we never asked for.
    const yesterday = previousUtcDay(new Date());
    const gateway = new HttpOperatorGateway({ baseUrl: simulator.url, timeoutMs: 5_000 });
    await gateway.requestCollection({
      transactionId: 'pr_yesterday_stranger',
      operator: 'MTN',
      country: 'CI',
      msisdn: '+2250500000001',
      amount: 2_500,
      currency: 'XOF',
      sandboxScenario: null,
    });
    const tamper = await fetch(`${simulator.url}/_sandbox/collections/pr_yesterday_stranger/tamper`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ createdAt: `${yesterday}T12:00:00Z` }),
    });
    expect(tamper.status).toBe(200);

    await handle.trigger();
    const reports = ReconciliationReportStore.on(mongo);
    const runs = await eventually(
      () => reports.list({ date: yesterday }),
      (l) => l.length === 4,
      60_000,
    );
    expect(runs.map((r) => r.operator).sort()).toEqual(['MOOV', 'MTN', 'ORANGE', 'WAVE']);
    expect(
      runs.every((r) => r.trigger === 'schedule' && r.workflowId?.startsWith(RECONCILIATION_SCHEDULE_ID)),
    ).toBe(true);
    const mtn = runs.find((r) => r.operator === 'MTN')!;
    expect(mtn).toMatchObject({ needsPerson: true, classes: { unknown_to_us: 1 } });
    expect((await reports.get(mtn.id))?.findings[0]).toMatchObject({
      id: 'pr_yesterday_stranger',
      operator: { amount: 2_500 },
    });
  }, 120_000);
});
