// The production topology's load balancer (bench --topology production), in its own process as
// nginx is in docker-compose.yml: round robin over the API processes, one upstream per request.
// The latency phase's bare route (BARE_UPSTREAM) is served by the same proxy, so both sides of the
// comparison pay the same extra hop.
import http from 'node:http';

const upstreams = (process.env.UPSTREAMS ?? '')
  .split(',')
  .filter(Boolean)
  .map((u) => new URL(u));
// Like a real balancer (nginx's upstream `keepalive_timeout`, AWS ALB's idle timeout): an idle
// upstream connection is dropped after 60 s, shorter than the API keeps it (HTTP_KEEP_ALIVE_TIMEOUT).
const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 60_000 });
const bare = process.env.BARE_UPSTREAM ? new URL(process.env.BARE_UPSTREAM) : undefined;
let next = 0;

const server = http.createServer((req, res) => {
  const target = bare && req.url === '/bare' ? bare : upstreams[next++ % upstreams.length]!;
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    // Which hop failed and how (a reset on a reused connection, a refused one): the bench's log.
    // The path only: a query string may carry a searched phone number.
    console.error(
      `proxy: 502 for ${req.method} ${(req.url ?? '').split('?')[0]} from ${target.host}: ${err.code ?? err.message}${upstream.reusedSocket ? ' (reused connection)' : ''}`,
    );
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('proxy up'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
