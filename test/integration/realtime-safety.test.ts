import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { ApiClient, basic, type Credentials } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { MerchantService } from '../../src/merchants';
import { EventStore } from '../../src/events/event-store';

// Multi-tenant bounds of the WebSocket stream (issue 16), through a real `ws` client on the real
// stack: open streams of a revoked key or a suspended merchant close within AUTH_CACHE_TTL, each
// merchant holds a bounded number of connections, and a consumer that reads too slowly is closed
// and resumes from its last event id.
const authCacheTtlMs = 1_000;
const maxConnections = 3;
const maxQueued = 20;
/** Another process's view of the merchants (the CLI's): no cache. */
let cli: MerchantService;
let wsUrl: string;
const opened: WebSocket[] = [];
const { stack } = useStack({
  config: {
    AUTH_CACHE_TTL: `${authCacheTtlMs}ms`,
    WS_MAX_CONNECTIONS_PER_MERCHANT: String(maxConnections),
    WS_MAX_QUEUED_MESSAGES: String(maxQueued),
    WS_HEARTBEAT: '30s',
  },
  merchant: false,
  beforeStop: () => {
    for (const ws of opened) ws.terminate();
  },
});

beforeAll(async () => {
  cli = MerchantService.on(stack.mongo);
  await cli.init();
  wsUrl = `${stack.baseUrl.replace(/^http/, 'ws')}/v1/ws`;
});

interface Stream {
  ws: WebSocket;
  messages: any[];
  /** Resolves with the close code and reason, and when it came (ms since epoch). */
  closed: Promise<{ code: number; reason: string; at: number }>;
}

/** Opens a stream; rejects with the refusal's status and body. */
function open(url: string, credentials?: Credentials, headers: Record<string, string> = {}): Promise<Stream> {
  const ws = new WebSocket(url, {
    headers: { ...headers, ...(credentials ? { authorization: basic(credentials) } : {}) },
  });
  opened.push(ws);
  const messages: any[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8'))));
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8'), at: Date.now() })),
  );
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, closed }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`HTTP ${res.statusCode}`), {
            status: res.statusCode,
            headers: res.headers,
            body: body ? JSON.parse(body) : null,
          }),
        ),
      );
    });
    ws.once('error', reject);
  });
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('opened');
    },
    (err: { status: number; headers: Record<string, string>; body: any }) => err,
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isOpen = (s: Stream) => s.ws.readyState === WebSocket.OPEN;
/** Slack for a loaded 2-core machine on top of the bound itself. */
const slackMs = 1_500;

async function tokenUrl(credentials: Credentials): Promise<string> {
  const issued = await new ApiClient(stack.baseUrl, credentials).post('/v1/ws/tokens', {});
  expect(issued.status).toBe(201);
  return `${wsUrl}?token=${issued.body.token}`;
}

describe('open streams of a revoked key or a suspended merchant', () => {
  it('close within AUTH_CACHE_TTL when their key is revoked (Basic and token), code 4001; other keys stay open', async () => {
    const m = await createTestMerchant(stack, 'Revoked stream');
    const second = await cli.rotateKeys(m.merchantId);
    const byBasic = await open(wsUrl, m.credentials);
    const byToken = await open(await tokenUrl(m.credentials));
    const otherKey = await open(wsUrl, second);
    // Let the streams' first re-checks (and the API's cache) see the key active.
    await sleep(authCacheTtlMs);

    const revokedAt = Date.now();
    await cli.revokeKey(m.credentials.apiKey);
    const [a, b] = await Promise.all([byBasic.closed, byToken.closed]);
    for (const c of [a, b]) {
      expect(c.code).toBe(4001);
      expect(c.reason).toBe('api key revoked');
      expect(c.at - revokedAt).toBeLessThan(authCacheTtlMs + slackMs);
    }
    // The reason names no secret.
    expect(a.reason).not.toContain(m.credentials.apiKey);
    expect(a.reason).not.toContain(m.credentials.apiClient);
    await sleep(2 * authCacheTtlMs);
    expect(isOpen(otherKey)).toBe(true);
    // And the revoked key cannot open a new one.
    expect((await refusal(open(wsUrl, m.credentials))).status).toBe(401);
  });

  it('close within AUTH_CACHE_TTL when their merchant is suspended, code 4003; another merchant stays open', async () => {
    const m = await createTestMerchant(stack, 'Suspended stream');
    const healthy = await createTestMerchant(stack, 'Healthy stream');
    const streams = [await open(wsUrl, m.credentials), await open(await tokenUrl(m.credentials))];
    const other = await open(wsUrl, healthy.credentials);
    await sleep(authCacheTtlMs);

    const suspendedAt = Date.now();
    await cli.suspendMerchant(m.merchantId);
    for (const c of await Promise.all(streams.map((s) => s.closed))) {
      expect(c.code).toBe(4003);
      expect(c.reason).toBe('merchant suspended');
      expect(c.at - suspendedAt).toBeLessThan(authCacheTtlMs + slackMs);
    }
    await sleep(2 * authCacheTtlMs);
    expect(isOpen(other)).toBe(true);
    expect((await refusal(open(wsUrl, m.credentials))).status).toBe(401);

    await cli.reactivateMerchant(m.merchantId);
    await sleep(authCacheTtlMs + 200);
    const again = await open(wsUrl, m.credentials);
    expect(isOpen(again)).toBe(true);
    again.ws.close();
  });
});

