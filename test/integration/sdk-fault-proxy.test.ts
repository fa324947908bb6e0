import { createServer, type Server } from 'node:http';
import { startFaultProxy, type FaultProxy } from '../sdk/fault-proxy';

// The SDK suites' fault proxy (test/sdk/fault-proxy.ts) in front of a tiny server that counts what
// reaches it: arming, the log, and untouched pass-through.

let api: Server;
let proxy: FaultProxy;
const reached: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      reached.push({ method: req.method!, url: req.url!, body });
      res.writeHead(req.url === '/v1/bad' ? 422 : 201, {
        'Content-Type': 'application/json',
        'X-Request-Id': 'api-1',
      });
      res.end(JSON.stringify({ id: `obj_${reached.length}`, echo: body }));
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  proxy = await startFaultProxy(`http://127.0.0.1:${(api.address() as { port: number }).port}`);
});

afterAll(async () => {
  await proxy.close();
  await new Promise((r) => api.close(r));
});

beforeEach(async () => {
  reached.length = 0;
  await fetch(`${proxy.url}/__faults`, { method: 'DELETE' });
  await fetch(`${proxy.url}/__faults/log`, { method: 'DELETE' });
});

const post = (path: string, key: string, body = '{"amount":100}') =>
  fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Idempotency-Key': key },
    body,
  });
const arm = (fault: object) =>
  fetch(`${proxy.url}/__faults`, { method: 'POST', body: JSON.stringify(fault) }).then((r) => r.status);
const log = (): Promise<any[]> => fetch(`${proxy.url}/__faults/log`).then((r) => r.json() as Promise<any[]>);

test('passes requests and answers through untouched, and logs them', async () => {
  const res = await post('/v1/payins?x=1', 'k-1');
  expect(res.status).toBe(201);
  expect(res.headers.get('x-request-id')).toBe('api-1');
  expect(await res.json()).toEqual({ id: 'obj_1', echo: '{"amount":100}' });
  expect(reached).toEqual([{ method: 'POST', url: '/v1/payins?x=1', body: '{"amount":100}' }]);
  expect(await log()).toEqual([
    expect.objectContaining({
      method: 'POST',
      path: '/v1/payins',
      query: '?x=1',
      idempotencyKey: 'k-1',
      status: 201,
      injected: false,
    }),
  ]);
});

test('a forwarded 503 reaches the API, throws its answer away, and then lets the retry through', async () => {
  expect(await arm({ status: 503, retryAfter: 2, times: 1, forward: true })).toBe(201);
  const first = await post('/v1/payouts', 'k-2');
  expect(first.status).toBe(503);
  expect(first.headers.get('retry-after')).toBe('2');
  expect(first.headers.get('content-type')).toContain('application/problem+json');
  expect(await first.json()).toMatchObject({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    instance: '/v1/payouts',
  });
  const second = await post('/v1/payouts', 'k-2');
  expect(second.status).toBe(201);
  expect(reached).toHaveLength(2);
  expect(await log()).toEqual([
    expect.objectContaining({
      path: '/v1/payouts',
      idempotencyKey: 'k-2',
      status: 503,
      injected: true,
      upstreamStatus: 201,
    }),
    expect.objectContaining({ path: '/v1/payouts', idempotencyKey: 'k-2', status: 201, injected: false }),
  ]);
});

test('a forwarded 409 is REQUEST_IN_PROGRESS, as the API answers while another process stores the answer', async () => {
  expect(await arm({ status: 409, retryAfter: 1, forward: true })).toBe(201);
  const first = await post('/v1/payouts', 'k-5');
  expect(first.status).toBe(409);
  expect(first.headers.get('retry-after')).toBe('1');
  expect(await first.json()).toMatchObject({ status: 409, code: 'REQUEST_IN_PROGRESS' });
  expect((await post('/v1/payouts', 'k-5')).status).toBe(201);
  expect(reached).toHaveLength(2);
});

test('a 429 not forwarded never reaches the API, for `times` requests under /v1/ only', async () => {
  expect(await arm({ status: 429, retryAfter: 1, times: 2, forward: false })).toBe(201);
  // Outside /v1/ (e.g. the OpenAPI document) is never faulted and spends nothing.
  expect((await fetch(`${proxy.url}/openapi.json`)).status).toBe(201);
  const a = await post('/v1/refunds', 'k-3');
  const b = await post('/v1/refunds', 'k-3');
  const c = await post('/v1/refunds', 'k-3');
  expect([a.status, b.status, c.status]).toEqual([429, 429, 201]);
  expect(await a.json()).toMatchObject({ code: 'RATE_LIMITED' });
  expect(reached.map((r) => r.url)).toEqual(['/openapi.json', '/v1/refunds']);
  expect((await log()).map((e: { status: number; injected: boolean }) => [e.status, e.injected])).toEqual([
    [201, false],
    [429, true],
    [429, true],
    [201, false],
  ]);
});

test('a 4xx from the API is passed on as it is; the log empties; bad faults are refused', async () => {
  const res = await post('/v1/bad', 'k-4');
  expect(res.status).toBe(422);
  expect(await log()).toHaveLength(1);
  await fetch(`${proxy.url}/__faults/log`, { method: 'DELETE' });
  expect(await log()).toEqual([]);
  expect(await arm({ status: 500 })).toBe(400);
  expect(await arm({ status: 400 })).toBe(400);
  expect(await arm({ status: 503, times: 0 })).toBe(400);
});
