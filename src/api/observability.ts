import { randomUUID } from 'node:crypto';
import { type Router, type Request, type RequestHandler, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { endRequestSpan, startRequestSpan } from '../infra/tracing';
import { logContext, type LogContext } from '../infra/log-context';
import { maskText } from '../infra/log-masking';
import {
  httpRequestDuration,
  metricsContentType,
  renderMetrics,
  transactionsCreated,
} from '../infra/metrics';
import type { InternalAccess } from '../infra/metrics-server';
import { refundWorkflowId, transactionWorkflowId } from '../temporal/workflow-ids';
import { newRouter, route } from './routing';

// Request ids, access logs and HTTP metrics, mounted first so every route is measured and every
// log line of a request carries its id.

const requestIdPattern = /^[A-Za-z0-9._:-]{1,100}$/;

/** The route template (`/v1/payin/:reference`), never the raw path: ids would explode cardinality. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  if (Array.isArray(path)) return String(path[0]);
  if (req.originalUrl.startsWith('/checkout/assets/')) return '/checkout/assets';
  return req.originalUrl.startsWith('/docs/assets/') ? '/docs/assets' : 'unmatched';
}

/** The workflow of a transaction record the API answers (src/temporal/workflow-ids.ts). */
function workflowIdOf(merchantId: string | undefined, body: unknown): string | undefined {
  if (!merchantId || !body || typeof body !== 'object') return undefined;
  const b = body as { type?: unknown; reference?: unknown; customerReference?: unknown };
  if (b.type === 'refund' && typeof b.reference === 'string')
    return refundWorkflowId(merchantId, b.reference);
  const reference = typeof b.customerReference === 'string' ? b.customerReference : b.reference;
  if ((b.type === 'payin' || b.type === 'payout') && typeof reference === 'string')
    return transactionWorkflowId(b.type, merchantId, reference);
  return undefined;
}

/** A creation answered 201: one transaction accepted (a replay or a 200 is not a new one). */
function countCreation(status: number, body: unknown): void {
  if (status !== 201 || !body || typeof body !== 'object') return;
  const b = body as { type?: unknown; status?: unknown; mobileMoney?: { provider?: { name?: string } } };
  if (b.type !== 'payin' && b.type !== 'payout' && b.type !== 'refund') return;
  transactionsCreated.inc({
    kind: b.type,
    status: typeof b.status === 'string' ? b.status : 'unknown',
    provider: b.mobileMoney?.provider?.name ?? 'none',
  });
}

/** `internal`: who may read /metrics (others get the plain 404 of an unknown path). */
export function observability(logger: Logger, internal: InternalAccess): Router {
  const router = newRouter();

  const context: RequestHandler = (req, res, next) => {
    const given = req.get('x-request-id');
    const requestId = given && requestIdPattern.test(given) ? given : randomUUID();
    res.set('X-Request-Id', requestId);
    const ctx: LogContext = { requestId };
    res.locals.logContext = ctx;
    // The answer names the transaction's workflow: remember it for the access log and metrics.
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      ctx.merchantId ??= req.merchantId;
      ctx.workflowId ??= workflowIdOf(req.merchantId, body);
      if (!res.get('Idempotent-Replayed')) countCreation(res.statusCode, body);
      return json(body);
    };
    const started = process.hrtime.bigint();
    // With tracing on (OTEL_TRACES_EXPORTER), the request's span; its trace id goes beside the
    // request id, in the answer's headers and every log line, so support finds both from either.
    const traced = startRequestSpan(req.method, req.headers);
    if (traced) {
      traced.span.setAttribute('payments.request_id', requestId);
      const traceId = traced.span.spanContext().traceId;
      ctx.traceId = traceId;
      res.set('X-Trace-Id', traceId);
    }
    res.on('finish', () => {
      httpRequestDuration.observe(
        { method: req.method, route: routeOf(req), status: String(res.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      if (traced) endRequestSpan(traced.span, res.statusCode);
    });
    if (traced) traced.run(() => logContext.run(ctx, next));
    else logContext.run(ctx, next);
  };

  router.use(
    context,
    pinoHttp({
      logger,
      genReqId: (_req, res) => ((res as Response).locals.logContext as LogContext).requestId,
      // The mixin of our logger already adds requestId; pino-http's own `reqId` would repeat it.
      quietReqLogger: true,
      customAttributeKeys: { reqId: 'requestId' },
      customProps: (req) => ({ merchantId: (req as Request).merchantId }),
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      // Headers are never logged (Authorization); a query string may hold a phone number or a
      // credential (a statement link's signature, MTN's callback sig): masked, and redacted.
      serializers: {
        req: (req: { method: string; url: string }) => ({
          method: req.method,
          url: maskText(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/health/live' || req.url === '/metrics' },
    }),
  );

  route(router, 'GET /metrics', async (req, res, next) => {
    if (!internal(req)) return next();
    res.type(metricsContentType).send(await renderMetrics());
  });
  return router;
}
