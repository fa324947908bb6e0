import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { setMaxListeners } from 'node:events';
import type { Socket } from 'node:net';

// An HTTP forwarding proxy with scripted faults, for the paths where money meets ambiguity: the
// worker's operator gateway -> proxy -> operator simulator, and the simulator's callbacks -> proxy
// -> the API. Without a matching rule a request goes through untouched (headers and body byte for
// byte, so callback signatures still verify); a rule injects one fault into the requests it matches.

export type Fault =
  /** Never forward; hold the socket until the client gives up, then destroy it. */
  | { kind: 'drop' }
  /** Forward, let the target act, then destroy the client socket (no answer). */
  | { kind: 'lose-answer' }
  /** Do not forward; answer this status (e.g. 503, 429, 400, 404). */
  | { kind: 'error'; status: number; body?: unknown }
  /** Forward (the target acts), answer this status instead of the real one. */
  | { kind: 'forward-then-error'; status: number }
  /** Forward, hold the answer this long (past OPERATOR_TIMEOUT), then send it. */
  | { kind: 'delay'; ms: number }
  /** Forward; a 2xx JSON object answer is shallow-merged with patch (e.g. { outcome: 'pending' }). */
  | { kind: 'rewrite'; patch: Record<string, unknown> }
  /** Forward; then send the same request again `copies` more times, `gapMs` apart (callbacks). */
  | { kind: 'duplicate'; copies: number; gapMs?: number }
  /** Wait before forwarding the request (late / out-of-order delivery). */
  | { kind: 'hold'; ms: number };

export interface FaultRule {
  /** Any method when unset; compared case-insensitively. */
  method?: string;
  /** A substring of, or a RegExp tested on, the request's path with its query. */
  path: string | RegExp;
  fault: Fault;
  /** How many matching requests this rule applies to (default 1; Infinity allowed), then it is spent. */
  times?: number;
  /** Additive: a substring of, or a RegExp tested on, the request's body (UTF-8), e.g. our id or amount. */
  body?: string | RegExp;
  /**
   * Additive: a last test of the request, for schedules decided while the run goes (a time window,
   * a transaction looked up by the id in the path). Called only when method, path and body match.
   */
  when?: (req: FaultRequest) => boolean;
}

/** A request as the rules see it. */
export interface FaultRequest {
  method: string;
  /** The path with its query. */
  path: string;
  body: string;
}

export interface FaultLogEntry {
  method: string;
  path: string;
  fault: Fault['kind'] | null;
  status: number | null;
  at: number;
}

export interface FaultProxy {
  url: string;
  add(rule: FaultRule): void;
  clear(): void;
  /** Every request seen: method, path, the fault applied (or null), the status answered (or null if none). */
  log: ReadonlyArray<FaultLogEntry>;
  stop(): Promise<void>;
}

interface Upstream {
  status: number;
  /** Raw header list (name, value, name, value...), hop-by-hop headers removed. */
  headers: string[];
  body: Buffer;
}

// Headers that describe one connection, not the message: never passed on. The body is buffered, so
// it goes on with a content-length of its own.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
  'host',
]);

function passOn(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (!hopByHop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('aborted', () => reject(new Error('aborted')));
  });
}