describe('connections per merchant', () => {
  it(`refuses the connection past WS_MAX_CONNECTIONS_PER_MERCHANT (${maxConnections}) with a 429 problem, before the upgrade`, async () => {
    const m = await createTestMerchant(stack, 'Many streams');
    const other = await createTestMerchant(stack, 'Other streams');
    // Concurrent upgrades cannot all slip past the count.
    const attempts = await Promise.allSettled(
      Array.from({ length: maxConnections + 4 }, () => open(wsUrl, m.credentials)),
    );
    const streams = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    expect(streams).toHaveLength(maxConnections);

    const refused = await refusal(open(wsUrl, m.credentials, { 'accept-language': 'fr' }));
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.body).toMatchObject({ status: 429, code: 'RATE_LIMITED', title: 'Trop de requêtes' });
    expect(refused.body.detail).toMatch(/WebSockets/);
    // A browser token is counted the same.
    expect((await refusal(open(await tokenUrl(m.credentials)))).status).toBe(429);
    // Another merchant is not affected.
    const theirs = await open(wsUrl, other.credentials);
    expect(isOpen(theirs)).toBe(true);

    // Closing one frees its slot.
    streams[0]!.ws.close();
    await streams[0]!.closed;
    await sleep(100);
    const replacement = await open(wsUrl, m.credentials);
    expect(isOpen(replacement)).toBe(true);
    for (const s of [...streams, replacement, theirs]) s.ws.close();
  });
});

describe('a slow consumer', () => {
  const reason = 'too many unsent messages: reconnect and resume with lastEventId';
  const pauseOf = (s: Stream) => (s.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  const eventsOf = (s: Stream) =>
    s.messages.filter((x) => x.type === 'event').map((x) => x.event.id as string);
  async function until(done: () => boolean, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) await sleep(100);
  }
  /** Entries on the feed, as another API process's worker would publish them (no event record). */
  async function publishOnFeed(merchantId: string, count: number, bytes: number): Promise<string[]> {
    const padding = 'x'.repeat(bytes);
    const entries = Array.from({ length: count }, (_, i) => {
      const id = `evt_${randomBytes(12).toString('hex')}`;
      const event = {
        id,
        type: 'payin.completed' as const,
        createdAt: new Date().toISOString(),
        data: { reference: `feed-${i}`, padding },
      };
      return { _id: id, merchantId, reference: `feed-${i}`, at: new Date(), event };
    });
    await stack.mongo.db!.collection('event_feed').insertMany(entries as never[]);
    return entries.map((e) => e._id);
  }

  it(`is closed with 1013 once more than WS_MAX_QUEUED_MESSAGES (${maxQueued}) events wait unsent, a fast one is not, and it resumes from its last event id`, async () => {
    const m = await createTestMerchant(stack, 'Slow reader');
    const events = EventStore.on(stack.mongo);
    const record = async (reference: string) =>
      (
        await events.record({
          merchantId: m.merchantId,
          type: 'payin.completed',
          subjectId: `pr_${randomBytes(12).toString('hex')}`,
          reference,
          data: { reference, status: 'success' },
        })
      ).id;
    const fast = await open(wsUrl, m.credentials);
    const slow = await open(wsUrl, m.credentials);
    for (const s of [fast, slow]) s.ws.send(JSON.stringify({ type: 'subscribe' }));
    await sleep(300);
    const seen = await record('before');
    await until(() => eventsOf(slow).includes(seen));

    // The slow client stops reading: the kernel's buffers fill (about 4 MB here), then messages
    // wait in the API. 20 waiting 150 kB messages (3 MB) reach the message bound before the 4 MB
    // byte bound, so the reason says which bound closed it. Small batches, so that the fast client
    // (in this same process) reads between them.
    pauseOf(slow).pause();
    const ids: string[] = [];
    for (let batch = 0; batch < 8; batch++) {
      ids.push(...(await publishOnFeed(m.merchantId, 10, 150_000)));
      await until(() => eventsOf(fast).length >= ids.length + 1, 10_000);
    }
    expect(eventsOf(fast)).toEqual([seen, ...ids]);
    expect(isOpen(fast)).toBe(true);
    const missed = [await record('after-1'), await record('after-2')];

    // The slow one reads what its buffers held, then the close frame.
    pauseOf(slow).resume();
    const closed = await slow.closed;
    expect([closed.code, closed.reason]).toEqual([1013, reason]);
    expect(eventsOf(slow).length).toBeLessThan(1 + ids.length);

    // It resumes from the last recorded event it saw (the feed-only entries above have no event
    // record to resume from) and gets what it missed, in order.
    const again = await open(wsUrl, m.credentials);
    again.ws.send(JSON.stringify({ type: 'subscribe', lastEventId: seen }));
    await until(() => eventsOf(again).length >= missed.length);
    expect(again.messages.find((x) => x.type === 'subscribed')).toMatchObject({ resumedAfter: seen });
    expect(eventsOf(again)).toEqual(missed);
    for (const s of [fast, again]) s.ws.close();
  }, 120_000);
});
