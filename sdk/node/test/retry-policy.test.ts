import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MomoApiError, MomoPayments, MomoTimeoutError } from '../src/index';
import { backoffDelay, parseRetryAfter } from '../src/core';

// The retry policy against a local stub answering a scripted sequence: no stack needed.

type Step = { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number };

let server: Server;
let baseUrl: string;
let script: Step[] = [];
let seen: {
  method: string;
  key: string | undefined;
  at: number;
  language: string | undefined;
  auth: string | undefined;
}[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      method: req.method ?? '',
      key: req.headers['x-idempotency-key'] as string | undefined,
      at: Date.now(),
      language: req.headers['accept-language'],
      auth: req.headers.authorization,
    });
    const step = script.shift() ?? { status: 200, body: { ok: true } };
    setTimeout(() => {
      const problem = step.status >= 400;
      res.writeHead(step.status, {
        'content-type': problem ? 'application/problem+json' : 'application/json',
        'x-request-id': `req-${seen.length}`,
        ...step.headers,
      });
      res.end(
        JSON.stringify(
          step.body ??
            (problem ? { type: '/docs/errors#X', title: 'T', status: step.status, code: 'X' } : {}),
        ),
      );
    }, step.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  script = [];
  seen = [];
});

const client = (extra: Partial<ConstructorParameters<typeof MomoPayments>[0]> = {}) =>
  new MomoPayments({ apiKey: 'mk_test_a', apiClient: 'sk_test_b', baseUrl, ...extra });

const body = {
  reference: 'r-1',
  payin: { amount: 100, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
} as Parameters<MomoPayments['payins']['createDirect']>[0];

test('a 503 is retried with the same idempotency key, honouring Retry-After', async () => {
  script = [
    { status: 503, headers: { 'retry-after': '1' } },
    { status: 201, body: { id: 'pr_1' } },
  ];
  const answer = await client().payins.createDirect(body);
  expect(answer).toEqual({ id: 'pr_1' });
  expect(seen).toHaveLength(2);
  expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen[1]?.key).toBe(seen[0]?.key);
  expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  expect(seen[0]?.auth).toBe(`Basic ${Buffer.from('mk_test_a:sk_test_b').toString('base64')}`);
});

test('a 429 is retried; a given idempotency key is used as is', async () => {
  script = [
    { status: 429, headers: { 'retry-after': '0' } },
    { status: 429 },
    { status: 200, body: { id: 'pr_2' } },
  ];
  await client().payins.createDirect(body, { idempotencyKey: 'my-key-1' });
  expect(seen.map((s) => s.key)).toEqual(['my-key-1', 'my-key-1', 'my-key-1']);
});

test('a 409 REQUEST_IN_PROGRESS is retried with the same key after Retry-After', async () => {
  const inProgress = {
    status: 409,
    headers: { 'retry-after': '1' },
    body: { type: '/docs/errors#REQUEST_IN_PROGRESS', title: 'T', status: 409, code: 'REQUEST_IN_PROGRESS' },
  };
  script = [inProgress, { status: 201, body: { id: 'pr_3' } }];
  expect(await client().payins.createDirect(body)).toEqual({ id: 'pr_3' });
  expect(seen).toHaveLength(2);
  expect(seen[1]?.key).toBe(seen[0]?.key);
  expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  // Spent retries: the last 409 is thrown, with its code.
  seen = [];
  script = [0, 1, 2].map(() => ({ ...inProgress, headers: { 'retry-after': '0' } }));
  const err = (await client({ maxRetries: 2 })
    .payins.createDirect(body)
    .catch((e: unknown) => e)) as MomoApiError;
  expect(err).toMatchObject({ status: 409, code: 'REQUEST_IN_PROGRESS' });
  expect(seen).toHaveLength(3);
});

test('any other 409 is final (a duplicate refund, a key reused with another body)', async () => {
  for (const code of ['DUPLICATE_REFUND', 'IDEMPOTENCY_KEY_REUSED', 'ALREADY_FINAL']) {
    seen = [];
    script = [
      {
        status: 409,
        headers: { 'retry-after': '0' },
        body: { type: `/docs/errors#${code}`, title: 'T', status: 409, code },
      },
      { status: 201, body: { id: 'pr_4' } },
    ];
    const err = (await client()
      .payins.createDirect(body)
      .catch((e: unknown) => e)) as MomoApiError;
    expect(err).toMatchObject({ status: 409, code });
    expect(seen).toHaveLength(1);
  }
  script = [];
});

test('other 4xx are not retried and become a typed MomoApiError', async () => {
  script = [
    {
      status: 400,
      body: {
        type: '/docs/errors#VALIDATION_ERROR',
        title: 'Requête invalide',
        status: 400,
        code: 'VALIDATION_ERROR',
        detail: 'Un ou plusieurs champs sont invalides.',
        errors: [{ path: 'payin.msisdn', message: 'invalide' }],
      },
    },
  ];
  const err = (await client({ acceptLanguage: 'fr' })
    .payins.createDirect(body)
    .catch((e: unknown) => e)) as MomoApiError;
  expect(err).toBeInstanceOf(MomoApiError);
  expect(err).toMatchObject({
    status: 400,
    code: 'VALIDATION_ERROR',
    type: '/docs/errors#VALIDATION_ERROR',
    detail: 'Un ou plusieurs champs sont invalides.',
    fieldErrors: [{ path: 'payin.msisdn', message: 'invalide' }],
    requestId: 'req-1',
  });
  expect(err.message).not.toContain('+225');
  expect(seen).toHaveLength(1);
  expect(seen[0]?.language).toBe('fr');
});

test('retries stop after maxRetries and the last answer is thrown', async () => {
  script = [503, 503, 503].map((status) => ({ status, headers: { 'retry-after': '0' } }));
  const err = (await client({ maxRetries: 2 })
    .payins.get('r-1')
    .catch((e: unknown) => e)) as MomoApiError;
  expect(err.status).toBe(503);
  expect(seen).toHaveLength(3);
});

test('a timeout is retried with the same key, then thrown as MomoTimeoutError', async () => {
  script = [
    { status: 200, delayMs: 400 },
    { status: 200, delayMs: 400 },
  ];
  const err = await client({ timeoutMs: 150, maxRetries: 1 })
    .payins.createDirect(body)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MomoTimeoutError);
  expect(seen).toHaveLength(2);
  expect(seen[1]?.key).toBe(seen[0]?.key);
});

test('GETs carry no idempotency key', async () => {
  await client().payins.get('r-1');
  expect(seen[0]?.key).toBeUndefined();
});

test('backoff and Retry-After parsing', () => {
  expect(backoffDelay(1, () => 1)).toBe(500);
  expect(backoffDelay(3, () => 1)).toBe(2000);
  expect(backoffDelay(10, () => 1)).toBe(8000);
  expect(parseRetryAfter('2')).toBe(2000);
  expect(parseRetryAfter(new Date(Date.now() + 3000).toUTCString())).toBeGreaterThan(1000);
  expect(parseRetryAfter(null)).toBeUndefined();
});