export async function startFaultProxy(opts: {
  target: string;
  port?: number;
  /**
   * Pass the client's Host on instead of the target's: for callbacks whose signature covers the
   * authority they were sent to (pawaPay's RFC 9421 `@authority`), as a reverse proxy would.
   */
  keepHost?: boolean;
}): Promise<FaultProxy> {
  const target = new URL(opts.target);
  const basePath = target.pathname.replace(/\/+$/, '');
  const rules: { rule: FaultRule; left: number }[] = [];
  const log: FaultLogEntry[] = [];
  const sockets = new Set<Socket>();
  // Aborted by stop(): every held request, delayed answer and pending copy gives up at once.
  const stopping = new AbortController();
  // Every request in flight listens to it: hundreds at once under a fault suite's load.
  setMaxListeners(0, stopping.signal);

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      }
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  const matches = (m: string | RegExp, text: string) => {
    if (typeof m === 'string') return text.includes(m);
    m.lastIndex = 0; // a /g or /y RegExp keeps its position between tests
    return m.test(text);
  };

  /** The first live rule matching, spent by one use (synchronously: concurrent requests share counts). */
  function take(req: FaultRequest): Fault | null {
    for (const r of rules) {
      if (r.left <= 0) continue;
      const { method, path, body, when } = r.rule;
      if (method && method.toUpperCase() !== req.method.toUpperCase()) continue;
      if (!matches(path, req.path)) continue;
      if (body !== undefined && !matches(body, req.body)) continue;
      if (when && !when(req)) continue;
      r.left--;
      return r.rule.fault;
    }
    return null;
  }

  /** Sends the request to the target as it came (raw headers in order, Host set to the target). */
  function forward(method: string, path: string, rawHeaders: string[], body: Buffer): Promise<Upstream> {
    return new Promise((resolve, reject) => {
      const headers = passOn(rawHeaders);
      const host = rawHeaders.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'host');
      headers.push('Host', opts.keepHost && host >= 0 ? rawHeaders[host + 1]! : target.host);
      if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method))
        headers.push('Content-Length', String(body.length));
      const out = httpRequest(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          method,
          path: `${basePath}${path}`,
          headers,
          signal: stopping.signal,
        },
        (res) => {
          readBody(res).then(
            (b) => resolve({ status: res.statusCode ?? 502, headers: passOn(res.rawHeaders), body: b }),
            reject,
          );
        },
      );
      out.once('error', reject);
      out.end(body);
    });
  }

  /** Writes an answer unless the client has gone; the status it got, or null. */
  function answer(res: ServerResponse, status: number, headers: string[], body: Buffer): number | null {
    if (res.destroyed || res.socket === null || res.socket.destroyed) return null;
    res.writeHead(status, [...headers, 'Content-Length', String(body.length)]);
    res.end(body);
    return status;
  }

  const json = (value: unknown) => ({
    headers: ['Content-Type', 'application/json; charset=utf-8'],
    body: Buffer.from(JSON.stringify(value)),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const entry: FaultLogEntry = { method, path, fault: null, status: null, at: Date.now() };
    log.push(entry);
    let clientGone = false;
    res.once('close', () => (clientGone = true));
    const body = await readBody(req);
    const fault = take({ method, path, body: body.toString('utf8') });
    entry.fault = fault?.kind ?? null;
    // The target unreachable (or the proxy stopping): 502, as a gateway would.
    const through = async (): Promise<Upstream | null> => {
      try {
        return await forward(method, path, req.rawHeaders, body);
      } catch (err) {
        const out = json({ error: 'BAD_GATEWAY', message: String(err) });
        entry.status = answer(res, 502, out.headers, out.body);
        return null;
      }
    };

    if (!fault) {
      const up = await through();
      if (up) entry.status = answer(res, up.status, up.headers, up.body);
      return;
    }
    switch (fault.kind) {
      case 'drop': {
        // Nothing is forwarded; the client waits for an answer that never comes.
        if (!clientGone)
          await new Promise<void>((resolve) => {
            res.once('close', () => resolve());
            stopping.signal.addEventListener('abort', () => resolve(), { once: true });
          });
        req.socket.destroy();
        return;
      }
      case 'lose-answer': {
        await through();
        // The target acted; the client never hears of it.
        req.socket.destroy();
        entry.status = null;
        return;
      }
      case 'error': {
        const out = json(fault.body ?? { error: 'FAULT_INJECTED', status: fault.status });
        entry.status = answer(res, fault.status, out.headers, out.body);
        return;
      }
      case 'forward-then-error': {
        const up = await through();
        if (!up) return;
        const out = json({ error: 'FAULT_INJECTED', status: fault.status });
        entry.status = answer(res, fault.status, out.headers, out.body);
        return;
      }
      case 'delay': {
        const up = await through();
        if (!up) return;
        await wait(fault.ms);
        entry.status = answer(res, up.status, up.headers, up.body);
        return;
      }
      case 'rewrite': {
        const up = await through();
        if (!up) return;
        let patched = up.body;
        if (up.status >= 200 && up.status < 300) {
          try {
            const parsed: unknown = JSON.parse(up.body.toString('utf8'));
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
              patched = Buffer.from(JSON.stringify({ ...parsed, ...fault.patch }));
          } catch {
            // not JSON: passed on untouched
          }
        }
        entry.status = answer(res, up.status, up.headers, patched);
        return;
      }
      case 'duplicate': {
        const up = await through();
        if (!up) return;
        entry.status = answer(res, up.status, up.headers, up.body);
        // The copies go after the answer, as a sender retrying what it thinks was lost would.
        for (let i = 0; i < fault.copies && !stopping.signal.aborted; i++) {
          if (fault.gapMs) await wait(fault.gapMs);
          if (stopping.signal.aborted) break;
          await forward(method, path, req.rawHeaders, body).catch(() => null);
        }
        return;
      }
      case 'hold': {
        // Delivered late even if the sender has given up meanwhile: the network had it.
        await wait(fault.ms);
        if (stopping.signal.aborted) {
          req.socket.destroy();
          return;
        }
        const up = await through();
        if (up) entry.status = answer(res, up.status, up.headers, up.body);
        return;
      }
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        const out = json({ error: 'PROXY_ERROR', message: String(err) });
        answer(res, 502, out.headers, out.body);
      } else req.socket.destroy();
    });
  });
  // A dropped request waits for its client, however long that takes.
  server.requestTimeout = 0;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 0);

  return {
    url: `http://127.0.0.1:${port}`,
    add(rule) {
      rules.push({ rule, left: rule.times ?? 1 });
    },
    clear() {
      rules.length = 0;
    },
    log,
    async stop() {
      stopping.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
