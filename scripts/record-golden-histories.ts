// Records the golden workflow histories (test/golden) that test/unit/golden-histories.test.ts replays.
// Each scenario below is a real transaction through the real stack (HTTP API, worker, FerretDB, the
// operator simulator) on the time-skipping test server; once its workflows end, each history is
// saved as `<workflowType>-<scenario>.json`, payloads opened (readable in review and in a diff).
//
//   npx tsx scripts/record-golden-histories.ts [--only <scenario>,<scenario>]
//
// One file per scenario of the baseline. Never re-record over them to make a change pass: a change to
// a running workflow must replay them as they are; only a new baseline (every patch retired) records
// them all again (docs/decisions/versioning/golden-histories.md). Needs `bash scripts/provision test`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { failureConverterPath, decodeHistoryPayloads } from '../src/temporal/codec';
import { buildActivityDeps } from '../src/main/wiring';
import type { ActivityDeps } from '../activities';
import { OperatorRejectedError } from '../src/operators/gateway';
import { Ledger } from '../src/ledger';
import { replacementWorker, startStack, type TestStack } from '../test/helpers/stack';
import { createTestMerchant, fundMerchant } from '../test/helpers/merchants';
import { ApiClient, eventually } from '../test/helpers/http';
import { historyToJson } from '../test/helpers/history-json';

const out = resolve(__dirname, '../test/golden');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1]!.split(',') : null;

/** What a scenario has to work with: the stack, a funded merchant's API, the page's (no credentials). */
interface World {
  stack: TestStack;
  merchantId: string;
  api: ApiClient;
  customer: ApiClient;
  /** A local merchant endpoint that refuses its very first delivery, so that delivery retries. */
  hookUrl: string;
  /** The `webhook-id` of the first delivery each path of the endpoint received. */
  firstDelivery: Map<string, string>;
}

/** A scenario does its transaction, then names the workflows to save: file name -> workflow id. */
type Scenario = (w: World) => Promise<Record<string, string>>;

const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };

// The simulator's answers are chosen by `sandboxScenario` or by the customer's number
// (src/simulator): 9902 fails ambiguously and its partner later finds the funds; 9901 never does.
async function directPayin(
  w: World,
  reference: string,
  payin: { scenario?: string; msisdn?: string; provider?: string; otp?: string },
  until: (payin: Body) => boolean,
  api = w.api,
): Promise<string> {
  await post(
    api,
    '/v1/direct/payin',
    {
      reference,
      ...(payin.scenario ? { sandboxScenario: payin.scenario } : {}),
      customerName: 'Golden Test',
      payin: {
        amount: 1000,
        msisdn: payin.msisdn ?? '+2250500000001',
        provider: payin.provider ?? 'MTN',
        country: 'CI',
        ...(payin.otp ? { otp: payin.otp } : {}),
      },
      action,
    },
    201,
  );
  await eventually(() => get(api, `/v1/payin/${reference}`), until);
  return `payin:${w.merchantId}:${reference}`;
}

async function session(w: World, reference: string): Promise<string> {
  const res = await post(
    w.api,
    '/v1/payin/sessions',
    {
      reference,
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn: '+2250500000001',
      customerName: 'Golden Test',
      country: 'CI',
      action,
    },
    201,
  );
  return new URL(String(res.paymentUrl)).pathname;
}

/** Refunds of a collected payin, each awaited to `status`; answers the payin's refund desk id. */
async function refunds(w: World, payinRef: string, asks: Record<string, unknown>[], status: string) {
  const ids = await Promise.all(
    asks.map(async (ask) => {
      const res = await post(w.api, `/v1/payin/${payinRef}/refund`, { reason: 'golden', ...ask }, 201);
      const rf = String(res.reference);
      await eventually(
        () => get(w.api, `/v1/refunds/${rf}`),
        (b) => b.status === status,
      );
      return `refund:${w.merchantId}:${rf}`;
    }),
  );
  const payin = await get(w.api, `/v1/payin/${payinRef}`);
  return { ids, desk: `refund-desk:${w.merchantId}:${String(payin.id)}` };
}

async function payout(w: World, reference: string, scenario: string | null, done: string) {
  await post(
    w.api,
    '/v1/direct/payout',
    {
      reference,
      ...(scenario ? { sandboxScenario: scenario } : {}),
      customerName: 'Golden Test',
      payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    },
    201,
  );
  if (done)
    await eventually(
      () => get(w.api, `/v1/direct/payout/${reference}`),
      (b) => b.status === done,
    );
  return `payout:${w.merchantId}:${reference}`;
}

