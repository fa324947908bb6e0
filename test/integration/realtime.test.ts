import WebSocket from 'ws';
import { ApiClient, basic, type Credentials } from '../helpers/http';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { startStack, type TestStack } from '../helpers/stack';
import { publishTestEvent } from '../helpers/events';
import { startApiProcesses, stopApiProcesses, type ApiProcess } from '../helpers/api-processes';

// The WebSocket stream through a real `ws` client: authentication, subscriptions, resumption,
// isolation between merchants, and fan-out across API processes fed by the durable event record.

interface Conn {
  ws: WebSocket;
  messages: any[];
  next(pred: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

async function connect(url: string, credentials?: Credentials): Promise<Conn> {
  const ws = new WebSocket(url, credentials ? { headers: { authorization: basic(credentials) } } : {});
  const messages: any[] = [];
  const waiters: { pred: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  ws.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString('utf8'));
    messages.push(m);
    for (const w of [...waiters])
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('unexpected-response', (_req, r) => rej(new Error(`HTTP ${r.statusCode}`)));
    ws.once('error', rej);
  });
  return {
    ws,
    messages,
    next: (pred, timeoutMs = 15_000) => {
      const seen = messages.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no matching message; got ${JSON.stringify(messages)}`)),
          timeoutMs,
        );
        waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
      });
    },
    close: () =>
      new Promise<void>((res) => {
        if (ws.readyState === ws.CLOSED) return res();
        ws.once('close', () => res());
        ws.close();
      }),
  };
}

const isEvent = (reference: string) => (m: any) => m.type === 'event' && m.event.data.reference === reference;
const subscribe = async (c: Conn, msg: Record<string, unknown> = {}) => {
  c.ws.send(JSON.stringify({ type: 'subscribe', ...msg }));
  return c.next((m) => m.type === 'subscribed');
};

describe('WebSocket event stream', () => {
  let stack: TestStack;
  let wsUrl: string;
  const apis: ApiProcess[] = [];
  let a: TestMerchant;
  let b: TestMerchant;
  const open: Conn[] = [];
  const conn = async (url: string, creds?: Credentials) => {
    const c = await connect(url, creds);
    open.push(c);
    return c;
  };

  beforeAll(async () => {
    stack = await startStack({ WS_HEARTBEAT: '300ms' });
    wsUrl = `${stack.baseUrl.replace('http', 'ws')}/v1/ws`;
    a = await createTestMerchant(stack, 'A');
    b = await createTestMerchant(stack, 'B');
    // Two more API processes on the same database and Temporal, as behind a load balancer.
    apis.push(...(await startApiProcesses(stack, 2)));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await stopApiProcesses(apis);
    await stack?.stop();
  });

  it('authenticates the upgrade: Basic credentials or a single-use token', async () => {
    await expect(connect(wsUrl)).rejects.toThrow('HTTP 401');
    await expect(connect(wsUrl, { apiKey: a.credentials.apiKey, apiClient: 'wrong' })).rejects.toThrow(
      'HTTP 401',
    );
    const plain = await new ApiClient(stack.baseUrl, a.credentials).get('/v1/ws');
    expect(plain.status).toBe(426);

    const issued = await new ApiClient(stack.baseUrl, a.credentials).post('/v1/ws/tokens', {});
    expect(issued.status).toBe(201);
    expect(issued.body.token).toMatch(/^wst_/);
    const viaToken = await conn(`${wsUrl}?token=${issued.body.token}`);
    expect(await viaToken.next((m) => m.type === 'ready')).toMatchObject({ heartbeatMs: 300 });
    await expect(connect(`${wsUrl}?token=${issued.body.token}`)).rejects.toThrow('HTTP 401');
    // Heartbeats keep the connection observable from a browser.
    await viaToken.next((m) => m.type === 'heartbeat', 5_000);
  });

  it('fans an event caused by the worker out to clients of either API process, and to no other merchant', async () => {
    const a1 = await conn(apis[0]!.wsUrl, a.credentials);
    // A token issued by one process opens a stream on another.
    const token = (await new ApiClient(apis[0]!.baseUrl, a.credentials).post('/v1/ws/tokens', {})).body.token;
    const a2 = await conn(`${apis[1]!.wsUrl}?token=${token}`);
    const bOnA1 = await conn(apis[0]!.wsUrl, b.credentials);
    const bOnA2 = await conn(apis[1]!.wsUrl, b.credentials);
    for (const c of [a1, a2, bOnA1, bOnA2]) await subscribe(c);

    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-fan-a' });
    const [e1, e2] = await Promise.all([a1.next(isEvent('rt-fan-a')), a2.next(isEvent('rt-fan-a'))]);
    expect(e1.event).toEqual(e2.event);
    expect(e1.event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'payin.completed' });

    await publishTestEvent(stack, b.merchantId, { type: 'payin.failed', reference: 'rt-fan-b' });
    await Promise.all([bOnA1.next(isEvent('rt-fan-b')), bOnA2.next(isEvent('rt-fan-b'))]);
    await new Promise((r) => setTimeout(r, 500));
    for (const c of [a1, a2])
      expect(c.messages.filter((m) => m.type === 'event').map((m) => m.event.data.reference)).toEqual([
        'rt-fan-a',
      ]);
    for (const c of [bOnA1, bOnA2])
      expect(c.messages.filter((m) => m.type === 'event').map((m) => m.event.data.reference)).toEqual([
        'rt-fan-b',
      ]);
  });

  it('subscribes to given references only', async () => {
    const c = await conn(wsUrl, a.credentials);
    expect(await subscribe(c, { references: ['rt-ref-x'] })).toMatchObject({ references: ['rt-ref-x'] });
    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-ref-y' });
    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-ref-x' });
    await c.next(isEvent('rt-ref-x'));
    await new Promise((r) => setTimeout(r, 300));
    expect(c.messages.some(isEvent('rt-ref-y'))).toBe(false);
    c.ws.send('not json');
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'MALFORMED_JSON' });
  });

  it('resumes after a reconnect from the last event id seen, in order, then goes live', async () => {
    const first = await conn(apis[1]!.wsUrl, a.credentials);
    await subscribe(first);
    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-resume-1' });
    const seen = (await first.next(isEvent('rt-resume-1'))).event;
    await first.close();

    // Missed while disconnected; one after the other (two workflows started together have no
    // order of their own: their events could be recorded in the same millisecond).
    const api = new ApiClient(stack.baseUrl, a.credentials);
    const { eventually } = await import('../helpers/http');
    const recorded = (reference: string) =>
      eventually(
        () => api.get(`/v1/events?reference=${reference}`),
        (r) => r.body.data?.length === 1,
      );
    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-resume-2' });
    await recorded('rt-resume-2');
    await publishTestEvent(stack, a.merchantId, { type: 'payin.failed', reference: 'rt-resume-3' });
    await recorded('rt-resume-3');

    // Reconnect to the other process, as a load balancer may.
    const again = await conn(apis[0]!.wsUrl, a.credentials);
    const ack = await subscribe(again, { lastEventId: seen.id });
    expect(ack).toMatchObject({ resumedAfter: seen.id });
    expect(ack.replayed).toBeGreaterThanOrEqual(2);
    await again.next(isEvent('rt-resume-3'));
    const refs = again.messages.filter((m) => m.type === 'event').map((m) => m.event.data.reference);
    expect(refs.indexOf('rt-resume-2')).toBeLessThan(refs.indexOf('rt-resume-3'));
    expect(refs).not.toContain('rt-resume-1');
    await publishTestEvent(stack, a.merchantId, { type: 'payin.completed', reference: 'rt-resume-4' });
    await again.next(isEvent('rt-resume-4'));

    // Another merchant's event id resumes nothing.
    const stranger = await conn(wsUrl, b.credentials);
    await stranger.next((m) => m.type === 'ready');
    stranger.ws.send(JSON.stringify({ type: 'subscribe', lastEventId: seen.id }));
    expect(await stranger.next((m) => m.type === 'error')).toMatchObject({ code: 'EVENT_NOT_FOUND' });
    expect(await stranger.next((m) => m.type === 'subscribed')).toMatchObject({
      resumedAfter: null,
      replayed: 0,
    });
    expect(
      stranger.messages.some((m) => m.type === 'event' && m.event.data.reference.startsWith('rt-resume')),
    ).toBe(false);
  });
});
