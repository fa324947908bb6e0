import express from 'express';
import type { Server } from 'node:http';
import { DatabaseWatch } from '../../src/api/dependency-guard';
import { errorHandler } from '../../src/api/problem';

// The driver may still call the server connected while every command fails (a write on a socket
// FerretDB closed fails with EPIPE, which the driver does not count): the watch then learns from
// the failed request, confirms with a ping, and answers 503 at once until a ping answers again.
describe('DatabaseWatch', () => {
  let server: Server;
  let base: string;
  let pingAnswers = true;
  let pings = 0;
  let reachedRoute = 0;

  beforeAll(async () => {
    const watch = new DatabaseWatch({
      isConnected: () => true,
      probe: async () => {
        pings++;
        return pingAnswers;
      },
      probeEveryMs: 0,
    });
    const app = express();
    app.get('/health/ready', async (_req, res) => {
      res.status((await watch.answers()) ? 200 : 503).end();
    });
    app.use(watch.guard());
    app.get('/thing', (_req, _res, next) => {
      reachedRoute++;
      next(Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }));
    });
    app.use(watch.listen());
    app.use(errorHandler(() => undefined));
    await new Promise<void>((r) => {
      server = app.listen(0, '127.0.0.1', () => r());
    });
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('learns the outage from a failed request, answers without the route, then recovers on a ping', async () => {
    pingAnswers = false;
    const first = await fetch(`${base}/thing`);
    expect(first.status).toBe(503);
    expect(reachedRoute).toBe(1);
    await new Promise((r) => setTimeout(r, 20)); // the confirming ping settles
    expect(pings).toBe(1);

    const second = await fetch(`${base}/thing`);
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(reachedRoute).toBe(1); // answered by the guard, the route never ran
    expect((await fetch(`${base}/health/ready`)).status).toBe(503);

    pingAnswers = true;
    await new Promise((r) => setTimeout(r, 20)); // the guard's own ping (above) has settled
    await fetch(`${base}/thing`); // still known down: the guard pings again
    await new Promise((r) => setTimeout(r, 20));
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    await fetch(`${base}/thing`);
    expect(reachedRoute).toBe(2);
  });
});
