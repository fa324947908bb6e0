import { createServer, type IncomingMessage, type Server } from 'node:http';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';

// The fault proxy against a tiny local HTTP server: every fault kind, rule matching and spending,
// and untouched forwarding (headers and body byte for byte) when no rule matches.

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  at: number;
}

let target: Server;
let targetUrl: string;
let seen: Seen[];
let proxy: FaultProxy;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

beforeAll(async () => {
  target = createServer((req, res) => {
    void readAll(req).then((body) => {
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body, at: Date.now() });
      if (req.url!.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: 'NOT_FOUND' }));
      }
      if (req.url!.startsWith('/text')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('plain');
      }
      res.writeHead(201, { 'content-type': 'application/json', 'X-Target': 'yes' });
      res.end(JSON.stringify({ id: 'tx_1', outcome: 'completed', n: seen.length }));
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
});

afterAll(async () => {
  target.closeAllConnections();
  await new Promise<void>((r) => target.close(() => r()));
});

beforeEach(async () => {
  seen = [];
  proxy = await startFaultProxy({ target: targetUrl });
});

afterEach(async () => {
  await proxy.stop();
});

const post = (path: string, body: string, init: RequestInit = {}) =>
  fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    ...init,
  });

describe('fault proxy', () => {
  it('forwards a request without a matching rule untouched, headers and body byte for byte', async () => {
    const body = '{"kind":"collection", "id":"pr_1",  "note":"Koné ✓"}';
    const init = {
      headers: { 'content-type': 'application/json', 'X-Signature': 'sha256=AbC', 'x-Custom-Case': 'v' },
    };
    // The same request straight to the target, then through the proxy: the target sees the same.
    await fetch(`${targetUrl}/operator-callbacks/MTN?x=1&y=%20`, { method: 'POST', body, ...init });
    const res = await post('/operator-callbacks/MTN?x=1&y=%20', body, init);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-target')).toBe('yes');
    expect(await res.json()).toEqual({ id: 'tx_1', outcome: 'completed', n: 2 });
    expect(seen).toHaveLength(2);
    const [direct, proxied] = seen as [Seen, Seen];
    expect(proxied.method).toBe('POST');
    expect(proxied.url).toBe('/operator-callbacks/MTN?x=1&y=%20');
    expect(proxied.body.equals(Buffer.from(body))).toBe(true);
    // Hop-by-hop headers are the connection's own; every other one is passed on as it came, in order.
    const endToEnd = (raw: string[]) => {
      const out: string[] = [];
      for (let i = 0; i < raw.length; i += 2)
        if (!['host', 'connection', 'content-length', 'keep-alive'].includes(raw[i]!.toLowerCase()))
          out.push(`${raw[i]}: ${raw[i + 1]}`);
      return out;
    };
    expect(endToEnd(proxied.rawHeaders)).toEqual(endToEnd(direct.rawHeaders));
    expect(endToEnd(proxied.rawHeaders)).toContain('X-Signature: sha256=AbC');
    const header = (raw: string[], name: string) => raw[raw.findIndex((h) => h.toLowerCase() === name) + 1];
    expect(header(proxied.rawHeaders, 'host')).toBe(new URL(targetUrl).host);
    expect(header(proxied.rawHeaders, 'content-length')).toBe(String(Buffer.byteLength(body)));
    expect(proxy.log).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/operator-callbacks/MTN?x=1&y=%20',
        fault: null,
        status: 201,
      }),
    ]);
  });

  it('drop: never forwards, holds the socket until the client gives up', async () => {
    proxy.add({ path: '/operators', fault: { kind: 'drop' } });
    const started = Date.now();
    await expect(
      post('/operators/MTN/collections', '{}', { signal: AbortSignal.timeout(300) }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await sleep(100);
    expect(seen).toHaveLength(0);
    expect(proxy.log[0]).toMatchObject({ fault: 'drop', status: null });
    // Spent after one use: the next request goes through.
    expect((await post('/operators/MTN/collections', '{}')).status).toBe(201);
    expect(seen).toHaveLength(1);
  });

  it('lose-answer: the target acts, the client gets no answer', async () => {
    proxy.add({ path: '/operators', fault: { kind: 'lose-answer' } });
    await expect(post('/operators/MTN/disbursements', '{"a":1}')).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body.toString()).toBe('{"a":1}');
    expect(proxy.log[0]).toMatchObject({ fault: 'lose-answer', status: null });
  });

  it('error: answers the status without forwarding, with the given body or a default one', async () => {
    proxy.add({ path: '/a', fault: { kind: 'error', status: 503 } });
    proxy.add({ path: '/b', fault: { kind: 'error', status: 400, body: { error: 'INVALID_REQUEST' } } });
    const a = await post('/a', '{}');
    expect(a.status).toBe(503);
    expect(await a.json()).toMatchObject({ error: 'FAULT_INJECTED' });
    const b = await post('/b', '{}');
    expect(b.status).toBe(400);
    expect(await b.json()).toEqual({ error: 'INVALID_REQUEST' });
    expect(seen).toHaveLength(0);
    expect(proxy.log.map((e) => [e.fault, e.status])).toEqual([
      ['error', 503],
      ['error', 400],
    ]);
  });

  it('forward-then-error: the target acts, the client gets the injected status', async () => {
    proxy.add({ method: 'post', path: '/operators', fault: { kind: 'forward-then-error', status: 503 } });
    const res = await post('/operators/MTN/refunds', '{}');
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(1);
    expect(proxy.log[0]).toMatchObject({ fault: 'forward-then-error', status: 503 });
  });

  it('delay: the target acts at once, the answer comes after the delay (or never, if the client left)', async () => {
    proxy.add({ path: '/slow', fault: { kind: 'delay', ms: 400 }, times: 2 });
    await expect(post('/slow', '{}', { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    expect(seen).toHaveLength(1);
    const started = Date.now();
    const res = await post('/slow', '{}');
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(seen[1]!.at - started).toBeLessThan(300);
    await sleep(400);
    expect(proxy.log.map((e) => [e.fault, e.status])).toEqual([
      ['delay', null],
      ['delay', 201],
    ]);
  });

  it('rewrite: a 2xx JSON answer is shallow-merged with the patch; other answers pass untouched', async () => {
    proxy.add({
      method: 'GET',
      path: /\/collections\/[^/?]+\?/,
      fault: { kind: 'rewrite', patch: { outcome: 'pending' } },
      times: Infinity,
    });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${proxy.url}/operators/MTN/collections/pr_1?country=CI`);
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ id: 'tx_1', outcome: 'pending', n: i + 1 });
    }
    // Not matched (no query), so forwarded as is.
    expect(await (await fetch(`${proxy.url}/operators/MTN/collections/pr_1`)).json()).toMatchObject({
      outcome: 'completed',
    });
    proxy.add({ path: '/missing', fault: { kind: 'rewrite', patch: { outcome: 'pending' } } });
    const missing = await fetch(`${proxy.url}/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'NOT_FOUND' });
    proxy.add({ path: '/text', fault: { kind: 'rewrite', patch: { outcome: 'pending' } } });
    expect(await (await fetch(`${proxy.url}/text`)).text()).toBe('plain');
  });

  it('duplicate: the same request reaches the target 1 + copies times, identical', async () => {
    proxy.add({ path: '/operator-callbacks', fault: { kind: 'duplicate', copies: 2, gapMs: 100 } });
    const body = '{"kind":"refund","id":"rf_1"}';
    const res = await post('/operator-callbacks/MTN', body, {
      headers: { 'content-type': 'application/json', 'x-signature': 'sig' },
    });
    expect(res.status).toBe(201);
    await sleep(400);
    expect(seen).toHaveLength(3);
    for (const s of seen) {
      expect(s.body.equals(Buffer.from(body))).toBe(true);
      expect(s.rawHeaders).toEqual(seen[0]!.rawHeaders);
    }
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(90);
    expect(proxy.log).toHaveLength(1);
    expect(proxy.log[0]).toMatchObject({ fault: 'duplicate', status: 201 });
  });

  it('hold: delivered late, so a later request arrives first (out of order)', async () => {
    proxy.add({ path: '/operator-callbacks', fault: { kind: 'hold', ms: 300 } });
    const first = post('/operator-callbacks/MTN', '{"n":"first"}');
    await sleep(50);
    const second = await post('/operator-callbacks/MTN', '{"n":"second"}');
    expect(second.status).toBe(201);
    expect((await first).status).toBe(201);
    expect(seen.map((s) => s.body.toString())).toEqual(['{"n":"second"}', '{"n":"first"}']);
    expect(proxy.log.map((e) => e.fault)).toEqual(['hold', null]);
  });

  it('matches rules in order of addition, on method and path, each for its times; clear() drops them', async () => {
    proxy.add({ method: 'GET', path: '/x', fault: { kind: 'error', status: 404 } });
    proxy.add({ path: '/x', fault: { kind: 'error', status: 429 }, times: 2 });
    proxy.add({ path: '/x', fault: { kind: 'error', status: 500 }, times: Infinity });
    const statuses: number[] = [];
    statuses.push((await post('/x', '{}')).status); // POST: the GET rule does not match
    statuses.push((await fetch(`${proxy.url}/x`)).status);
    statuses.push((await fetch(`${proxy.url}/x`)).status);
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${proxy.url}/x`)).status);
    expect(statuses).toEqual([429, 404, 429, 500, 500, 500]);
    proxy.clear();
    expect((await fetch(`${proxy.url}/x`)).status).toBe(201);
    expect(seen).toHaveLength(1);
  });

  it('matches on the body and on a when() test too, when given', async () => {
    let open = true;
    const seenByWhen: string[] = [];
    proxy.add({
      path: '/c',
      body: /"amount":120[,}]/,
      fault: { kind: 'error', status: 503 },
      times: Infinity,
    });
    proxy.add({
      path: '/c',
      body: 'pr_9',
      when: (req) => {
        seenByWhen.push(`${req.method} ${req.path} ${req.body}`);
        return open;
      },
      fault: { kind: 'error', status: 429 },
      times: Infinity,
    });
    const status = async (body: string) => (await post('/c?q=1', body)).status;
    expect(await status('{"amount":120}')).toBe(503);
    expect(await status('{"amount":1200}')).toBe(201); // no rule: its body matches neither
    expect(await status('{"id":"pr_9"}')).toBe(429);
    open = false;
    expect(await status('{"id":"pr_9"}')).toBe(201);
    // when() is asked only once method, path and body matched.
    expect(seenByWhen).toEqual(['POST /c?q=1 {"id":"pr_9"}', 'POST /c?q=1 {"id":"pr_9"}']);
  });

  it('keepHost: passes the Host the client sent on (a signature over the authority still verifies)', async () => {
    const keeping = await startFaultProxy({ target: targetUrl, keepHost: true });
    try {
      await fetch(`${keeping.url}/operator-callbacks/x`, { method: 'POST', body: '{}' });
      const host = seen[0]!.rawHeaders[seen[0]!.rawHeaders.findIndex((h) => h.toLowerCase() === 'host') + 1];
      expect(host).toBe(new URL(keeping.url).host);
    } finally {
      await keeping.stop();
    }
  });

  it('answers 502 when the target is unreachable', async () => {
    const dead = await startFaultProxy({ target: 'http://127.0.0.1:1' });
    try {
      const res = await fetch(`${dead.url}/anything`);
      expect(res.status).toBe(502);
      expect(dead.log[0]).toMatchObject({ fault: null, status: 502 });
    } finally {
      await dead.stop();
    }
  });

  it('stop() ends at once, even with a dropped request and a long hold pending', async () => {
    proxy.add({ path: '/d', fault: { kind: 'drop' } });
    proxy.add({ path: '/h', fault: { kind: 'hold', ms: 60_000 } });
    const dropped = fetch(`${proxy.url}/d`).catch((e: unknown) => e);
    const held = fetch(`${proxy.url}/h`).catch((e: unknown) => e);
    await sleep(100);
    const started = Date.now();
    await proxy.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    // fetch's TypeError comes from another realm than jest's: compare by text.
    expect(String(await dropped)).toMatch(/fetch failed/);
    expect(String(await held)).toMatch(/fetch failed/);
    expect(seen).toHaveLength(0);
    proxy = await startFaultProxy({ target: targetUrl }); // for afterEach
  });
});