/** Starts a workflow the way its schedule or the CLI does (no API route starts it). */
async function start(w: World, type: string, workflowId: string, args: unknown[] = []): Promise<string> {
  await w.stack.env.client.workflow.start(type, { taskQueue: w.stack.taskQueue, workflowId, args });
  return workflowId;
}

// What a scenario waits for in real time before its workflows are awaited with time skipped: the
// operator's answer must come before a skipped timer (a poll, the deadline) could overtake it.
const success = (b: Body) => b.status === 'success';
const failed = (b: Body) => b.status === 'failed';
/** The operator holds the request and says nothing (sandbox scenario `pending`). */
const asked = (b: Body) => b.confirmationStatus === 'pending';

// Every workflow type the worker registers (workflows/index.ts), in its main branches.
const scenarios: Record<string, Scenario> = {
  // A payin collected, then refunded in part: the payin, its refund desk and the refund's workflow.
  'payin-completed-refunded': async (w) => {
    const payin = await directPayin(w, 'golden-completed', { scenario: 'completed' }, success);
    const refund = await refunds(
      w,
      'golden-completed',
      [{ amount: 400, externalReference: 'rf-1' }],
      'completed',
    );
    return {
      'payinWorkflow-direct-completed': payin,
      'payinRefundDeskWorkflow-refund': refund.desk,
      'refundWorkflow-completed': refund.ids[0]!,
    };
  },
  // The operator refuses the refund: the merchant's money comes back (`reversed`).
  'refund-refused': async (w) => {
    await directPayin(w, 'golden-refund-refused', { scenario: 'completed' }, success);
    const asks = [{ amount: 600, externalReference: 'rf-2', sandboxScenario: 'failed' }];
    const refund = await refunds(w, 'golden-refund-refused', asks, 'reversed');
    return { 'refundWorkflow-failed-reversed': refund.ids[0]! };
  },
  // Four refund Updates at once: the desk answers them one by one, in the order they were accepted.
  'refunds-together': async (w) => {
    await directPayin(w, 'golden-together', { scenario: 'completed' }, success);
    const asks = [0, 1, 2, 3].map((i) => ({ amount: 100, externalReference: `rf-together-${i}` }));
    const refund = await refunds(w, 'golden-together', asks, 'completed');
    return { 'payinRefundDeskWorkflow-concurrent-refunds': refund.desk };
  },
  // Orange takes an OTP: stored apart, its id in the workflow, deleted once the operator holds it.
  'payin-orange-otp': async (w) => ({
    'payinWorkflow-direct-orange-otp': await directPayin(
      w,
      'golden-orange-otp',
      { scenario: 'completed', provider: 'ORANGE', msisdn: '+2250700000001', otp: '4821' },
      success,
    ),
  }),
  'payin-failed': async (w) => ({
    'payinWorkflow-direct-failed': await directPayin(w, 'golden-failed', { scenario: 'failed' }, failed),
  }),
  // The operator never answers: at the deadline it is asked to cancel, and confirms (`expired`).
  'payin-expired': async (w) => ({
    'payinWorkflow-direct-expired': await directPayin(w, 'golden-expired', { scenario: 'pending' }, asked),
  }),
  // An ambiguous failure: partner checks, and the third finds the funds (`payin.corrected`).
  'payin-corrected': async (w) => ({
    'payinWorkflow-direct-ambiguous-corrected': await directPayin(
      w,
      'golden-corrected',
      { msisdn: '+2250500009902' },
      failed,
    ),
  }),
  // An ambiguous failure nobody corrects: partner checks to the window's end; it stays `failed`.
  'payin-uncorrected': async (w) => ({
    'payinWorkflow-direct-ambiguous-uncorrected': await directPayin(
      w,
      'golden-uncorrected',
      { msisdn: '+2250500009901' },
      failed,
    ),
  }),
  'session-confirmed': async (w) => {
    const page = await session(w, 'golden-session');
    await post(w.customer, `${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' }, 200);
    await eventually(() => get(w.api, '/v1/payin/golden-session'), success);
    return { 'payinWorkflow-session-success': `payin:${w.merchantId}:golden-session` };
  },
  'session-declined': async (w) => {
    const page = await session(w, 'golden-session-declined');
    await post(w.customer, `${page}/decline`, {}, 200);
    return { 'payinWorkflow-session-declined': `payin:${w.merchantId}:golden-session-declined` };
  },
  // Nobody comes to the page: the session expires (time skipped).
  'session-expired': async (w) => {
    await session(w, 'golden-session-expired');
    return { 'payinWorkflow-session-expired': `payin:${w.merchantId}:golden-session-expired` };
  },
  // Patch `payin-local-activities` (workflows/shared/patches.ts): the request, the status reads and the
  // record writes as local activities, one marker each. Until the patch goes, the payin scenarios
  // above are its old path.
  'payin-local-completed': async (w) => ({
    'payinWorkflow-direct-completed-local': await directPayin(
      w,
      'golden-local-completed',
      { scenario: 'completed' },
      success,
    ),
  }),
  'payin-local-expired': async (w) => ({
    'payinWorkflow-direct-expired-local': await directPayin(
      w,
      'golden-local-expired',
      { scenario: 'pending' },
      asked,
    ),
  }),
  'payin-local-failed': async (w) => ({
    'payinWorkflow-direct-failed-local': await directPayin(
      w,
      'golden-local-failed',
      { scenario: 'failed' },
      failed,
    ),
  }),
  'session-local-expired': async (w) => {
    await session(w, 'golden-local-session-expired');
    return { 'payinWorkflow-session-expired-local': `payin:${w.merchantId}:golden-local-session-expired` };
  },
  'session-local-confirmed': async (w) => {
    const page = await session(w, 'golden-local-session');
    await post(w.customer, `${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' }, 200);
    await eventually(() => get(w.api, '/v1/payin/golden-local-session'), success);
    return { 'payinWorkflow-session-success-local': `payin:${w.merchantId}:golden-local-session` };
  },
  // Patch `refund-local-activities`: a refund's request, reads and end as local activities.
  'refund-local': async (w) => {
    await directPayin(w, 'golden-local-refunded', { scenario: 'completed' }, success);
    const refund = await refunds(
      w,
      'golden-local-refunded',
      [{ amount: 400, externalReference: 'rf-local-1' }],
      'completed',
    );
    const refused = await refunds(
      w,
      'golden-local-refunded',
      [{ amount: 300, externalReference: 'rf-local-2', sandboxScenario: 'failed' }],
      'reversed',
    );
    return {
      'refundWorkflow-completed-local': refund.ids[0]!,
      'refundWorkflow-failed-reversed-local': refused.ids[0]!,
    };
  },
  'payout-completed': async (w) => ({
    'payoutWorkflow-completed': await payout(w, 'golden-po-completed', 'completed', 'completed'),
  }),
  'payout-refused': async (w) => ({
    'payoutWorkflow-failed-reversed': await payout(w, 'golden-po-failed', 'failed', 'reversed'),
  }),
  // The operator never answers: at the deadline it is asked to cancel, confirms, the money comes back.
  'payout-expired': async (w) => ({
    'payoutWorkflow-expired-reversed': await payout(w, 'golden-po-expired', 'pending', 'processed'),
  }),
  // Two bulk items: watched until both are final, then `payout.batch.completed`.
  'payout-batch': async (w) => {
    const item = () => ({
      reference: `golden-bulk-${randomUUID().slice(0, 8)}`,
      amount: 500,
      msisdn: '+2250700000002',
      country: 'CI',
      sandboxScenario: 'completed',
    });
    const res = await post(w.api, '/v1/payouts/bulk', { items: [item(), item()] }, 201);
    return { 'payoutBatchWorkflow-completed': `payout-batch:${w.merchantId}:${String(res.id)}` };
  },
  // A statement of the funded account: generated, then `statement.ready`.
  statement: async (w) => {
    const res = await post(
      w.api,
      '/v1/statements',
      {
        accountId: await mainAccountId(w),
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
        format: 'csv',
      },
      202,
    );
    return { 'statementWorkflow-ready': `statement:${w.merchantId}:${String(res.id)}` };
  },
  // A merchant endpoint that refuses the first delivery: its dispatcher waits its backoff, drains
  // again and delivers; the endpoint is then deleted, which ends the dispatcher. (The
  // webhookDeliveryWorkflow golden was recorded when events had a delivery workflow each; it now
  // runs manual redeliveries and replays, and its golden is kept as it is.)
  'webhook-retried': async (w) => {
    const { api, endpointId } = await merchantWithEndpoint(w, 'Golden webhooks', '/hook');
    await directPayin(w, 'golden-webhook', { scenario: 'completed' }, success, api);
    const deliveries = () =>
      api
        .get<{ data: { succeeded: boolean }[] }>(`/v1/webhooks/${endpointId}/deliveries`)
        .then((r) => r.body.data);
    await eventually(deliveries, (d: { succeeded: boolean }[]) => d.some((a) => a.succeeded), 30_000);
    await api.request('DELETE', `/v1/webhooks/${endpointId}`);
    return { 'webhookDispatcherWorkflow-retried-delivered-deleted': `webhook-dispatcher:${endpointId}` };
  },
  // A replay of a period to one endpoint: one slice, its deliveries started.
  'webhook-replay': async (w) => {
    const { api, merchantId, endpointId } = await merchantWithEndpoint(w, 'Golden replays', '/replayed');
    const from = new Date(Date.now() - 1_000).toISOString();
    await directPayin(w, 'golden-replayed', { scenario: 'completed' }, success, api);
    await eventually(
      () => api.get<{ data: unknown[] }>('/v1/events?type=payin.completed').then((r) => r.body.data),
      (data: unknown[]) => data.length > 0,
    );
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await post(api, `/v1/webhooks/${endpointId}/replay`, { from, to, onlyFailed: false }, 202);
    return { 'webhookReplayWorkflow-sent': `webhook-replay:${merchantId}:${String(res.id)}` };
  },
  // The scheduled workflows and the CLI's event (src/reconciliation/ports.ts), started by hand.
  reconciliation: async (w) => ({
    'reconciliationWorkflow-day': await start(
      w,
      'reconciliationWorkflow',
      `golden-reconciliation-${randomUUID()}`,
      [{ date: new Date().toISOString().slice(0, 10), operators: ['MTN', 'ORANGE'] }],
    ),
  }),
  'recovery-sweep': async (w) => ({
    'recoverySweepWorkflow-pass': await start(w, 'recoverySweepWorkflow', `golden-recovery-${randomUUID()}`),
  }),
  'publish-event': async (w) => ({
    'publishEventWorkflow-recorded': await start(
      w,
      'publishEventWorkflow',
      `event:golden-subject:payin.corrected`,
      [
        {
          merchantId: w.merchantId,
          type: 'payin.corrected',
          subjectId: 'golden-subject',
          reference: 'golden-corrected',
          data: { reference: 'golden-corrected', status: 'success' },
        },
      ],
    ),
  }),
  // Last, as they replace the stack's worker. This one's provider health says `closed` (as the ops
  // override would), so the payout is held unsent; the merchant cancels it and gets the money back.
  'payout-held-cancelled': async (w) => {
    let checked = 0;
    const closed = { state: 'closed' as const, since: null, retryAfterSeconds: 60 };
    return withWorker(
      w,
      (deps) => ({
        ...deps,
        providerHealth: {
          stateOf: async () => {
            checked++;
            return closed;
          },
        },
      }),
      async () => {
        const id = await payout(w, 'golden-po-held', null, '');
        await eventually(
          async () => checked,
          (n) => n >= 1,
        );
        await post(w.api, '/v1/direct/payout/golden-po-held/cancel', {}, 200);
        await w.stack.env.client.workflow.getHandle(id).result();
        return { 'payoutWorkflow-held-cancelled': id };
      },
    );
  },
  // Patch `refusal-confirmed-by-status`: the operator refuses the transfer itself (a 4xx); a status
  // read finds the id unknown to it, then the money comes back. Recorded before the patch too
  // (`-unconfirmed`: reversed on the refusal alone), the history a running payout may hold.
  'payout-rejected': async (w) =>
    withWorker(
      w,
      (deps) => ({
        ...deps,
        operators: Object.assign(Object.create(deps.operators) as typeof deps.operators, {
          disburse: async () => {
            throw new OperatorRejectedError('The operator refused the request (golden history)');
          },
        }),
      }),
      async () => {
        const id = await payout(w, 'golden-po-rejected', null, 'reversed');
        // Its end, while this worker still runs (the stack's own is stopped).
        await w.stack.env.client.workflow.getHandle(id).result();
        return { 'payoutWorkflow-rejected-reversed': id };
      },
    ),
};

/**
 * Runs `fn` with the stack's worker replaced by one on altered activity dependencies (the stack's
 * own is stopped for good: the scenarios that use this come last).
 */
async function withWorker<T>(
  w: World,
  alter: (deps: ActivityDeps) => ActivityDeps,
  fn: () => Promise<T>,
): Promise<T> {
  const s = w.stack;
  if (!['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED', 'FAILED'].includes(s.worker.getState()))
    s.worker.shutdown();
  await eventually(
    async () => s.worker.getState(),
    (state) => state === 'STOPPED' || state === 'FAILED',
  );
  const worker = await replacementWorker(
    s,
    alter(await buildActivityDeps({ mongo: s.mongo, config: s.config })),
  );
  const running = worker.run();
  try {
    return await fn();
  } finally {
    worker.shutdown();
    await running;
  }
}

async function main(): Promise<void> {
  // What jest's global setup provides: a FerretDB and this tree's workflow bundle.
  const dir = mkdtempSync(join(tmpdir(), 'golden-'));
  const port = await freePort();
  const ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
  const { code } = await bundleWorkflowCode({
    workflowsPath: resolve(__dirname, '../workflows/index.ts'),
    failureConverterPath,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  writeFileSync(join(dir, 'workflow-bundle.js'), code);
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
  process.env.TEST_WORKFLOW_BUNDLE = join(dir, 'workflow-bundle.js');
  // The very first delivery to this endpoint is refused (500), every other accepted.
  const firstDelivery = new Map<string, string>();
  const hook = createServer((req, res) => {
    const first = firstDelivery.size === 0;
    if (!firstDelivery.has(req.url!)) firstDelivery.set(req.url!, String(req.headers['webhook-id']));
    req.resume().on('end', () => res.writeHead(first ? 500 : 200).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}`;

  // Short deadlines and correction window: fewer status reads and partner checks, smaller files.
  const stack = await startStack({
    PAYIN_EXPIRY: '2m',
    PAYOUT_EXPIRY: '2m',
    PAYIN_CORRECTION_WINDOW: '1h',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  try {
    const merchant = await createTestMerchant(stack, 'Golden histories');
    await fundMerchant(stack, merchant.merchantId);
    const w: World = {
      stack,
      merchantId: merchant.merchantId,
      api: new ApiClient(stack.baseUrl, merchant.credentials),
      customer: new ApiClient(stack.baseUrl, null),
      hookUrl,
      firstDelivery,
    };
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only && !only.includes(name)) continue;
      const files = await scenario(w);
      for (const [file, workflowId] of Object.entries(files)) {
        // Waits for the workflow's end: time skipping passes its timers.
        const handle = stack.env.client.workflow.getHandle(workflowId);
        await handle.result();
        const history = await decodeHistoryPayloads(
          await handle.fetchHistory(),
          stack.env.client.options.loadedDataConverter.payloadCodecs,
        );
        writeFileSync(join(out, `${file}.json`), historyToJson(history));
        console.log(`${name}: ${file}.json, ${history.events?.length} events`);
      }
    }
  } finally {
    await stack.stop();
    await new Promise<void>((r) => hook.close(() => r()));
    await ferret.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Another merchant with a webhook endpoint on the local hook, for payin.completed. */
async function merchantWithEndpoint(w: World, name: string, path: string) {
  const other = await createTestMerchant(w.stack, name);
  const api = new ApiClient(w.stack.baseUrl, other.credentials);
  const endpoint = await post(
    api,
    '/v1/webhooks',
    { url: `${w.hookUrl}${path}`, eventTypes: ['payin.completed'] },
    201,
  );
  return { api, merchantId: other.merchantId, endpointId: String(endpoint.id) };
}

async function mainAccountId(w: World): Promise<string> {
  return (await Ledger.on(w.stack.mongo).mainAccount(w.merchantId, 'XOF')).id;
}

/** The few fields of the API's answers the scenarios read. */
interface Body {
  id?: string;
  reference?: string;
  status?: string;
  confirmationStatus?: string;
  paymentUrl?: string;
}

/** POSTs and throws unless the answer has `status`. */
async function post(api: ApiClient, path: string, body: unknown, status: number): Promise<Body> {
  const res = await api.post<Body>(path, body);
  if (res.status !== status)
    throw new Error(`${path}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const get = (api: ApiClient, path: string) => api.get<Body>(path).then((r) => r.body);

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
