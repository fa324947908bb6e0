// Records the golden workflow histories that test/unit/golden-histories.test.ts replays: real
// transactions through the real stack (HTTP API, worker, FerretDB, the operator simulator) on the
// time-skipping test server, each finished workflow's history saved as `<workflowType>-<branch>.json`.
//
//   npx tsx scripts/record-golden-histories.ts [--tree DIR] [--out DIR] [--suffix -revN] [--only name,name]
//   (or GOLDEN_TREE / GOLDEN_OUT / GOLDEN_SUFFIX / GOLDEN_ONLY; defaults: this checkout, test/golden)
//
// The tree is the checkout whose workflows, activities, API and test helpers are recorded: to keep
// the histories of the code before a change, record from a worktree of that commit (its
// node_modules may be a symlink to this one's). Needs `bash scripts/provision test` done.
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestStack } from '../test/helpers/stack';
import { historyToJson } from '../test/helpers/history-json';
import { decodeHistoryPayloads } from '../src/temporal/codec';

type StackModule = typeof import('../test/helpers/stack');
type MerchantsModule = typeof import('../test/helpers/merchants');
type ServersModule = typeof import('../src/infra/local-servers');
type LedgerModule = typeof import('../src/ledger');
type WiringModule = typeof import('../src/main/wiring');

function option(name: string, env: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : process.env[env];
}

const tree = resolve(option('tree', 'GOLDEN_TREE') ?? resolve(__dirname, '..'));
const out = resolve(option('out', 'GOLDEN_OUT') ?? resolve(__dirname, '../test/golden'));
const only = option('only', 'GOLDEN_ONLY')?.split(',');
/** Appended to each name (e.g. `-rev3`), so new recordings sit beside the old ones. */
const suffix = option('suffix', 'GOLDEN_SUFFIX') ?? '';

