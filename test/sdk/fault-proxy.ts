import { randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { renderProblem } from '../../src/contract/render-problem';

// The SDK suites' fault proxy (docs/sdks.md): a reverse proxy to the API that can be armed, over
// HTTP and from any language, to answer the next requests under /v1/ with a 429, a 503 or a 409
// REQUEST_IN_PROGRESS (what the API answers while another process stores the first answer), having
// (forward) or not having sent them to the API first; its log shows each request's idempotency key,
// which is how a suite proves that its SDK retried with the same key.
//
// Standalone:  MOMO_BASE_URL=http://127.0.0.1:3900 npx tsx test/sdk/fault-proxy.ts
//              prints its URL (set FAULT_PROXY_PORT for a fixed port) and runs until SIGINT/SIGTERM.
// Control:     POST   {url}/__faults      {"status":429|503|409,"retryAfter":1,"times":1,"forward":false}
//              GET    {url}/__faults/log  [{"method","path","query","idempotencyKey","status","injected",…}]
//              DELETE {url}/__faults/log  empties the log;  DELETE {url}/__faults  disarms.

/** One armed fault, as POSTed to /__faults. */
export interface ArmedFault {
  status: 429 | 503 | 409;
  /** Seconds, sent as Retry-After. */
  retryAfter: number;
  /** How many requests under /v1/ it answers. */
  times: number;
  /** Send the request to the API first (it acts) and throw its answer away. */
  forward: boolean;
}

export interface FaultLogEntry {
  method: string;
  /** The path without its query. */
  path: string;
  /** The query string with its '?', or '' . */
  query: string;
  idempotencyKey: string | null;
  /** What the client got (null while the answer is not sent yet). */
  status: number | null;
  injected: boolean;
  /** What the API answered, when the request reached it (differs from status when injected). */
  upstreamStatus: number | null;
}

export interface FaultProxy {
  url: string;
  close(): Promise<void>;
}

const problemCodes = { 429: 'RATE_LIMITED', 503: 'SERVICE_UNAVAILABLE', 409: 'REQUEST_IN_PROGRESS' } as const;

// Hop-by-hop headers describe one connection, not the message, so they are not copied across.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!hopByHop.has(name)) out[name] = value;
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** Parses and checks a POSTed fault; a string is the reason it is refused. */
export function parseFault(raw: unknown): ArmedFault | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'send a JSON object';
  const o = raw as Record<string, unknown>;
  const status = o.status;
  if (status !== 429 && status !== 503 && status !== 409) return 'status must be 429, 503 or 409';
  const retryAfter = o.retryAfter ?? 1;
  if (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)
    return 'retryAfter must be a whole number of seconds >= 0';
  const times = o.times ?? 1;
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 1)
    return 'times must be an integer >= 1';
  const forward = o.forward ?? false;
  if (typeof forward !== 'boolean') return 'forward must be true or false';
  return { status, retryAfter, times, forward };
}

