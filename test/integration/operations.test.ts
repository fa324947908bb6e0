import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import { ApiClient, eventually } from '../helpers/http';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { buildApi } from '../../src/main/wiring';
import { createLogger } from '../../src/infra/logger';
import { declaredOperations } from '../../src/api/openapi/registry';
import { openApiDocument } from '../../src/api/openapi/document';

// Operations on the real stack: the contract served, structured logs, Prometheus metrics, and
// the on-call timeline of a real payin read from its workflow history and the ledger.

const bin = join(__dirname, '../../bin/payments.js');

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', ...env }, timeout: 90_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Every route the Express app serves, as an OpenAPI template (`/v1/payin/{reference}`). */
function expressRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths)
          for (const m of Object.keys(layer.route.methods))
            out.push(`${m.toUpperCase()} ${String(p).replace(/:(\w+)/g, '{$1}')}`);
      } else if (layer.handle?.stack && layer.rawPath !== '/dashboard') walk(layer.handle.stack);
      // The dashboard's own routes are not the public API's (docs/dashboard.md lists them, and
      // dashboard-security.test.ts walks them); its /dashboard/api/v1 door mounts the same routers.
    }
  };
  walk((app as any).router.stack);
  return out;
}

describe('operations: contract, logs, metrics and the transaction timeline', () => {
  let stack: TestStack;
  let merchant: TestMerchant;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  const lines: Record<string, any>[] = [];
  let logged: { app: Express; server: Server; api: ApiClient };
  const reference = 'ops-order-1';

  beforeAll(async () => {
    stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    merchant = await createTestMerchant(stack);
    receiver = await startReceiver();
    // A second API on the same stack whose log lines this test reads.
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    });
    const app = await buildApi({
      config: stack.config,
      mongo: stack.mongo,
      temporal: stack.env.client,
      logger: createLogger('info', { role: 'api' }, sink),
    });
    const server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    const addr = server.address();
    const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    logged = { app, server, api: new ApiClient(url, merchant.credentials) };
    api = new ApiClient(stack.baseUrl, merchant.credentials);
  });
  afterAll(async () => {
    await new Promise<void>((res) => logged?.server.close(() => res()));
    await receiver?.close();
    await stack?.stop();
  });

  it('documents exactly the routes the app serves', () => {
    const served = new Set(expressRoutes(logged.app).filter((r) => !r.includes('/docs')));
    const documented = new Set(declaredOperations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
  });

  it('serves the OpenAPI document and the interactive reference', async () => {
    const doc = await api.get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    const page = await fetch(`${stack.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/assets/swagger-ui-bundle.js');
    const bundle = await fetch(`${stack.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  });

  it('logs every request as JSON with its request id, merchant and workflow; masks numbers, never logs secrets', async () => {
    const hook = await logged.api.post('/v1/webhooks', { url: `${receiver.url}/hooks` });
    expect(hook.status).toBe(201);
    const created = await logged.api.post(
      '/v1/direct/payin',
      {
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 5000, msisdn: '+2250700000011', provider: 'ORANGE', country: 'CI', otp: '123456' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      },
      { 'x-request-id': 'req-ops-0001' },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('req-ops-0001');
    const generated = await logged.api.get(`/v1/payin/${reference}`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const line = await eventually(
      async () => lines.find((l) => l.requestId === 'req-ops-0001' && l.res),
      (l) => !!l,
    );
    expect(line).toMatchObject({
      level: 30,
      service: 'momo-payments',
      requestId: 'req-ops-0001',
      merchantId: merchant.merchantId,
      workflowId: `payin:${merchant.merchantId}:${reference}`,
      req: { method: 'POST', url: '/v1/direct/payin' },
      res: { statusCode: 201 },
    });
    expect(typeof line?.responseTime).toBe('number');
    const all = JSON.stringify(lines);
    expect(all).not.toContain('+2250700000011');
    expect(all).not.toContain('123456');
    expect(all).not.toContain(merchant.credentials.apiClient);
    expect(all.toLowerCase()).not.toContain('basic ');
    expect(lines.every((l) => l.requestId)).toBe(true);
  });

  it('masks phone numbers, OTPs and secrets wherever they appear in a log line', () => {
    const captured: Record<string, any>[] = [];
    const logger = createLogger(
      'info',
      {},
      new Writable({
        write(chunk: Buffer, _e, done) {
          captured.push(JSON.parse(chunk.toString()));
          done();
        },
      }),
    );
    logger.info(
      {
        payin: { msisdn: '+2250700000011', otp: '4321' },
        customer: { phoneNumber: '+237650000001' },
        secret: 'whsec_x',
      },
      'asked +2250700000011 to confirm',
    );
    expect(captured[0]).toMatchObject({
      payin: { msisdn: '+225******0011', otp: '[redacted]' },
      customer: { phoneNumber: '+237******0001' },
      secret: '[redacted]',
      msg: 'asked +225******0011 to confirm',
    });
  });

  it('exposes the named series on /metrics after traffic', async () => {
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    await eventually(
      async () => receiver.received.length,
      (n) => n > 0,
    );
    const res = await eventually(
      async () => {
        const r = await fetch(`${stack.baseUrl}/metrics`);
        return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
      },
      (r) => /payments_webhook_deliveries_total\{outcome="delivered"\} [1-9]/.test(r.text),
    );
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(
      /payments_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/v1\/direct\/payin",status="201"\} [1-9]/,
    );
    expect(text).toMatch(
      /payments_http_request_duration_seconds_count\{method="GET",route="\/v1\/payin\/:reference",status="200"\}/,
    );
    expect(text).toMatch(
      /payments_transactions_created_total\{kind="payin",status="processing",provider="ORANGE_CI"\} 1/,
    );
    expect(text).toMatch(
      /payments_transactions_finished_total\{kind="payin",status="success",provider="ORANGE_CI"\} 1/,
    );
    expect(text).toMatch(/payments_ledger_postings_total [1-9]/);
    // The Temporal worker's own series, from the SDK's Prometheus exporter.
    expect(text).toMatch(/^temporal_\w+/m);
    expect(text).toMatch(/temporal_activity_execution_latency|temporal_workflow_completed|temporal_request/);
  });

  it('`payments transactions show` prints the payin timeline from its workflow history and the ledger', async () => {
    const env = {
      MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
      TEMPORAL_ADDRESS: stack.env.address,
      // A loaded CI machine can take longer than the CLI's default 3 s to answer.
      PAYMENTS_CLI_CONNECT_TIMEOUT_MS: '20000',
    };
    const human = await cli(['transactions', 'show', reference, '--merchant', merchant.merchantId], env);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`workflow payin:${merchant.merchantId}:${reference}`);
    expect(human.stdout).toMatch(
      /payin ops-order-1 \(pr_\w+\): success, 5000 XOF, provider ORANGE_CI, customer \+225\*+0011/,
    );
    expect(human.stdout).toMatch(/\d{4}-\d\d-\d\dT[\d:.]+Z\s+workflow payinWorkflow started/);
    // Its result is a sealed payload in history: shown, the timeline opened it (src/temporal/codec.ts).
    expect(human.stdout).toMatch(/requestCollection\s+completed: \{"outcome":/);
    expect(human.stdout).toMatch(/status\s+→ success/);
    expect(human.stdout).toMatch(/Ledger\n\s+\S+Z\s+\S+\s+[+-]\d+\s+balance/);
    expect(human.stdout).not.toContain('+2250700000011');

    const json = await cli(
      ['transactions', 'show', reference, '--merchant', merchant.merchantId, '--json'],
      env,
    );
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: '' });
    const timeline = JSON.parse(json.stdout);
    const steps = timeline.steps.map((s: { step: string }) => s.step);
    expect(steps[0]).toBe('workflow payinWorkflow started');
    expect(steps).toEqual(expect.arrayContaining(['requestCollection', 'status']));
    // The success is recorded by the status read that finds it, or by its own step.
    expect(steps.some((s: string) => s === 'readCollectionAndSettle' || s === 'recordPayinOutcome')).toBe(
      true,
    );
    expect(timeline.ledger.length).toBeGreaterThan(0);

    const missing = await cli(['transactions', 'show', 'nope', '--merchant', merchant.merchantId], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `error: no payin, payout or refund nope for merchant ${merchant.merchantId} (test mode); check --merchant and --mode, or pass --kind to read its workflow alone\n`,
    );
    // With --kind, the workflow alone is looked for.
    const noWorkflow = await cli(
      ['transactions', 'show', 'nope', '--merchant', merchant.merchantId, '--kind', 'payout'],
      env,
    );
    expect(noWorkflow.stderr).toBe(`error: no payout nope for merchant ${merchant.merchantId} (test mode)\n`);
  });
});
