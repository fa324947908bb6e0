import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { negotiateLanguage } from '../contract/i18n';
import { renderProblem } from '../contract/render-problem';
import { ApiProblem, type Problem } from '../contract/problems';
import { isDependencyUnavailable, RETRY_AFTER_SECONDS } from '../persistence/unavailable';

// Every error leaves the API as application/problem+json (RFC 9457): the contract's catalogue
// (src/contract/problems.ts) says what each code means; this file only sends it.

export { renderProblem };

export function sendProblem(res: Response, problem: Problem, headers: Record<string, string> = {}): void {
  res.status(problem.status).set(headers).type('application/problem+json').send(JSON.stringify(problem));
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, renderProblem('NOT_FOUND', negotiateLanguage(req), {}, req.originalUrl));
};

/** Last handler: known problems as they are, body-parser errors as 4xx, anything else a bare 500. */
export function errorHandler(log: (err: unknown) => void): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const lang = negotiateLanguage(req);
    if (err instanceof ApiProblem) {
      return sendProblem(res, renderProblem(err.code, lang, err.extra, req.originalUrl), err.extra.headers);
    }
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed') return sendProblem(res, renderProblem('MALFORMED_JSON', lang));
    if (e.type === 'entity.too.large') return sendProblem(res, renderProblem('PAYLOAD_TOO_LARGE', lang));
    // Unsupported charset or Content-Encoding of a JSON body.
    if (e.status === 415) return sendProblem(res, renderProblem('UNSUPPORTED_MEDIA_TYPE', lang));
    if (e.status && e.status >= 400 && e.status < 500)
      return sendProblem(res, renderProblem('VALIDATION_ERROR', lang));
    // A dependency down (MongoDB, Temporal) is the client's cue to retry, not a server bug.
    if (isDependencyUnavailable(err))
      return sendProblem(res, renderProblem('SERVICE_UNAVAILABLE', lang, {}, req.originalUrl), {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    log(err);
    sendProblem(res, renderProblem('INTERNAL_ERROR', lang, {}, req.originalUrl));
  };
}
