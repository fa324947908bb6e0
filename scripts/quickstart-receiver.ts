// The quick start's webhook receiver (scripts/quickstart.sh): listens on loopback, verifies each
// delivery's Standard Webhooks signature with the endpoint's secret and prints the event, one line
// each on stdout. The secret exists only once the endpoint is registered, which needs this
// receiver's URL first: so the port goes to PORT_FILE at start and the secret is read from
// SECRET_FILE at each delivery.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const portFile = process.env.PORT_FILE;
const secretFile = process.env.SECRET_FILE;
if (!portFile || !secretFile) throw new Error('PORT_FILE and SECRET_FILE are required');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let secret: string;
    try {
      secret = readFileSync(secretFile, 'utf8').trim();
    } catch {
      res.writeHead(503).end();
      return;
    }
    try {
      const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
        id: string;
        type: string;
        data?: { reference?: string; status?: string };
      };
      console.log(
        `webhook verified: ${event.type} ${event.id} reference=${event.data?.reference ?? '-'} status=${event.data?.status ?? '-'}`,
      );
      res.writeHead(204).end();
    } catch (err) {
      // Not signed with our secret, or too old: a real receiver refuses it the same way.
      console.log(`webhook REFUSED: ${(err as Error).message}`);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.RECEIVER_PORT ?? 0), '127.0.0.1', () => {
  const addr = server.address();
  writeFileSync(portFile, String(typeof addr === 'object' && addr ? addr.port : 0));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
