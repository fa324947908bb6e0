import { randomUUID } from 'node:crypto';
import { MomoApiError, MomoConnectionError, MomoError, MomoTimeoutError } from './errors.js';
import { apiOperations, type ApiOperationId } from './generated/operations.js';
import { sdkVersion } from './version.js';

export type Language = 'en' | 'fr';

export interface ClientOptions {
  /** The API key, `mk_test_…` or `mk_live_…`. */
  apiKey: string;
  /** The API client secret, `sk_test_…` or `sk_live_…`. */
  apiClient: string;
  /** The API's base URL, e.g. `https://api.example.com` (default `http://localhost:3000`). */
  baseUrl?: string;
  /** Language of problems' titles and details (`Accept-Language`), `en` by default. */
  acceptLanguage?: Language;
  /** Time allowed for one attempt, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /**
   * Retries after the first attempt on 429, 503, 409 `REQUEST_IN_PROGRESS`, network errors and
   * timeouts (default 3).
   */
  maxRetries?: number;
  /** A fetch implementation (default: the global fetch of Node 20). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /**
   * The `X-Idempotency-Key` of a POST; a UUID v4 is generated when absent. Yours must be a UUID (the
   * API answers 400 `IDEMPOTENCY_KEY_INVALID` to an order id), made once per operation and stored.
   */
  idempotencyKey?: string;
  acceptLanguage?: Language;
  timeoutMs?: number;
  maxRetries?: number;
  signal?: AbortSignal;
}

export interface CallInput {
  path?: Record<string, string>;
  query?: object | undefined;
  body?: unknown;
  /** The answer's body as bytes (an image), not as JSON or text. */
  bytes?: boolean;
}

const retryableStatuses = new Set([429, 503]);
/**
 * The 409 the API answers (with `Retry-After: 1`) while the first request with the same key is still
 * running or its answer is being stored: the same request sent again then gets that answer. Every
 * other 409 (a duplicate refund, a key reused with another body) is final.
 */
const retryableConflict = 'REQUEST_IN_PROGRESS';

/** Whether an answer is retried with the same idempotency key: 429, 503, 409 REQUEST_IN_PROGRESS. */
export function isRetryableAnswer(status: number, problem: unknown): boolean {
  if (retryableStatuses.has(status)) return true;
  return (
    status === 409 &&
    typeof problem === 'object' &&
    problem !== null &&
    (problem as { code?: unknown }).code === retryableConflict
  );
}
const baseDelayMs = 500;
const maxDelayMs = 8_000;
/** A Retry-After beyond this is not waited for: the error goes to the caller, who knows better. */
const maxRetryAfterMs = 60_000;

/** Exponential backoff with full jitter (AWS's): attempt 1 waits up to 0.5 s, then 1 s, 2 s, … 8 s. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
}

/** `Retry-After` in milliseconds: seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/** The HTTP core every resource goes through: credentials, idempotency, retries, timeouts, errors. */
export class HttpCore {
  readonly baseUrl: string;
  readonly authorization: string;
  readonly options: Required<Pick<ClientOptions, 'timeoutMs' | 'maxRetries'>> & ClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options.apiKey || !options.apiClient) throw new MomoError('apiKey and apiClient are required');
    this.options = { timeoutMs: 30_000, maxRetries: 3, ...options };
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${options.apiKey}:${options.apiClient}`).toString('base64')}`;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The URL of an operation, its path parameters filled in and its query appended. */
  url(operationId: ApiOperationId, input: CallInput = {}): string {
    const template: string = apiOperations[operationId].path;
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = input.path?.[name];
      if (value === undefined || value === '') throw new MomoError(`missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(input.query ?? {}) as [string, unknown][]) {
      if (value === undefined || value === null) continue;
      if (typeof value === 'object' && !Array.isArray(value)) {
        // Deep-object style (metadata[orderId]=…), as the API reads its metadata filter.
        for (const [sub, v] of Object.entries(value as Record<string, string | undefined>))
          if (v !== undefined) url.searchParams.append(`${key}[${sub}]`, v);
      } else if (Array.isArray(value))
        for (const v of value as (string | number)[]) url.searchParams.append(key, String(v));
      else url.searchParams.append(key, `${value as string | number | boolean}`);
    }
    return url.toString();
  }

  /** Calls one operation; answers its parsed JSON body (a string for text, undefined for 204). */
  async call<T>(operationId: ApiOperationId, input: CallInput = {}, opts: RequestOptions = {}): Promise<T> {
    const { method } = apiOperations[operationId];
    const url = this.url(operationId, input);
    const headers: Record<string, string> = {
      Authorization: this.authorization,
      Accept: input.bytes
        ? 'image/svg+xml, image/png, application/problem+json;q=0.9'
        : 'application/json, application/problem+json, text/csv;q=0.9',
      'Accept-Language': opts.acceptLanguage ?? this.options.acceptLanguage ?? 'en',
      'User-Agent': `momo-payments-node/${sdkVersion} node/${process.versions.node}`,
    };
    // One key per logical call, kept across this method's own retries: the API then acts once.
    const idempotencyKey = method === 'POST' ? (opts.idempotencyKey ?? randomUUID()) : undefined;
    if (idempotencyKey) headers['X-Idempotency-Key'] = idempotencyKey;
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['Content-Type'] = 'application/json';
    }
    const maxRetries = opts.maxRetries ?? this.options.maxRetries;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method, headers, body, signal });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const timedOut = timeout.aborted;
        if (attempt < maxRetries) {
          await sleep(backoffDelay(attempt + 1), opts.signal);
          continue;
        }
        // The message names the operation, never the URL's query (it may carry a phone number).
        throw timedOut
          ? new MomoTimeoutError(`${operationId}: no answer within ${timeoutMs} ms`, idempotencyKey, {
              cause: err,
            })
          : new MomoConnectionError(
              `${operationId}: the request failed (${(err as Error).name})`,
              idempotencyKey,
              {
                cause: err,
              },
            );
      }
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      if (response.ok) return (await this.parse(response, input.bytes)) as T;
      const problem = await this.parse(response).catch(() => undefined);
      if (
        isRetryableAnswer(response.status, problem) &&
        attempt < maxRetries &&
        (retryAfterMs === undefined || retryAfterMs <= maxRetryAfterMs)
      ) {
        await sleep(retryAfterMs ?? backoffDelay(attempt + 1), opts.signal);
        continue;
      }
      throw new MomoApiError({
        status: response.status,
        body: problem,
        requestId,
        idempotencyKey,
        retryAfter: retryAfterMs === undefined ? undefined : retryAfterMs / 1000,
      });
    }
  }

  private async parse(response: Response, bytes = false): Promise<unknown> {
    if (response.status === 204) return undefined;
    if (bytes) return new Uint8Array(await response.arrayBuffer());
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    if (/json/.test(type) && text !== '') return JSON.parse(text) as unknown;
    return text;
  }
}
