import type { Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Express } from 'express';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { awayFromWindowEnd } from '../helpers/fixed-windows';
import { buildApi } from '../../src/main/wiring';
import { createLogger } from '../../src/infra/logger';
import type { Config } from '../../src/config';

// The hosted checkout page's limits and reads: the answer limit is per session and client address,
// the client address follows X-Forwarded-For only from proxies TRUST_PROXY trusts, every call is
// bounded per address, and the page and its polls read the stored record, never a Temporal Query.
describe('checkout page: limits per session and client address, reads without Temporal Queries', () => {
  const servers: Server[] = [];
  // The default TRUST_PROXY (loopback) trusts this test, a loopback peer, as a proxy.
  const { stack, api } = useStack({
    config: { CHECKOUT_REQUESTS_PER_MINUTE: '60' },
    beforeStop: () =>
      Promise.all(servers.map((s) => new Promise<void>((res) => s.close(() => res())))).then(() => undefined),
  });

  let sessions = 0;
  async function createSession(sandboxScenario = 'completed'): Promise<string> {
    const res = await api.post('/v1/payin/sessions', {
      reference: `limits-${++sessions}`,
      sandboxScenario,
      amount: 5000,
      msisdn: '+2250500000001',
      customerName: 'Awa Koné',
      country: 'CI',
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    expect(res.status).toBe(201);
    return new URL((res.body as { paymentUrl: string }).paymentUrl).pathname;
  }

  /** Another API on the same stack (its own process state; the limits' counters are the store's), listening on `host`. */
  async function anotherApi(
    overrides: Partial<Config>,
    opts: { host?: string; temporal?: Client } = {},
  ): Promise<{ app: Express; port: number }> {
    const app = await buildApi({
      config: { ...stack.config, ...overrides },
      mongo: stack.mongo,
      temporal: opts.temporal ?? stack.env.client,
      logger: createLogger('silent'),
    });
    const server = await new Promise<Server>((res) => {
      const s = app.listen(0, opts.host ?? '127.0.0.1', () => res(s));
    });
    servers.push(server);
    const addr = server.address();
    return { app, port: typeof addr === 'object' && addr ? addr.port : 0 };
  }

  // A customer's answer the workflow refuses before it is sent (400): it still counts as an answer.
  const badConfirm = { provider: 'MTN', msisdn: 'not a number' };
  const confirmFrom = (client: ApiClient, page: string, address?: string) =>
    client.request('POST', `${page}/confirm`, badConfirm, address ? { 'x-forwarded-for': address } : {});
  // The limits count in windows aligned on the minute: a test that fills one and expects the next
  // call refused starts away from the window's end.
  const freshWindow = () => awayFromWindowEnd(60_000);
  /** Sends `n` answers and returns their statuses. */
  async function answers(client: ApiClient, page: string, n: number, address?: (i: number) => string) {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await confirmFrom(client, page, address?.(i))).status);
    return statuses;
  }

  it("keys the confirm/decline limit on the session and the client address: neither blocks another's", async () => {
    const customer = new ApiClient(stack.baseUrl, null);
    const [one, two] = [await createSession(), await createSession()];
    const limit = stack.config.CHECKOUT_ANSWERS_PER_MINUTE;
    expect(limit).toBe(20);
    await freshWindow();
    expect(await answers(customer, one, limit, () => '203.0.113.1')).toEqual(Array(limit).fill(400));
    const refused = await confirmFrom(customer, one, '203.0.113.1');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    // Confirm and decline share the session's bucket.
    const decline = await customer.request(
      'POST',
      `${one}/decline`,
      {},
      { 'x-forwarded-for': '203.0.113.1' },
    );
    expect(decline.status).toBe(429);

    // Another customer of the same session, behind the same proxy: its own bucket.
    expect((await confirmFrom(customer, one, '203.0.113.2')).status).toBe(400);
    // The same address on another session: its own bucket too.
    expect((await confirmFrom(customer, two, '203.0.113.1')).status).toBe(400);
    // Nothing reached the workflows: both sessions still await their customer.
    for (const page of [one, two])
      expect((await customer.get(`${page}/status`)).body).toMatchObject({ awaitingCustomer: true });
  }, 120_000);

  it('ignores a forged X-Forwarded-For when TRUST_PROXY is false: one bucket for the peer', async () => {
    const { port } = await anotherApi({ TRUST_PROXY: false });
    const customer = new ApiClient(`http://127.0.0.1:${port}`, null);
    const page = await createSession();
    const limit = stack.config.CHECKOUT_ANSWERS_PER_MINUTE;
    // Every answer claims another address: all of them are the peer's own.
    await freshWindow();
    expect(await answers(customer, page, limit, (i) => `198.51.100.${i + 1}`)).toEqual(
      Array(limit).fill(400),
    );
    expect((await confirmFrom(customer, page, '198.51.100.200')).status).toBe(429);
    expect((await confirmFrom(customer, page)).status).toBe(429);
  }, 120_000);

  // The default (loopback) trusts only a proxy on this host: a peer reaching the API over the
  // network cannot name itself another client. Needs an address of this host other than loopback.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
  (external ? it : it.skip)(
    'ignores a forged X-Forwarded-For from a peer that is not a trusted proxy (the default TRUST_PROXY)',
    async () => {
      expect(stack.config.TRUST_PROXY).toEqual(['loopback']);
      const { port } = await anotherApi({}, { host: '0.0.0.0' });
      const customer = new ApiClient(`http://${external}:${port}`, null);
      const page = await createSession();
      const limit = stack.config.CHECKOUT_ANSWERS_PER_MINUTE;
      await freshWindow();
      expect(await answers(customer, page, limit, (i) => `198.51.100.${i + 1}`)).toEqual(
        Array(limit).fill(400),
      );
      expect((await confirmFrom(customer, page, '198.51.100.200')).status).toBe(429);
    },
    120_000,
  );

  it('bounds every checkout call per client address (CHECKOUT_REQUESTS_PER_MINUTE)', async () => {
    const customer = new ApiClient(stack.baseUrl, null);
    const page = await createSession();
    const from = (address: string) => ({ 'x-forwarded-for': address, accept: 'application/json' });
    await freshWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++)
      statuses.push((await customer.get(`${page}/status`, from('203.0.113.50'))).status);
    expect(statuses).toEqual(Array(60).fill(200));
    const refused = await customer.get(`${page}/status`, {
      ...from('203.0.113.50'),
      'accept-language': 'fr',
    });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', title: 'Trop de requêtes' });
    expect((await customer.get(page, from('203.0.113.50'))).status).toBe(429);
    // Unknown ids count as well: probing for links is bounded too.
    expect(
      (await customer.get('/checkout/pr_000000000000000000000000/status', from('203.0.113.50'))).status,
    ).toBe(429);
    // Another address is served.
    expect((await customer.get(`${page}/status`, from('203.0.113.51'))).status).toBe(200);
  }, 120_000);

  it('serves the page and its polls from the stored record, without a Temporal Query, and follows a confirm', async () => {
    // The API's own Temporal client, counting every Query it sends.
    const queries: string[] = [];
    const counting: WorkflowClientInterceptor = {
      query: async (input, next) => {
        queries.push(input.queryType);
        return next(input);
      },
    };
    const temporal = new Client({
      connection: stack.env.connection,
      namespace: stack.env.namespace ?? 'default',
      dataConverter: stack.env.client.options.dataConverter,
      interceptors: { workflow: [counting] },
    });
    const { port } = await anotherApi({}, { temporal });
    // Its own client address: the limits are counted in the store every API shares, and the
    // tests above used the loopback peer's budget.
    const customer = new ApiClient(`http://127.0.0.1:${port}`, null, { 'x-forwarded-for': '203.0.113.60' });
    const page = await createSession();

    const html = await customer.get(page, { accept: 'text/html' });
    expect(html.status).toBe(200);
    expect(html.body).toContain('"awaitingCustomer":true');
    // Polls for longer than the cache keeps a record: some of them read the store again.
    for (let i = 0; i < 25; i++) {
      const polled = await customer.get(`${page}/status`);
      expect(polled.status).toBe(200);
      expect(polled.body).toMatchObject({ status: 'processing', awaitingCustomer: true, final: false });
      await new Promise((r) => setTimeout(r, 120));
    }

    const confirmed = await customer.post(`${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ awaitingCustomer: false });
    // Right after the answer, the polls read what the workflow records, step by step, to the end.
    const seen: string[] = [];
    const done = await eventually(
      async () => {
        const polled = await customer.get(`${page}/status`);
        seen.push(`${polled.body.status}/${polled.body.confirmationStatus}`);
        return polled;
      },
      (r) => r.body.final === true,
    );
    expect(done.body).toMatchObject({
      status: 'success',
      confirmationStatus: 'accepted',
      awaitingCustomer: false,
      ussdCode: '*133#',
      redirectUrl: 'https://merchant.example/ok',
    });
    const reloaded = await customer.get(page, { accept: 'text/html' });
    expect(reloaded.body).toContain('"status":"success"');
    expect(reloaded.body).toContain('"final":true');
    expect(queries).toEqual([]);
  });
  it("shows Wave's own page from the record once the operator handed it out, never the checkout link", async () => {
    const customer = new ApiClient(stack.baseUrl, null, { 'x-forwarded-for': '203.0.113.61' });
    const page = await createSession('pending');
    // Until then the record's paymentUrl is this page's own link: not an operator page.
    expect((await customer.get(`${page}/status`)).body).toMatchObject({ paymentUrl: null, ussdCode: null });
    const id = page.split('/').pop()!;
    const confirmed = await customer.post(`${page}/confirm`, { provider: 'WAVE', msisdn: '+2250500000003' });
    expect(confirmed.status).toBe(200);
    const polled = await eventually(
      () => customer.get(`${page}/status`),
      (r) => r.body.paymentUrl !== null,
    );
    expect(polled.body).toMatchObject({
      paymentUrl: `${stack.simulator.url}/wave/checkout/${id}`,
      confirmationStatus: 'pending',
      awaitingCustomer: false,
      final: false,
    });
  });
});