/** Starts the proxy in front of `target` (e.g. http://127.0.0.1:3900) on 127.0.0.1. */
export async function startFaultProxy(target: string, opts: { port?: number } = {}): Promise<FaultProxy> {
  const upstream = new URL(target);
  if (upstream.protocol !== 'http:')
    throw new Error(`the fault proxy forwards to http:// only, not ${target}`);
  const upstreamPort = Number(upstream.port || 80);
  // Armed faults in the order they were POSTed; the head one answers until its `times` are spent.
  const armed: ArmedFault[] = [];
  let log: FaultLogEntry[] = [];

  function takeFault(path: string): ArmedFault | undefined {
    if (!path.startsWith('/v1/')) return undefined;
    const head = armed[0];
    if (!head) return undefined;
    if (--head.times === 0) armed.shift();
    return head;
  }

  function injectProblem(req: IncomingMessage, res: ServerResponse, fault: ArmedFault, path: string): void {
    const lang = /^\s*fr\b/i.test(req.headers['accept-language'] ?? '') ? 'fr' : 'en';
    res
      .writeHead(fault.status, {
        'Content-Type': 'application/problem+json; charset=utf-8',
        'Retry-After': String(fault.retryAfter),
        'X-Request-Id': randomUUID(),
        'X-Fault-Injected': 'true',
      })
      .end(JSON.stringify(renderProblem(problemCodes[fault.status], lang, {}, path)));
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/__faults' && req.method === 'POST') {
      let parsed: unknown;
      try {
        parsed = JSON.parse((await readBody(req)).toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: 'the body is not JSON' });
      }
      const fault = parseFault(parsed);
      if (typeof fault === 'string') return sendJson(res, 400, { error: fault });
      armed.push(fault);
      return sendJson(res, 201, { armed });
    }
    if (path === '/__faults' && req.method === 'DELETE') {
      armed.length = 0;
      return sendJson(res, 200, { armed });
    }
    if (path === '/__faults' && req.method === 'GET') return sendJson(res, 200, { armed });
    if (path === '/__faults/log' && req.method === 'GET') return sendJson(res, 200, log);
    if (path === '/__faults/log' && req.method === 'DELETE') {
      log = [];
      return sendJson(res, 200, log);
    }
    sendJson(res, 404, { error: `no ${req.method} ${path} on the fault proxy` });
  }

  async function proxy(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): Promise<void> {
    const key = req.headers['x-idempotency-key'];
    const entry: FaultLogEntry = {
      method: req.method ?? 'GET',
      path,
      query,
      idempotencyKey: typeof key === 'string' ? key : null,
      status: null,
      injected: false,
      upstreamStatus: null,
    };
    log.push(entry);
    const fault = takeFault(path);
    const body = await readBody(req);
    if (fault && !fault.forward) {
      entry.status = fault.status;
      entry.injected = true;
      return injectProblem(req, res, fault, path);
    }
    const headers = { ...endToEnd(req.headers), host: upstream.host, 'content-length': String(body.length) };
    const up = httpRequest(
      { host: upstream.hostname, port: upstreamPort, method: req.method, path: path + query, headers },
      (answer) => {
        entry.upstreamStatus = answer.statusCode ?? null;
        if (fault) {
          // The API acted; its answer is lost on the way back, as a dropped connection would lose it.
          answer.resume();
          answer.on('end', () => {
            entry.status = fault.status;
            entry.injected = true;
            injectProblem(req, res, fault, path);
          });
          return;
        }
        entry.status = answer.statusCode ?? 502;
        // Raw headers keep the API's spelling (X-Request-Id), which some clients print as they are.
        const raw: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2)
          if (!hopByHop.has(answer.rawHeaders[i]!.toLowerCase()))
            raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
        res.writeHead(entry.status, raw);
        answer.pipe(res);
      },
    );
    up.on('error', (err) => {
      entry.status = 502;
      if (!res.headersSent)
        sendJson(res, 502, { error: `fault proxy: the API is unreachable (${err.message})` });
      else res.destroy();
    });
    up.end(body);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const handle = url.pathname.startsWith('/__faults')
      ? control(req, res, url.pathname)
      : proxy(req, res, url.pathname, url.search);
    handle.catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `fault proxy: ${String(err)}` });
      else res.destroy();
    });
  });

  // WebSocket upgrades (GET /v1/ws, the event stream) are tunnelled as they are, never faulted.
  const tunnels = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const key = req.headers['x-idempotency-key'];
    log.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      idempotencyKey: typeof key === 'string' ? key : null,
      status: 101,
      injected: false,
      upstreamStatus: null,
    });
    const api = connect(upstreamPort, upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.host : req.rawHeaders[i + 1]}`);
      }
      api.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) api.write(head);
      api.pipe(client);
      client.pipe(api);
    });
    for (const s of [api, client]) {
      tunnels.add(s);
      s.on('error', () => {
        api.destroy();
        client.destroy();
      });
      s.on('close', () => {
        tunnels.delete(s);
        api.destroy();
        client.destroy();
      });
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of tunnels) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (require.main === module) {
  const target = process.env.MOMO_BASE_URL;
  if (!target) {
    console.error('fault-proxy: set MOMO_BASE_URL (the API to proxy), e.g. http://127.0.0.1:3900');
    process.exit(2);
  }
  startFaultProxy(target, { port: Number(process.env.FAULT_PROXY_PORT ?? 0) })
    .then((proxy) => {
      console.log(proxy.url);
      const stop = () => void proxy.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((err: unknown) => {
      console.error(`fault-proxy: ${String(err)}`);
      process.exit(1);
    });
}
