import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../config';
import { answerMalformedRequests } from './malformed-requests';

/**
 * The API's HTTP server, as every process that serves it starts it: listening, answering what
 * Node's parser rejects (src/api/malformed-requests.ts), and keeping idle connections open longer
 * than the load balancer in front does. With Node's default (5 s), a balancer that keeps upstream
 * connections for 60 s sends a request on a connection the API is closing at that instant and
 * answers the client 502 for a request the API never read
 * (docs/decisions/api/keep-alive-outlives-the-balancer.md).
 */
export async function listenApi(
  app: Express,
  config: Pick<Config, 'PORT' | 'HTTP_KEEP_ALIVE_TIMEOUT'>,
  host: string,
): Promise<Server> {
  const server = await new Promise<Server>((res) => {
    const s = app.listen(config.PORT, host, () => res(s));
  });
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT;
  // Node (18 and later) counts the headers' timeout from a request's first byte, not from the
  // connection's idle start, so a long keep-alive needs no longer headers timeout.
  answerMalformedRequests(server);
  return server;
}

/**
 * Stops the server: no new connection, and each open one closed as soon as it has no request in
 * flight (a response finishing after the close would otherwise keep its connection for the whole
 * keep-alive), all of them after `graceMs` at the latest.
 */
export async function stopListening(server: Server, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((res) => server.close(() => res()));
  const sweep = setInterval(() => server.closeIdleConnections(), 200);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
