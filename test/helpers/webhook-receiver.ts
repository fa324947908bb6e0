import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

// A merchant's webhook endpoint for tests: records every request and answers as told.
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Decides each answer; 200 by default. */
  respond: (req: { path: string; body: string }) => { status: number; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => ({ status: 200 }),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const answer = receiver.respond({ path, body });
      receiver.received.push({ path, headers: req.headers, body, status: answer.status });
      res.writeHead(answer.status, answer.headers ?? {}).end('ok');
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const addr = server.address();
  receiver.port = typeof addr === 'object' && addr ? addr.port : 0;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
