import { createServer, type Server } from 'node:http';
import { metricsContentType, renderMetrics } from './metrics';

/** GET /metrics for a process without the API (a standalone worker). */
export async function startMetricsServer(port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
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
