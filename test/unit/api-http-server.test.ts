import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listenApi, stopListening } from '../../src/api/http-server';

// The API keeps idle connections for HTTP_KEEP_ALIVE_TIMEOUT (65 s, longer than a balancer's), and
// still stops at once: a kept-alive connection, even one whose response was in flight when the
// stop began, does not hold the stop for the keep-alive
// (docs/decisions/api/keep-alive-outlives-the-balancer.md).

describe('the API HTTP server', () => {
  const start = async () => {
    let release: () => void = () => undefined;
    const app = express();
    app.get('/quick', (_req, res) => res.send('ok'));
    app.get('/slow', (_req, res) => {
      release = () => res.send('late');
    });
    const server = await listenApi(app, { PORT: 0, HTTP_KEEP_ALIVE_TIMEOUT: 65_000 }, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { server, url, release: () => release() };
  };
  const get = (url: string, agent: Agent) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('stops at once with an idle kept-alive connection open', async () => {
    const { server, url } = await start();
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await get(`${url}/quick`, agent)).toEqual({ status: 200, body: 'ok' });
      const t = Date.now();
      await stopListening(server);
      expect(Date.now() - t).toBeLessThan(2_000);
    } finally {
      agent.destroy();
    }
  });

  it('lets a response in flight finish, then closes its connection rather than keeping it alive', async () => {
    const { server, url, release } = await start();
    const agent = new Agent({ keepAlive: true });
    try {
      const slow = get(`${url}/slow`, agent);
      await new Promise((r) => setTimeout(r, 200));
      const t = Date.now();
      const stopped = stopListening(server);
      setTimeout(release, 300);
      expect(await slow).toEqual({ status: 200, body: 'late' });
      await stopped;
      expect(Date.now() - t).toBeLessThan(3_000);
    } finally {
      agent.destroy();
    }
  });

  it('closes a connection whose response never ends after the grace period', async () => {
    const { server, url } = await start();
    const agent = new Agent({ keepAlive: true });
    try {
      const hanging = get(`${url}/slow`, agent).catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, 200));
      const t = Date.now();
      await stopListening(server, 500);
      expect(Date.now() - t).toBeLessThan(2_000);
      expect(String(await hanging)).toMatch(/socket hang up|ECONNRESET/);
    } finally {
      agent.destroy();
    }
  });
});
