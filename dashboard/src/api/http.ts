// How the page talks to /dashboard/api: the session's CSRF token on every change, a fresh
// X-Idempotency-Key per user action (kept across the page's own retries of it), the chosen language,
// and problems (RFC 9457) turned into errors the forms show next to their fields.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../src/client/schema';

export type Problem = components['schemas']['Problem'];

export const apiBase = '/dashboard/api';

/** A problem the server answered, or one the page made up for a network failure (status 0). */
export class ProblemError extends Error {
  constructor(
    readonly problem: Problem,
    readonly retryAfter: number | null = null,
  ) {
    super(problem.detail ?? problem.title);
  }
  get status(): number {
    return this.problem.status;
  }
  get code(): string {
    return this.problem.code;
  }
}

const state: { csrfToken: string | null; language: string; onSessionRequired: () => void } = {
  csrfToken: null,
  language: 'en',
  onSessionRequired: () => undefined,
};

export function setCsrfToken(token: string | null): void {
  state.csrfToken = token;
}
export function setApiLanguage(language: string): void {
  state.language = language;
}
/** Called when the server answers 401 SESSION_REQUIRED: the page goes to sign-in. */
export function onSessionRequired(handler: () => void): void {
  state.onSessionRequired = handler;
}

const changing = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function commonHeaders(method: string, idempotencyKey?: string): Headers {
  const headers = new Headers({ Accept: 'application/json', 'Accept-Language': state.language });
  if (changing.has(method) && state.csrfToken) headers.set('X-CSRF-Token', state.csrfToken);
  if (idempotencyKey) headers.set('X-Idempotency-Key', idempotencyKey);
  return headers;
}

async function problemOf(response: Response): Promise<ProblemError> {
  let problem: Problem | null = null;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      const body = (await response.json()) as Partial<Problem>;
      if (typeof body.title === 'string')
        problem = { type: 'about:blank', code: 'UNKNOWN', ...body, status: response.status } as Problem;
    } catch {
      // Not JSON after all: fall through to a generic problem.
    }
  }
  problem ??= {
    type: 'about:blank',
    code: response.status >= 500 ? 'SERVICE_UNAVAILABLE' : 'UNKNOWN',
    status: response.status,
    title: response.statusText || String(response.status),
  };
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ProblemError(problem, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  if (response.status === 401 && problem.code === 'SESSION_REQUIRED') state.onSessionRequired();
  return error;
}

function networkProblem(cause: unknown): ProblemError {
  return new ProblemError({
    type: 'about:blank',
    code: 'NETWORK_ERROR',
    status: 0,
    title: cause instanceof Error ? cause.message : 'Network error',
  });
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  form?: FormData;
  /** A body sent as is, with its Content-Type (an uploaded file). */
  raw?: Blob;
  contentType?: string;
  idempotencyKey?: string;
}

export function withQuery(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A call to a dashboard-only route; resolves to the JSON body (undefined for 204). */
export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers = commonHeaders(method, opts.idempotencyKey);
  let body: BodyInit | undefined;
  if (opts.form) body = opts.form;
  else if (opts.raw) {
    headers.set('Content-Type', opts.contentType ?? 'application/octet-stream');
    body = opts.raw;
  } else if (opts.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(opts.body);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(`${apiBase}${path}`, opts.query), {
      method,
      headers,
      body,
      credentials: 'same-origin',
    });
  } catch (cause) {
    throw networkProblem(cause);
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204 || response.status === 202) {
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }
  return (await response.json()) as T;
}

/**
 * A file from a dashboard-only route (an export): fetched rather than linked, so a problem is shown
 * by the page in its language instead of replacing it; then saved under the server's file name.
 */
export async function download(path: string, query: RequestOptions['query']): Promise<void> {
  let response: Response;
  try {
    response = await fetch(withQuery(`${apiBase}${path}`, query), {
      headers: commonHeaders('GET'),
      credentials: 'same-origin',
    });
  } catch (cause) {
    throw networkProblem(cause);
  }
  if (!response.ok) throw await problemOf(response);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'export';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download: the blob can go once the event loop moves on.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

// The public API under /dashboard/api/v1, typed by the OpenAPI document (src/client/schema.d.ts).
const sessionHeaders: Middleware = {
  onRequest({ request: req }) {
    const headers = commonHeaders(req.method);
    headers.forEach((value, name) => {
      if (!req.headers.has(name)) req.headers.set(name, value);
    });
    return req;
  },
};

export const api = createClient<paths>({ baseUrl: apiBase, credentials: 'same-origin' });
api.use(sessionHeaders);

/** Unwraps an openapi-fetch answer: the data, or a ProblemError. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (cause) {
    throw networkProblem(cause);
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) {
    const problem = (error ?? {}) as Partial<Problem>;
    const full: Problem = {
      type: 'about:blank',
      code: 'UNKNOWN',
      title: response.statusText || String(response.status),
      ...problem,
      status: response.status,
    };
    if (response.status === 401 && full.code === 'SESSION_REQUIRED') state.onSessionRequired();
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ProblemError(full, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  return data as T;
}

/** Whether the page may send the same action again by itself (with the same idempotency key). */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ProblemError)) return false;
  return (
    error.status === 0 ||
    error.status === 503 ||
    (error.status === 409 && error.code === 'REQUEST_IN_PROGRESS') ||
    (error.status === 429 && error.code === 'RATE_LIMITED')
  );
}

/** The messages of a problem's errors[], by field: the full path and its last segment. */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ProblemError)) return out;
  for (const e of error.problem.errors ?? []) {
    const last =
      e.path
        .split(/[.[\]/]/)
        .filter(Boolean)
        .pop() ?? e.path;
    out[e.path] ??= e.message;
    out[last] ??= e.message;
  }
  return out;
}
