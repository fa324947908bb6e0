import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import ipaddr from 'ipaddr.js';
import { metricsContentType, renderMetrics } from './metrics';

// Who may read what a process says about itself (/metrics, readiness details): a caller on this
// host, or one presenting METRICS_TOKEN. A process listening on 0.0.0.0 must not hand its
// internals (routes, volumes, dependency state) to whoever reaches its port.

/** Whether the caller may read /metrics and the readiness details. */
export type InternalAccess = (req: IncomingMessage) => boolean;

const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * A loopback peer that relays nobody (a proxy on the same host adds a forwarding header: its
 * callers are not local), or `Authorization: Bearer <token>` when a token is configured.
 */
export function internalAccess(token: string | undefined): InternalAccess {
  const expected = token ? createHash('sha256').update(token).digest() : null;
  return (req) => {
    const auth = req.headers.authorization;
    if (expected && auth) {
      const m = /^Bearer +(\S+)$/i.exec(auth.trim());
      if (m && timingSafeEqual(createHash('sha256').update(m[1]!).digest(), expected)) return true;
    }
    if (forwardingHeaders.some((h) => req.headers[h] !== undefined)) return false;
    return isLoopback(req.socket.remoteAddress);
  };
}

function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // ::ffff:127.0.0.1 is IPv4 loopback
  return parsed.range() === 'loopback';
}

/** GET /metrics for a process without the API (a standalone worker); others get 404. */
export async function startMetricsServer(
  port: number,
  host: string,
  access: InternalAccess = internalAccess(undefined),
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics' || !access(req)) {
      res.writeHead(404).end();
      return;
    }
    renderMetrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsContentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}
