import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import type { Connection } from 'mongoose';
import { ApiClient } from '../helpers/http';
import { connectTestMongo } from '../helpers/stack';
import { idempotency } from '../../src/api/idempotency';
import { jsonBody } from '../../src/api/json-body';
import { errorHandler } from '../../src/api/problem';
import { IdempotencyStore } from '../../src/persistence/idempotency-keys';

// X-Idempotency-Key's middleware on a bare Express app with the real store (no stack): what it does
// when the handler fails or is slow. The rest of idempotency is tested through the whole service
// in idempotency.test.ts.
// The middleware's handling of a failing or slow handler, on a bare Express app with the real store.
describe('idempotency middleware around failing and slow handlers', () => {
  let mongo: Connection;
  let server: Server;
  let api: ApiClient;
  let calls = 0;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    mongo = await connectTestMongo();
    const store = IdempotencyStore.on(mongo);
    await store.init();
    const app = express();
    app.use(jsonBody());
    app.use((req, _res, next) => {
      req.merchantId = 'm_bare';
      next();
    });
    app.use(idempotency({ store }));
    app.post('/v1/flaky', (_req, res) => {
      calls += 1;
      if (calls === 1) throw new Error('dependency down');
      res.status(201).json({ calls });
    });
    app.post('/v1/slow', async (_req, res) => {
      await new Promise<void>((r) => (release = r));
      res.status(201).json({ done: true });
    });
    app.use(errorHandler(() => undefined));
    server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    const addr = server.address();
    api = new ApiClient(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, null);
  });
  afterAll(async () => {
    await new Promise<void>((res) => server?.close(() => res()));
    await mongo?.close();
  });

  it('releases the key after a 5xx, so the retry runs and its answer is kept', async () => {
    const key = randomUUID();
    const failed = await api.post('/v1/flaky', { a: 1 }, { 'x-idempotency-key': key });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 'INTERNAL_ERROR', title: 'Internal Server Error' });
    expect(JSON.stringify(failed.body)).not.toMatch(/dependency down|\n\s+at /);

    const retried = await api.post('/v1/flaky', { a: 1 }, { 'x-idempotency-key': key });
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ calls: 2 });
    const replayed = await api.post('/v1/flaky', { a: 1 }, { 'x-idempotency-key': key });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual({ calls: 2 });
    expect(calls).toBe(2);
  });

  it('answers 409 REQUEST_IN_PROGRESS while the first is running, then replays its answer', async () => {
    const key = randomUUID();
    const first = api.post('/v1/slow', {}, { 'x-idempotency-key': key });
    // Wait until the first holds the claim.
    const records = mongo.collection('idempotency_keys');
    while (!(await records.findOne({ key }))) await new Promise((r) => setTimeout(r, 20));
    const during = await api.post('/v1/slow', {}, { 'x-idempotency-key': key });
    expect(during.status).toBe(409);
    expect(during.body.code).toBe('REQUEST_IN_PROGRESS');
    release();
    expect((await first).status).toBe(201);
    const after = await api.post('/v1/slow', {}, { 'x-idempotency-key': key });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  });
});

// A request that runs longer than its claim's lock (a bulk payout of many items) renews the claim
// while it runs: a same-key retry arriving after the lock period is told the first is in progress,
// never run beside it (issue 28 §2).
describe('idempotency claim of a request longer than its lock', () => {
  const LOCK_MS = 600;
  let mongo: Connection;
  let server: Server;
  let api: ApiClient;
  let running = 0;
  let mostAtOnce = 0;
  let runs = 0;

  beforeAll(async () => {
    mongo = await connectTestMongo();
    const store = IdempotencyStore.on(mongo);
    await store.init();
    const app = express();
    app.use(jsonBody());
    app.use((req, _res, next) => {
      req.merchantId = 'm_long';
      next();
    });
    app.use(idempotency({ store, lockMs: LOCK_MS }));
    app.post('/v1/long', async (_req, res) => {
      runs += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((r) => setTimeout(r, 4 * LOCK_MS));
      running -= 1;
      res.status(201).json({ runs });
    });
    app.use(errorHandler(() => undefined));
    server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    const addr = server.address();
    api = new ApiClient(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, null);
  });
  afterAll(async () => {
    await new Promise<void>((res) => server?.close(() => res()));
    await mongo?.close();
  });

  it('a same-key retry after the lock period gets 409 while the first still runs, then its answer', async () => {
    const key = randomUUID();
    const first = api.post('/v1/long', { n: 1 }, { 'x-idempotency-key': key });
    const records = mongo.collection('idempotency_keys');
    while (!(await records.findOne({ key }))) await new Promise((r) => setTimeout(r, 20));
    // Past the first lock period, with the first request still running.
    await new Promise((r) => setTimeout(r, 2 * LOCK_MS));
    const retry = await api.post('/v1/long', { n: 1 }, { 'x-idempotency-key': key });
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe('REQUEST_IN_PROGRESS');

    const answered = await first;
    expect(answered.status).toBe(201);
    expect(mostAtOnce).toBe(1);
    expect(runs).toBe(1);
    // The completion stood (no renewal overwrote it): the retry now gets the stored answer.
    const replayed = await api.post('/v1/long', { n: 1 }, { 'x-idempotency-key': key });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual({ runs: 1 });
  });
});
