import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { startTracing, tracing } from '../../src/infra/tracing';
import { tracedTestBundle } from '../helpers/traced-bundle';
import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';

// Tracing on (OTEL_TRACES_EXPORTER=otlp), as an operator turns it on: a payin, a payout and a refund
// through the API, the spans read as they leave the process (OTLP/HTTP JSON to a receiver here).
// One trace runs from the HTTP request through the workflow start, the workflow and its activities
// to the operator call; no span carries a phone number, a name or a query string.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const customer = { msisdn: '+2250512340011', national: '0512340011', name: 'Aya Ouattara' };
const beneficiary = { msisdn: '+2250598760022', national: '0598760022', name: 'Mamadou Sangaré' };
const forbidden = ['+225', customer.national, beneficiary.national, 'Ouattara', 'Sangaré', 'Sangar'];

const bodies: string[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  // The worker runs the bundle's traced twin, which `npm run build` writes beside it.
  await tracedTestBundle('stack');
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  startTracing(
    { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url },
    'test',
    new OTLPTraceExporter({ url }),
  );
}, 120_000);

const { api } = useStack({ merchant: 'Traced merchant', fund: 100_000 });

afterAll(async () => {
  await tracing()?.shutdown();
  await new Promise((r) => receiver.close(r));
});

const spans = (): OtlpSpan[] =>
  bodies.flatMap((b) =>
    (JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap(
      (r) => r.scopeSpans.flatMap((s) => s.spans),
    ),
  );

describe('OpenTelemetry traces', () => {
  const traces: Record<string, string> = {};

  it('a payin, a payout and a refund each run under the trace of their request', async () => {
    const payin = await api.post('/v1/direct/payin', {
      reference: 'trace-payin',
      sandboxScenario: 'completed',
      customerName: customer.name,
      payin: { amount: 5000, msisdn: customer.msisdn, provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(payin.status).toBe(201);
    traces.payin = payin.headers.get('x-trace-id')!;
    expect(traces.payin).toMatch(/^[0-9a-f]{32}$/);
    await eventually(
      () => api.get('/v1/payin/trace-payin?msisdn=%2B2250512340011'),
      (r) => r.body.status === 'success',
      30_000,
    );
    const payout = await api.post('/v1/direct/payout', {
      reference: 'trace-payout',
      sandboxScenario: 'completed',
      customerName: beneficiary.name,
      payout: { amount: 2000, msisdn: beneficiary.msisdn, provider: 'MTN', country: 'CI' },
    });
    expect(payout.status).toBe(201);
    traces.payout = payout.headers.get('x-trace-id')!;
    const refund = await api.post('/v1/payin/trace-payin/refund', {
      reason: 'customer changed their mind',
      amount: 1000,
      externalReference: 'trace-rf',
    });
    expect(refund.status).toBe(201);
    traces.refund = refund.headers.get('x-trace-id')!;
    await eventually(
      () => api.get('/v1/direct/payout/trace-payout'),
      (r) => r.body.status === 'completed',
      30_000,
    );
    await eventually(
      () => api.get(`/v1/refunds/${String(refund.body.reference)}`),
      (r) => r.body.status === 'completed',
      30_000,
    );
    await tracing()!.processor.forceFlush();

    const of = (traceId: string) => spans().filter((s) => s.traceId === traceId);
    const names = (traceId: string) => new Set(of(traceId).map((s) => s.name));
    await eventually(
      async () => {
        await tracing()!.processor.forceFlush();
        return names(traces.payin!);
      },
      (n) => [...n].some((name) => name.startsWith('RunActivity:')),
      20_000,
    );
    const payinSpans = names(traces.payin);
    expect(payinSpans).toContain('POST /v1/direct/payin');
    expect(payinSpans).toContain('StartWorkflow:payinWorkflow');
    expect(payinSpans).toContain('RunWorkflow:payinWorkflow');
    expect([...payinSpans].filter((n) => n.startsWith('RunActivity:')).length).toBeGreaterThan(0);
    // The operator's call, through fetch: a client span (kind 3) under the payin's trace.
    expect(of(traces.payin).filter((s) => s.kind === 3).length).toBeGreaterThan(0);
    expect(names(traces.payout)).toContain('POST /v1/direct/payout');
    expect(names(traces.payout)).toContain('StartWorkflow:payoutWorkflow');
    expect(names(traces.refund)).toContain('POST /v1/payin/:reference/refund');
    // One root per trace: the caller's own span (this test's fetch, traced too), whose `traceparent`
    // the request's span continues (a long workflow's own span, still open, is not exported yet).
    for (const [kind, traceId] of Object.entries(traces)) {
      const roots = of(traceId).filter((s) => !s.parentSpanId);
      expect({ kind, roots: roots.map((s) => [s.name, s.kind]) }).toEqual({ kind, roots: [['POST', 3]] });
      const request = of(traceId).find((s) => s.kind === 2)!;
      expect(request.parentSpanId).toBe(roots[0]!.spanId);
    }
  }, 180_000);

  it('no span carries a phone number, a name or a query string', () => {
    const text = bodies.join('\n');
    expect(text.length).toBeGreaterThan(0);
    expect(forbidden.filter((s) => text.includes(s))).toEqual([]);
    expect(text).not.toContain('msisdn=');
    for (const span of spans())
      for (const attribute of span.attributes ?? [])
        expect(JSON.stringify(attribute.value)).not.toMatch(/\?/);
  });
});
