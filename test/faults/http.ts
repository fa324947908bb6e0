import { randomUUID } from 'node:crypto';
import { basic, type Credentials } from '../helpers/http';

// The fault suite's merchant client (test/faults/faults.test.ts): plain fetch, so that no answer is
// checked against the OpenAPI document mid-run, and a record of the 5xx answers it got.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON over fetch with the merchant's Basic credentials; counts 5xx answers other than 503. */
export class Http {
  readonly serverErrors: string[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: Credentials,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    authenticated = true,
  ): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(authenticated ? { authorization: basic(this.credentials) } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: Record<string, any>;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, any>) : {};
    } catch {
      parsed = { text };
    }
    if (res.status >= 500 && res.status !== 503)
      this.serverErrors.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, body: parsed };
  }

  /** POSTs until accepted, with one idempotency key, as a client would: in flight (409), 429, 503 and dropped connections are retried. */
  async create(path: string, body: unknown, until: number): Promise<Record<string, any>> {
    const key = randomUUID();
    for (;;) {
      const res = await this.request('POST', path, body, { 'x-idempotency-key': key }).catch(() => null);
      if (res && (res.status === 200 || res.status === 201)) return res.body;
      const retry =
        res &&
        (res.status === 429 ||
          res.status === 503 ||
          (res.status === 409 && res.body.code === 'REQUEST_IN_PROGRESS'));
      if (res && !retry) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (Date.now() > until)
        throw new Error(
          `${path} not accepted within the budget (last ${res ? `${res.status} ${res.body.code ?? ''}` : 'no answer'})`,
        );
      await sleep(300);
    }
  }
}
