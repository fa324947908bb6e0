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
