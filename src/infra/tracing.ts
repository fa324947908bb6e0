import { context, propagation, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

// OpenTelemetry traces (docs/operations.md#traces): off by default, on with OTEL_TRACES_EXPORTER.
// Spans leave the process only through `PrivateSpans`, which keeps an allowlist of attributes and
// cuts URLs to their path: a query string, a header or an error message may quote a phone number.

/** The configuration's OTEL_ entries (src/config.ts, docs/configuration.md). */
export interface TracingConfig {
  OTEL_TRACES_EXPORTER: 'none' | 'otlp' | 'zipkin';
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_ZIPKIN_ENDPOINT?: string | undefined;
}

export interface Tracing {
  /** The span processor the worker hands to the workflows' span sink. */
  processor: SpanProcessor;
  resource: Resource;
  shutdown(): Promise<void>;
}

/** The attributes a span may carry out: methods, routes, statuses, hosts and Temporal's ids. */
const allowed = new Set([
  'http.method',
  'http.request.method',
  'http.route',
  'http.status_code',
  'http.response.status_code',
  'url.scheme',
  'url.path',
  'server.address',
  'server.port',
  'network.peer.port',
  'error.type',
  'temporalWorkflowId',
  'temporalActivityId',
  'temporalUpdateId',
  'run_id',
  'payments.request_id',
]);
/** Path-like attributes are kept without their query string. */
const paths = new Set(['url.path', 'http.route']);

function privateAttributes(attributes: ReadableSpan['attributes']): ReadableSpan['attributes'] {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!allowed.has(key)) continue;
    kept[key] = paths.has(key) && typeof value === 'string' ? value.split('?')[0] : value;
  }
  return kept as ReadableSpan['attributes'];
}

/** A span as it may leave the process: allowed attributes, no event or status message. */
export function privateSpan(span: ReadableSpan): ReadableSpan {
  return Object.create(span, {
    attributes: { value: privateAttributes(span.attributes) },
    // Exception events carry the error's message and stack: their type is enough to find the logs.
    events: {
      value: span.events.map((e) => ({
        ...e,
        attributes: e.attributes?.['exception.type']
          ? { 'exception.type': e.attributes['exception.type'] }
          : {},
      })),
    },
    status: { value: { code: span.status.code } },
    links: { value: [] },
  }) as ReadableSpan;
}

/** Exports through `inner` what `privateSpan` lets out. */
export class PrivateSpans implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      this.inner.export(spans.map(privateSpan), done);
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function exporterOf(config: TracingConfig): SpanExporter | null {
  switch (config.OTEL_TRACES_EXPORTER) {
    case 'otlp':
      return new OTLPTraceExporter({
        url: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? 'http://localhost:4318/v1/traces',
      });
    case 'zipkin':
      return new ZipkinExporter({
        url: config.OTEL_EXPORTER_ZIPKIN_ENDPOINT ?? 'http://localhost:9411/api/v2/spans',
      });
    default:
      return null;
  }
}

/** The workflows' tracing interceptors (in the bundle: a workflow cannot load them at run time). */
export const tracedWorkflowInterceptors =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** The pre-built bundle with those interceptors, beside the plain one (npm run build writes both). */
export const tracedBundlePath = (bundlePath: string) => bundlePath.replace(/(\.js)?$/, '.traced.js');

let current: Tracing | null = null;

/**
 * Starts tracing for this process once (`service`: api, worker, embedded), or returns null when
 * OTEL_TRACES_EXPORTER is `none`. `exporter` replaces the configured one (tests read spans).
 */
export function startTracing(
  config: TracingConfig,
  service: string,
  exporter: SpanExporter | null = exporterOf(config),
): Tracing | null {
  if (current) return current;
  if (!exporter) return null;
  const resource = new Resource({ 'service.name': `momo-payments-${service}` });
  const processor = new BatchSpanProcessor(new PrivateSpans(exporter), { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  // Operator and webhook calls go through fetch (undici): a client span each, its URL cut to the path.
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new UndiciInstrumentation()],
  });
  current = {
    processor,
    resource,
    shutdown: async () => {
      unregister();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      current = null;
    },
  };
  return current;
}

/** This process's tracing, when started. */
export const tracing = (): Tracing | null => current;

/** The trace id of the span running here, for log lines and problem documents. */
export function currentTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  const id = span?.spanContext().traceId;
  return id && span.spanContext().traceFlags & 1 ? id : undefined;
}

/**
 * The server span of one HTTP request, continuing the caller's trace (`traceparent`). Its name is
 * set to the route key once a route matched (src/api/routing.ts), never to the raw URL.
 */
export function startRequestSpan(
  method: string,
  headers: Record<string, string | string[] | undefined>,
): { span: Span; run<T>(fn: () => T): T } | null {
  if (!current) return null;
  const parent = propagation.extract(context.active(), headers);
  const span = trace
    .getTracer('momo-payments-api')
    .startSpan(
      `HTTP ${method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
  const ctx = trace.setSpan(parent, span);
  return { span, run: (fn) => context.with(ctx, fn) };
}

/** Names the request's span after its route (a key of the route table: no identifier in it). */
export function nameRequestSpan(routeKey: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(routeKey);
  span.setAttribute('http.route', routeKey.split(' ')[1] ?? routeKey);
}

export function endRequestSpan(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
