import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { listen, ListenError } from '../../src/cli/webhooks-listen';
import { newSigningSecret } from '../../src/webhooks/signing';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// `webhooks listen` against a stand-in of the API's stream (the protocol of src/api/ws.ts): it
// subscribes, forwards in order what passes the filter, resumes after the last event seen when the
// stream drops, and stops for good when the key is revoked. The real API: webhook-tools.test.ts.

const event = (n: number, type = 'payin.completed') => ({
  id: `evt_${String(n).padStart(24, '0')}`,
  type,
  createdAt: new Date().toISOString(),
  livemode: false,
  data: { id: `pr_${n}`, reference: `order-${n}`, status: 'success' },
});

describe('webhooks listen over the stream', () => {
  let server: WebSocketServer;
  let apiUrl: string;
  let receiver: WebhookReceiver;
  const subscribes: unknown[] = [];
  const authorizations: (string | undefined)[] = [];
  /** Called with each connection, its number, and its first subscribe message. */
  let onConnection: (ws: WebSocket, n: number, subscribed: Promise<void>) => void = () => undefined;

  beforeAll(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/v1/ws' });
    await new Promise((res) => server.once('listening', res));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let connections = 0;
    server.on('connection', (ws, req) => {
      authorizations.push(req.headers.authorization);
      const n = ++connections;
      const subscribed = new Promise<void>((resolve) =>
        ws.on('message', (data: Buffer) => {
          const msg = JSON.parse(data.toString('utf8')) as { type: string };
          if (msg.type !== 'subscribe') return;
          subscribes.push(msg);
          resolve();
        }),
      );
      ws.send(JSON.stringify({ type: 'ready', heartbeatMs: 25_000 }));
      onConnection(ws, n, subscribed);
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await new Promise((res) => server.close(res));
  });

  it('forwards the filtered events signed, and resumes after the last one seen when the stream drops', async () => {
    const secret = newSigningSecret();
    onConnection = (ws, n, subscribed) => {
      void (async () => {
        await subscribed;
        if (n === 1) {
          ws.send(JSON.stringify({ type: 'subscribed', references: null, resumedAfter: null, replayed: 0 }));
          ws.send(JSON.stringify({ type: 'event', event: event(1) }));
          ws.send(JSON.stringify({ type: 'event', event: event(2, 'payout.updated') }));
          // Too slow a consumer: the API closes with 1013, the client resumes.
          setTimeout(() => ws.close(1013, 'too many unsent messages'), 200);
        } else {
          ws.send(
            JSON.stringify({ type: 'subscribed', references: null, resumedAfter: event(2).id, replayed: 1 }),
          );
          ws.send(JSON.stringify({ type: 'event', event: event(3) }));
        }
      })();
    };
    const stdout: string[] = [];
    const stderr: string[] = [];
    const stop = new AbortController();
    const running = listen(
      {
        apiUrl,
        apiKey: 'mk_test_a',
        apiClient: 'sk_test_b',
        forwardTo: `${receiver.url}/hook`,
        secret,
        events: ['payin.completed'],
      },
      { stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l), signal: stop.signal },
    );
    while (receiver.received.length < 2) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;

    expect(authorizations[0]).toBe(`Basic ${Buffer.from('mk_test_a:sk_test_b').toString('base64')}`);
    // The second subscription resumes after the last event the stream gave, filtered out or not.
    expect(subscribes).toEqual([{ type: 'subscribe' }, { type: 'subscribe', lastEventId: event(2).id }]);
    const wh = new Webhook(secret);
    expect(
      receiver.received.map(
        (r) => (wh.verify(r.body, r.headers as Record<string, string>) as { id: string }).id,
      ),
    ).toEqual([event(1).id, event(3).id]);
    expect(stdout.slice(0, 2)).toEqual([
      `Ready! Forwarding test-mode events (payin.completed) to ${receiver.url}/hook`,
      `Your webhook signing secret is ${secret} (^C to quit)`,
    ]);
    expect(stdout.slice(2)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d  --> payin.completed \\[${event(1).id}\\]  <-- \\[200\\] \\(\\d+ ms\\)$`,
        ),
      ),
      expect.stringMatching(new RegExp(`--> payin.completed \\[${event(3).id}\\]  <-- \\[200\\]`)),
    ]);
    expect(stderr).toEqual([
      expect.stringMatching(/connection lost \(1013\); reconnecting in 1 s$/),
      expect.stringMatching(/reconnected; 1 missed events follow$/),
    ]);
  }, 30_000);

  it('stops with an error when the API closes the stream for a revoked key', async () => {
    onConnection = (ws, _n, subscribed) => {
      void (async () => {
        await subscribed;
        ws.send(JSON.stringify({ type: 'subscribed', references: null, resumedAfter: null, replayed: 0 }));
        setTimeout(() => ws.close(4001, 'api key revoked'), 100);
      })();
    };
    subscribes.length = 0;
    const running = listen(
      { apiUrl, apiKey: 'mk_test_a', apiClient: 'sk_test_b', forwardTo: `${receiver.url}/hook` },
      { stdout: () => undefined, stderr: () => undefined, signal: new AbortController().signal },
    );
    await expect(running).rejects.toThrow(new ListenError('the API closed the stream: api key revoked'));
  }, 30_000);
});
