import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { assertConforms, isServiceResponse } from './contract';

// A tiny fetch wrapper for API tests: JSON in and out, Basic credentials, an idempotency key per POST.
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Credentials {
  apiKey: string;
  apiClient: string;
}

export function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.apiKey}:${c.apiClient}`).toString('base64')}`;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials | null,
    readonly defaultHeaders: Record<string, string> = {},
    /** Abort a request unanswered after this long (none by default). */
    readonly timeoutMs?: number,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...this.defaultHeaders, ...headers };
    if (this.credentials) h.authorization ??= basic(this.credentials);
    if (body !== undefined) h['content-type'] ??= 'application/json';
    if (method === 'POST') h['x-idempotency-key'] ??= randomUUID();
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      ...(this.timeoutMs ? { signal: AbortSignal.timeout(this.timeoutMs) } : {}),
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    // Every answer of the service must be what its OpenAPI document says (test/helpers/contract.ts).
    if (isServiceResponse(res.headers))
      assertConforms(method, path, {
        status: res.status,
        contentType: res.headers.get('content-type'),
        body: parsed,
      });
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = any>(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
}

/** Polls until `check` holds (real time; the worker and the sandbox answer in milliseconds). */
export async function eventually<T>(
  fn: () => Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!check(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs}ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

/** Sends raw bytes and reads the whole answer: what a client with a broken header gets. */
export async function rawRequest(
  baseUrl: string,
  bytes: string,
): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
  });
}
