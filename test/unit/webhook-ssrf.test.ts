import { createServer, type Server } from 'node:http';
import { checkWebhookUrl, classifyAddress, isAllowedAddress, type Resolver } from '../../src/webhooks/ssrf';
import { postWebhook } from '../../src/webhooks/sender';
import { publicAttemptError } from '../../src/webhooks/delivery-log';
import { nextRetryDelayMs, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule';

describe('SSRF guard', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['224.0.0.251', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['2002:a9fe:a9fe::', 'forbidden'],
    ['not-an-ip', 'forbidden'],
  ])('classifies %s as %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('refuses at registration what can be refused without resolving', () => {
    expect(checkWebhookUrl('https://merchant.example/hook', false)).toBeNull();
    expect(checkWebhookUrl('ftp://merchant.example/hook', false)).toBe('scheme');
    expect(checkWebhookUrl('https://user:pw@merchant.example/hook', false)).toBe('credentials');
    // The WHATWG parser turns these spellings into 127.0.0.1 first.
    for (const u of [
      'http://127.0.0.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://017700000001/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::1]/',
    ])
      expect([u, checkWebhookUrl(u, false)]).toEqual([u, 'address']);
    expect(checkWebhookUrl('http://127.0.0.1:8080/', true)).toBeNull();
    // Link-local (cloud metadata) stays refused even where private networks are allowed.
    expect(checkWebhookUrl('http://169.254.169.254/latest/meta-data', true)).toBe('address');
  });

  it("lets 'loopback' (the development default) reach this machine only", () => {
    for (const u of ['http://127.0.0.1:8000/hook', 'http://[::1]:8000/', 'http://localhost:8000/'])
      expect([u, checkWebhookUrl(u, 'loopback')]).toEqual([u, null]);
    for (const u of [
      'http://10.0.0.1/',
      'http://192.168.1.10/',
      'http://[fd12::1]/',
      'http://169.254.169.254/',
    ])
      expect([u, checkWebhookUrl(u, 'loopback')]).toEqual([u, 'address']);
    expect(isAllowedAddress('::ffff:127.0.0.1', 'loopback')).toBe(true);
    expect(isAllowedAddress('100.64.0.1', 'loopback')).toBe(false);
    expect(isAllowedAddress('8.8.8.8', 'loopback')).toBe(true);
  });

  describe('at connection time', () => {
    let server: Server;
    let port: number;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    // A name that resolves to loopback when the connection is made (DNS rebinding).
    const rebinding: Resolver = (_host, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);

    it('refuses a name that resolves to a private address, without connecting', async () => {
      const before = hits;
      const r = await postWebhook(`http://rebound.example:${port}/hook`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivateNetworks: false,
        resolve: rebinding,
      });
      expect(r.statusCode).toBeNull();
      // A fixed reason: never the address the name resolved to (the merchant reads this error).
      expect(r.error).toBe('the address is not public');
      expect(r.error).not.toMatch(/127\.0\.0\.1|rebound/);
      expect(hits).toBe(before);
      const literal = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivateNetworks: false,
      });
      expect(literal.error).toBe('the address is not public');
      expect(hits).toBe(before);
    });

    it('names a refused connection by its reason, without the address it tried', async () => {
      // A private address allowed (development) but closed: the socket says "connect ECONNREFUSED
      // 127.0.0.1:<port>"; the log says only what happened.
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
      const closedPort = (closed.address() as { port: number }).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const r = await postWebhook(`http://internal.example:${closedPort}/hook`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivateNetworks: true,
        resolve: rebinding,
      });
      expect(r).toMatchObject({ statusCode: null, error: 'connection refused' });
    });

    it('masks addresses in errors logged before errors were fixed reasons', () => {
      expect(publicAttemptError('connect ECONNREFUSED 10.0.0.5:443')).toBe('connection refused');
      expect(
        publicAttemptError('db.internal resolves to 10.1.2.3, which is not an allowed destination'),
      ).toBe('the address is not public');
      expect(publicAttemptError('connect EHOSTUNREACH 10.9.8.7:80 - Local (0.0.0.0:0)')).not.toMatch(
        /\d+\.\d+\.\d+\.\d+/,
      );
      expect(publicAttemptError('connect ETIMEDOUT fd00::1:443')).not.toMatch(/fd00/);
      expect(publicAttemptError('HTTP 503')).toBe('HTTP 503');
      expect(publicAttemptError(null)).toBeNull();
    });

    it('connects to the address it checked when the flag allows private networks', async () => {
      const before = hits;
      const r = await postWebhook(`http://rebound.example:${port}/hook`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivateNetworks: true,
        resolve: rebinding,
      });
      expect(r).toMatchObject({ statusCode: 200, error: null });
      expect(hits).toBe(before + 1);
    });
  });
});

describe('retry schedule', () => {
  it('spans about three days, with jitter, and honours Retry-After', () => {
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 86_400_000).toBeGreaterThan(2.5);
    expect(total / 86_400_000).toBeLessThan(3.5);
    expect(nextRetryDelayMs(1, null, 0)).toBe(4000);
    expect(nextRetryDelayMs(1, null, 0.999)).toBeLessThanOrEqual(6000);
    expect(nextRetryDelayMs(1, 3_600_000, 0.5)).toBe(3_600_000);
    expect(nextRetryDelayMs(1, 10 * 86_400_000, 0.5)).toBe(86_400_000);
    expect(nextRetryDelayMs(RETRY_DELAYS_MS.length + 1, null, 0.5)).toBeNull();
  });
});