/** Polls in real time (time skipping stays locked) until `check` holds. */
async function eventually<T>(what: string, fn: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The few fields of the API's answers the scenarios read. */
interface Body {
  id?: string;
  reference?: string;
  status?: string;
  confirmationStatus?: string;
  paymentUrl?: string;
  data?: unknown[];
}
interface Answer {
  status: number;
  body: Body;
}
interface Api {
  post(path: string, body: unknown): Promise<Answer>;
  get(path: string): Promise<Answer>;
}

function apiClient(baseUrl: string, credentials: { apiKey: string; apiClient: string } | null): Api {
  const call = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (credentials)
      headers.authorization = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiClient}`).toString('base64')}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['x-idempotency-key'] = randomUUID();
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Body };
  };
  return { post: (p, b) => call('POST', p, b), get: (p) => call('GET', p) };
}

async function main(): Promise<void> {
  const load = <T>(path: string) => import(join(tree, path)) as Promise<T>;
  const servers = await load<ServersModule>('src/infra/local-servers.ts');
  const { startStack } = await load<StackModule>('test/helpers/stack.ts');
  const { createTestMerchant } = await load<MerchantsModule>('test/helpers/merchants.ts');
  const { Ledger } = await load<LedgerModule>('src/ledger/index.ts');

  // What jest's global setup provides: a FerretDB and the tree's workflow bundle.
  const dir = mkdtempSync(join(tmpdir(), 'golden-'));
  const port = await servers.freePort();
  const ferret = await servers.startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(tree, 'workflows/index.ts'),
    // The tree's own failure converter, if it has one (trees before the payload codec do not).
    ...(existsSync(join(tree, 'src/temporal/failure-converter.ts'))
      ? { failureConverterPath: join(tree, 'src/temporal/failure-converter.ts') }
      : {}),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  writeFileSync(join(dir, 'workflow-bundle.js'), code);
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
  process.env.TEST_WORKFLOW_BUNDLE = join(dir, 'workflow-bundle.js');

  // A merchant endpoint that refuses the first delivery, so a webhook delivery workflow runs.
  let hookCalls = 0;
  let lastEventId = '';
  const hook: Server = createServer((req, res) => {
    lastEventId = String(req.headers['webhook-id'] ?? '');
    req.resume().on('end', () => res.writeHead(hookCalls++ === 0 ? 500 : 200).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const hookPort = (hook.address() as { port: number }).port;

  let stack: TestStack | undefined;
  try {
    stack = await startStack({
      // Short deadlines and correction window: fewer polls and partner checks, smaller files.
      PAYIN_EXPIRY: '2m',
      PAYOUT_EXPIRY: '2m',
      PAYIN_CORRECTION_WINDOW: '1h',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const s = stack;
    const merchant = await createTestMerchant(s, 'Golden histories');
    const api = apiClient(s.baseUrl, merchant.credentials);
    const customer = apiClient(s.baseUrl, null);
    const ledger = Ledger.on(s.mongo);
    await ledger.transfer({
      sourceRef: `fund:${randomUUID()}`,
      fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
      toAccountId: (await ledger.mainAccount(merchant.merchantId, 'XOF')).id,
      amount: 100_000,
      reason: 'golden histories funding',
    });

    mkdirSync(out, { recursive: true });
    /** Waits for the workflow's end (time skipping passes its timers), then saves its history. */
    const save = async (name: string, workflowId: string) => {
      const handle = s.env.client.workflow.getHandle(workflowId);
      await handle.result();
      // Saved opened (src/temporal/codec.ts): readable in review and in a diff, and independent of
      // the keys; replay takes sealed and plain payloads alike.
      const history = await decodeHistoryPayloads(
        await handle.fetchHistory(),
        s.env.client.options.loadedDataConverter.payloadCodecs,
      );
      const file = join(out, `${name}${suffix}.json`);
      writeFileSync(file, historyToJson(history));
      console.log(`${name}${suffix}.json: ${history.events?.length} events`);
    };
    const payinId = (reference: string, m = merchant.merchantId) => `payin:${m}:${reference}`;
    const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
    const directPayin = async (
      client: Api,
      reference: string,
      opts: { scenario?: string; msisdn?: string; provider?: string; otp?: string } = {},
    ) => {
      const res = await client.post('/v1/direct/payin', {
        reference,
        ...(opts.scenario ? { sandboxScenario: opts.scenario } : {}),
        customerName: 'Golden Test',
        payin: {
          amount: 1000,
          msisdn: opts.msisdn ?? '+2250500000001',
          provider: opts.provider ?? 'MTN',
          country: 'CI',
          ...(opts.otp ? { otp: opts.otp } : {}),
        },
        action,
      });
      if (res.status !== 201)
        throw new Error(`payin ${reference}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    const payinStatus = (reference: string, done: (b: Body) => boolean) =>
      eventually(reference, () => api.get(`/v1/payin/${reference}`).then((r) => r.body), done);
    const refund = async (payinRef: string, body: Record<string, unknown>, status: string) => {
      const res = await api.post(`/v1/payin/${payinRef}/refund`, { reason: 'golden', ...body });
      if (res.status !== 201) throw new Error(`refund: ${res.status} ${JSON.stringify(res.body)}`);
      const rf = String(res.body.reference);
      await eventually(
        rf,
        () => api.get(`/v1/refunds/${rf}`).then((r) => r.body),
        (b) => b.status === status,
      );
      return `refund:${merchant.merchantId}:${rf}`;
    };
    const session = async (reference: string) => {
      const res = await api.post('/v1/payin/sessions', {
        reference,
        sandboxScenario: 'completed',
        amount: 1000,
        msisdn: '+2250500000001',
        customerName: 'Golden Test',
        country: 'CI',
        action,
      });
      if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
      return new URL(String(res.body.paymentUrl)).pathname;
    };
    const payout = async (reference: string, scenario: string, done: (b: Body) => boolean) => {
      const res = await api.post('/v1/direct/payout', {
        reference,
        sandboxScenario: scenario,
        customerName: 'Golden Test',
        payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      });
      if (res.status !== 201) throw new Error(`payout: ${res.status} ${JSON.stringify(res.body)}`);
      await eventually(reference, () => api.get(`/v1/direct/payout/${reference}`).then((r) => r.body), done);
      return `payout:${merchant.merchantId}:${reference}`;
    };

    // Each scenario reaches its state in real time, then its workflows are awaited (time skipped).
    const scenarios: Record<string, () => Promise<void>> = {
      'direct-completed': async () => {
        await directPayin(api, 'golden-completed', { scenario: 'completed' });
        await payinStatus('golden-completed', (b) => b.status === 'success');
        const rf = await refund(
          'golden-completed',
          { amount: 400, externalReference: 'golden-rf-1' },
          'completed',
        );
        await save('refundWorkflow-completed', rf);
        await save('payinWorkflow-direct-completed', payinId('golden-completed'));
        // A payin that closed at success (change payin-closes-at-final-status): its refund desk.
        const payin = await api.get('/v1/payin/golden-completed');
        const id = String(payin.body.id ?? '');
        await save('payinRefundDeskWorkflow-refund', `refund-desk:${merchant.merchantId}:${id}`);
      },
      'refund-reversed': async () => {
        await directPayin(api, 'golden-refund-reversed', { scenario: 'completed' });
        await payinStatus('golden-refund-reversed', (b) => b.status === 'success');
        const rf = await refund(
          'golden-refund-reversed',
          { amount: 600, externalReference: 'golden-rf-2', sandboxScenario: 'failed' },
          'reversed',
        );
        await save('refundWorkflow-failed-reversed', rf);
        await save('payinWorkflow-direct-completed-refund-reversed', payinId('golden-refund-reversed'));
      },
      // Orange: the OTP stored apart, its id in the input, deleted at acknowledgement (otp-by-reference).
      'direct-orange-otp': async () => {
        await directPayin(api, 'golden-orange-otp', {
          scenario: 'completed',
          provider: 'ORANGE',
          msisdn: '+2250700000001',
          otp: '4821',
        });
        await payinStatus('golden-orange-otp', (b) => b.status === 'success');
        await save('payinWorkflow-direct-orange-otp', payinId('golden-orange-otp'));
      },
      'direct-failed': async () => {
        await directPayin(api, 'golden-failed', { scenario: 'failed' });
        await payinStatus('golden-failed', (b) => b.status === 'failed');
        await save('payinWorkflow-direct-failed', payinId('golden-failed'));
      },
      'direct-expired': async () => {
        await directPayin(api, 'golden-expired', { scenario: 'pending' });
        await payinStatus('golden-expired', (b) => b.confirmationStatus === 'pending');
        await save('payinWorkflow-direct-expired', payinId('golden-expired'));
      },
      'session-success': async () => {
        const page = await session('golden-session');
        const res = await customer.post(`${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' });
        if (res.status !== 200) throw new Error(`confirm: ${res.status} ${JSON.stringify(res.body)}`);
        await payinStatus('golden-session', (b) => b.status === 'success');
        await save('payinWorkflow-session-success', payinId('golden-session'));
      },
      'session-declined': async () => {
        const page = await session('golden-session-declined');
        const res = await customer.post(`${page}/decline`, {});
        if (res.status !== 200) throw new Error(`decline: ${res.status} ${JSON.stringify(res.body)}`);
        await save('payinWorkflow-session-declined', payinId('golden-session-declined'));
      },
      'session-expired': async () => {
        await session('golden-session-expired');
        await save('payinWorkflow-session-expired', payinId('golden-session-expired'));
      },
      // 9902: the collection fails ambiguously (operator timeout); the 3rd partner check finds the funds.
      'direct-corrected': async () => {
        await directPayin(api, 'golden-corrected', { msisdn: '+2250500009902' });
        await payinStatus('golden-corrected', (b) => b.status === 'failed');
        await save('payinWorkflow-direct-ambiguous-corrected', payinId('golden-corrected'));
      },
      // 9901 with nobody marking the funds collected: partner checks to the window's end; stays failed.
      'direct-uncorrected': async () => {
        await directPayin(api, 'golden-uncorrected', { msisdn: '+2250500009901' });
        await payinStatus('golden-uncorrected', (b) => b.status === 'failed');
        await save('payinWorkflow-direct-ambiguous-uncorrected', payinId('golden-uncorrected'));
      },
      'payout-completed': async () => {
        const id = await payout('golden-po-completed', 'completed', (b) => b.status === 'completed');
        await save('payoutWorkflow-completed', id);
      },
      'payout-failed': async () => {
        const id = await payout('golden-po-failed', 'failed', (b) => b.status === 'reversed');
        await save('payoutWorkflow-failed-reversed', id);
      },
      // The operator never answers: at the deadline it is asked to cancel, and confirms (the final answer).
      'payout-expired': async () => {
        const id = await payout('golden-po-expired', 'pending', (b) => b.status === 'processed');
        await save(
          suffix === '' ? 'payoutWorkflow-expired-reversed' : 'payoutWorkflow-unanswered-asked-final',
          id,
        );
      },
      // Refund Updates arriving together on one payin (change `refund-updates-serialized`).
      'concurrent-refunds': async () => {
        await directPayin(api, 'golden-concurrent', { scenario: 'completed' });
        await payinStatus('golden-concurrent', (b) => b.status === 'success');
        const ids = await Promise.all(
          [0, 1, 2, 3].map((i) =>
            refund('golden-concurrent', { amount: 100, externalReference: `golden-cc-${i}` }, 'completed'),
          ),
        );
        await save('payinWorkflow-direct-concurrent-refunds', payinId('golden-concurrent'));
        await save('refundWorkflow-concurrent-completed', ids[0]!);
        // Since the payin closes at success, its refund desk takes them (change refund-updates-queued:
        // one loop answers the queued Updates in order).
        const payin = await api.get('/v1/payin/golden-concurrent');
        await save(
          'payinRefundDeskWorkflow-concurrent-refunds',
          `refund-desk:${merchant.merchantId}:${String(payin.body.id ?? '')}`,
        );
      },
      reconciliation: async () => {
        const workflowId = `golden-reconciliation-${randomUUID()}`;
        await s.env.client.workflow.start('reconciliationWorkflow', {
          taskQueue: s.taskQueue,
          workflowId,
          args: [{ date: new Date().toISOString().slice(0, 10), operators: ['MTN', 'ORANGE'] }],
        });
        await save('reconciliationWorkflow-day', workflowId);
      },
      'recovery-sweep': async () => {
        const workflowId = `golden-recovery-${randomUUID()}`;
        await s.env.client.workflow.start('recoverySweepWorkflow', { taskQueue: s.taskQueue, workflowId });
        await save('recoverySweepWorkflow-pass', workflowId);
      },
      // A reconciliation correction told from the CLI (src/reconciliation/ports.ts): the workflow
      // records the event once and starts its deliveries.
      'publish-event': async () => {
        const workflowId = `event:golden-subject-${randomUUID()}:payin.corrected`;
        await s.env.client.workflow.start('publishEventWorkflow', {
          taskQueue: s.taskQueue,
          workflowId,
          args: [
            {
              merchantId: merchant.merchantId,
              type: 'payin.corrected',
              subjectId: 'golden-subject',
              reference: 'golden-corrected',
              data: { reference: 'golden-corrected', status: 'success' },
            },
          ],
        });
        await save('publishEventWorkflow-recorded', workflowId);
      },
      // A statement of the funded account: generated, then statement.ready recorded.
      statement: async () => {
        const account = (await ledger.mainAccount(merchant.merchantId, 'XOF')).id;
        const res = await api.post('/v1/statements', {
          accountId: account,
          from: new Date(Date.now() - 3_600_000).toISOString(),
          to: new Date(Date.now() + 60_000).toISOString(),
          format: 'csv',
        });
        if (res.status !== 202) throw new Error(`statement: ${res.status} ${JSON.stringify(res.body)}`);
        await save('statementWorkflow-ready', `statement:${merchant.merchantId}:${String(res.body.id)}`);
      },
      // A bulk payout of two items from the funded account: watched until both are final, then
      // payout.batch.completed recorded.
      'payout-batch': async () => {
        const item = (reference: string) => ({
          reference,
          amount: 500,
          msisdn: '+2250700000002',
          country: 'CI',
          sandboxScenario: 'completed',
        });
        const res = await api.post('/v1/payouts/bulk', {
          items: [
            item(`golden-bulk-${randomUUID().slice(0, 8)}`),
            item(`golden-bulk-${randomUUID().slice(0, 8)}`),
          ],
        });
        if (res.status !== 201) throw new Error(`payout batch: ${res.status} ${JSON.stringify(res.body)}`);
        await save(
          'payoutBatchWorkflow-completed',
          `payout-batch:${merchant.merchantId}:${String(res.body.id)}`,
        );
      },
      'webhook-retried': async () => {
        const other = await createTestMerchant(s, 'Golden webhooks');
        const client = apiClient(s.baseUrl, other.credentials);
        const endpoint = await client.post('/v1/webhooks', {
          url: `http://127.0.0.1:${hookPort}/hook`,
          eventTypes: ['payin.completed'],
        });
        if (endpoint.status !== 201)
          throw new Error(`webhook: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
        await directPayin(client, 'golden-webhook', { scenario: 'completed' });
        await eventually(
          'first delivery',
          () => Promise.resolve(hookCalls),
          (n) => n >= 1,
        );
        // Recording the event starts the delivery workflow (it makes every attempt); let it exist first.
        const workflowId = `webhook:${lastEventId}:${String(endpoint.body.id)}`;
        await eventually(
          workflowId,
          () =>
            s.env.client.workflow
              .getHandle(workflowId)
              .describe()
              .then(
                () => true,
                () => false,
              ),
          (found) => found,
        );
        await save('webhookDeliveryWorkflow-retried-delivered', workflowId);
      },
      // A replay of the period to that merchant's endpoint (every event, not only failed ones): one
      // slice, its deliveries started, the workflow done.
      'webhook-replay': async () => {
        const other = await createTestMerchant(s, 'Golden replays');
        const client = apiClient(s.baseUrl, other.credentials);
        const endpoint = await client.post('/v1/webhooks', {
          url: `http://127.0.0.1:${hookPort}/replayed`,
          eventTypes: ['payin.completed'],
        });
        if (endpoint.status !== 201)
          throw new Error(`webhook: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
        const from = new Date(Date.now() - 1_000).toISOString();
        await directPayin(client, 'golden-replayed', { scenario: 'completed' });
        await eventually(
          'event recorded',
          () => client.get('/v1/events?type=payin.completed'),
          (r) => (r.body.data ?? []).length > 0,
        );
        const replay = await client.post(`/v1/webhooks/${String(endpoint.body.id)}/replay`, {
          from,
          to: new Date(Date.now() + 60_000).toISOString(),
          onlyFailed: false,
        });
        if (replay.status !== 202) throw new Error(`replay: ${replay.status} ${JSON.stringify(replay.body)}`);
        await save(
          'webhookReplayWorkflow-sent',
          `webhook-replay:${other.merchantId}:${String(replay.body.id)}`,
        );
      },
    };
    // Last: the stack's worker makes way for one whose provider health says `closed` (as the ops
    // override would), so the payout is held, then cancelled by the merchant (payout-holds-for-provider).
    scenarios['payout-held-cancelled'] = async () => {
      const { replacementWorker } = await load<StackModule>('test/helpers/stack.ts');
      const { buildActivityDeps } = await load<WiringModule>('src/main/wiring.ts');
      s.worker.shutdown();
      await eventually(
        'worker stopped',
        async () => s.worker.getState(),
        (state) => state === 'STOPPED' || state === 'FAILED',
      );
      let checked = 0;
      const deps = await buildActivityDeps({ mongo: s.mongo, config: s.config });
      const worker = await replacementWorker(s, {
        ...deps,
        providerHealth: {
          stateOf: async () => {
            checked++;
            return { state: 'closed', since: null, retryAfterSeconds: 60 };
          },
        },
      });
      const running = worker.run();
      try {
        const reference = 'golden-po-held-cancelled';
        const res = await api.post('/v1/direct/payout', {
          reference,
          customerName: 'Golden Test',
          payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        });
        if (res.status !== 201) throw new Error(`payout: ${res.status} ${JSON.stringify(res.body)}`);
        await eventually(
          'held',
          async () => checked,
          (n) => n >= 1,
        );
        const cancel = await api.post(`/v1/direct/payout/${reference}/cancel`, {});
        if (cancel.status !== 200) throw new Error(`cancel: ${cancel.status} ${JSON.stringify(cancel.body)}`);
        await save('payoutWorkflow-held-cancelled', `payout:${merchant.merchantId}:${reference}`);
      } finally {
        worker.shutdown();
        await running;
      }
    };
    for (const [name, run] of Object.entries(scenarios)) {
      if (only && !only.includes(name)) continue;
      await run();
    }
  } finally {
    await stack?.stop();
    await new Promise<void>((r) => hook.close(() => r()));
    await ferret.stop();
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
