import type { RequestHandler, Response } from 'express';
import { keepBody, maskPath } from './mask';
import { newRequestLogId, type RequestLogStore } from './store';

// Records every request of a merchant once its answer is sent: mounted after the authentication
// (the scope is known) and before the routers, it sees the final status and the body sent. The write
// happens after the answer and its failure is only logged: the log never delays nor fails a request.

export interface RequestLogOptions {
  store: RequestLogStore;
  /** Told of a write that failed (the request itself was answered). */
  onError: (err: unknown) => void;
}

/** Where the middleware keeps the body sent, for the 'finish' listener. */
const SENT = Symbol('requestLogSent');
type WithSent = Response & { [SENT]?: unknown };

function problemOf(status: number, body: unknown): { type: string | null; code: string | null } {
  if (status < 400 || body === undefined) return { type: null, code: null };
  try {
    const parsed = (
      typeof body === 'string'
        ? JSON.parse(body)
        : Buffer.isBuffer(body)
          ? JSON.parse(body.toString('utf8'))
          : body
    ) as {
      type?: unknown;
      code?: unknown;
    };
    return {
      type: typeof parsed.type === 'string' ? parsed.type : null,
      code: typeof parsed.code === 'string' ? parsed.code : null,
    };
  } catch {
    return { type: null, code: null };
  }
}

export function requestLog(opts: RequestLogOptions): RequestHandler {
  return (req, res, next) => {
    const startedAt = performance.now();
    const at = new Date();
    // res.json() ends in res.send(), so the body is seen once, as the text sent.
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      (res as WithSent)[SENT] = body;
      return send(body);
    };
    // 'close' also comes when the client went away before the end: the request happened all the same.
    res.once('close', () => {
      const scope = req.merchantId;
      if (!scope) return;
      const sent = (res as WithSent)[SENT];
      const durationMs = Math.round(performance.now() - startedAt);
      // After the answer left: the write and the masking never hold it.
      setImmediate(() => {
        try {
          const problem = problemOf(res.statusCode, sent);
          const request = keepBody(req.body as unknown);
          const response = keepBody(sent);
          opts.store
            .record({
              id: newRequestLogId(),
              scope,
              method: req.method,
              path: maskPath(req.originalUrl),
              status: res.statusCode,
              problemType: problem.type,
              problemCode: problem.code,
              idempotencyKey: req.get('x-idempotency-key')?.slice(0, 255) ?? null,
              durationMs,
              requestId: res.get('x-request-id') ?? null,
              apiKey: req.apiKey ?? 'dashboard',
              at,
              requestBody: request.text,
              responseBody: response.text,
              truncated: request.truncated || response.truncated,
            })
            .catch(opts.onError);
        } catch (err) {
          opts.onError(err);
        }
      });
    });
    next();
  };
}
