import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { freePort, startStack, type TestStack } from '../helpers/stack';
import { spawnFake, type FakeProcess } from '../fakes/spawn';
import { mtnCredentials } from '../helpers/live-fakes';

// Done-when of issue 18: a merchant in live mode, with the connectors pointed at their fakes (each
// its own process, speaking its provider's protocol), completes a payin, a payout and a refund
// through each connector: MTN CI through MTN MoMo direct, Wave CI through Wave direct, Moov CI
// through pawaPay, Orange CI through Hub2 (its journal in the stack's database, its refunds
// transfers to the payer). Callbacks come back signed as each provider signs them, to
// /provider-callbacks.

const fakes = join(__dirname, '..', 'fakes');
const routes = [
  { connector: 'mtn', provider: 'MTN', msisdn: '+2250500000101' },
  { connector: 'wave', provider: 'WAVE', msisdn: '+2250700000102' },
  { connector: 'pawapay', provider: 'MOOV', msisdn: '+2250100000103' },
  { connector: 'hub2', provider: 'ORANGE', msisdn: '+2250700000104' },
] as const;

describe('live mode through each connector', () => {
  const running: FakeProcess[] = [];
  let stack: TestStack;
  let merchant: TestMerchant;
  let live: ApiClient;
  let test: ApiClient;
  let fakeUrls: { pawapay: string; mtn: string; wave: string; hub2: string };

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const pawapayKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = (
      k: { export(o: { type: 'pkcs8' | 'spki'; format: 'pem' }): string | Buffer },
      type: 'pkcs8' | 'spki',
    ) => k.export({ type, format: 'pem' }).toString();
    const [pawapay, mtn, wave, hub2] = await Promise.all([
      spawnFake(join(fakes, 'pawapay', 'main.ts'), {
        FAKE_PAWAPAY_API_TOKEN: 'live-pawapay-token',
        FAKE_PAWAPAY_SIGNING_KEY: pem(pawapayKeys.privateKey, 'pkcs8'),
        FAKE_CALLBACK_URL: `${base}/provider-callbacks/pawapay`,
      }),
      spawnFake(join(fakes, 'mtn', 'main.ts'), {
        ...Object.fromEntries(
          Object.entries(mtnCredentials).flatMap(([product, c]) =>
            Object.entries(c).map(([k, v]) => [`FAKE_MTN_${product}_${k}`, v]),
          ),
        ),
      }),
      spawnFake(join(fakes, 'wave', 'main.ts'), {
        FAKE_WAVE_API_KEY: 'live-wave-key',
        FAKE_WAVE_WEBHOOK_SECRET: 'live-wave-webhook-secret',
        FAKE_CALLBACK_URL: `${base}/provider-callbacks/wave`,
      }),
      spawnFake(join(fakes, 'hub2', 'main.ts'), {
        FAKE_HUB2_API_KEY: 'live-hub2-key',
        FAKE_HUB2_MERCHANT_ID: 'live-hub2-merchant',
        FAKE_HUB2_WEBHOOK_SECRET: 'live-hub2-webhook-secret',
        FAKE_CALLBACK_URL: `${base}/provider-callbacks/hub2`,
      }),
    ]);
    running.push(pawapay, mtn, wave, hub2);
    fakeUrls = { pawapay: pawapay.url, mtn: mtn.url, wave: wave.url, hub2: hub2.url };
    stack = await startStack({
      PORT: String(port),
      OPERATOR_CALLBACK_BASE_URL: base,
      OPERATOR_ROUTES: JSON.stringify({ '*': 'pawapay', MTN_CI: 'mtn', WAVE_CI: 'wave', ORANGE_CI: 'hub2' }),
      PAWAPAY_BASE_URL: pawapay.url,
      PAWAPAY_API_TOKEN: 'live-pawapay-token',
      PAWAPAY_CALLBACK_PUBLIC_KEY: pem(pawapayKeys.publicKey, 'spki'),
      MTN_BASE_URL: mtn.url,
      MTN_CALLBACK_SECRET: 'mtn-callback-secret-0123456789abcdef',
      ...Object.fromEntries(
        Object.entries(mtnCredentials).flatMap(([product, c]) =>
          Object.entries(c).map(([k, v]) => [`MTN_CI_${product}_${k}`, v]),
        ),
      ),
      WAVE_BASE_URL: wave.url,
      WAVE_API_KEY: 'live-wave-key',
      WAVE_WEBHOOK_SECRET: 'live-wave-webhook-secret',
      // The stack is plain http: a session's Wave customer comes back to these (Wave takes https only).
      WAVE_SUCCESS_URL: 'https://shop.example/wave/ok',
      WAVE_ERROR_URL: 'https://shop.example/wave/ko',
      HUB2_BASE_URL: hub2.url,
      HUB2_API_KEY: 'live-hub2-key',
      HUB2_MERCHANT_ID: 'live-hub2-merchant',
      HUB2_ENVIRONMENT: 'sandbox',
      HUB2_WEBHOOK_SECRET: 'live-hub2-webhook-secret',
    });
    merchant = await createTestMerchant(stack, 'Boutique Côte & Fils');
    live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    test = new ApiClient(stack.baseUrl, merchant.credentials);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all(running.map((f) => f.stop()));
  });

  const payinStatus = (ref: string) =>
    eventually(
      () => live.get(`/v1/payin/${ref}`),
      (r) => r.body.status !== 'pending' && r.body.status !== 'processing',
      30_000,
    );

  const collect = async (r: (typeof routes)[number], ref: string) => {
    const created = await live.post('/v1/direct/payin', {
      reference: ref,
      payin: {
        amount: 20_000,
        msisdn: r.msisdn,
        provider: r.provider,
        country: 'CI',
        // Orange CI asks the customer's OTP (#144*82#).
        ...(r.provider === 'ORANGE' ? { otp: '482913' } : {}),
      },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    return payinStatus(ref);
  };

  it.each(routes)(
    '$connector: a live payin, a refund of it, and a payout complete at the provider',
    async (r) => {
      const ref = `live-${r.connector}-${randomUUID()}`;
      const paid = await collect(r, ref);
      expect({ ...paid.body, failure: paid.body.failure ?? null }).toMatchObject({
        status: 'success',
        livemode: true,
        failure: null,
      });
      // A second payin funds the refund of the first in full (Wave refunds whole sessions only).
      expect((await collect(r, `${ref}-2`)).body.status).toBe('success');

      const refund = await live.post(`/v1/payin/${ref}/refund`, {
        reason: 'returned',
        externalReference: `rf-${ref}`,
      });
      expect(refund.status).toBe(201);
      const refunded = await eventually(
        () => live.get(`/v1/refunds/${refund.body.reference}`),
        (x) => x.body.status !== 'pending' && x.body.status !== 'processing',
        30_000,
      );
      expect(refunded.body.status).toBe('completed');

      const payoutRef = `live-po-${r.connector}-${randomUUID()}`;
      const payout = await live.post('/v1/direct/payout', {
        reference: payoutRef,
        customerName: 'Awa Koné',
        payout: { amount: 1_000, msisdn: r.msisdn, provider: r.provider, country: 'CI' },
      });
      expect(payout.status).toBe(201);
      const sent = await eventually(
        () => live.get(`/v1/direct/payout/${payoutRef}`),
        (x) => ['completed', 'failed', 'expired'].includes(x.body.status),
        30_000,
      );
      expect(sent.body.status).toBe('completed');

      // Test mode never sees any of it.
      expect((await test.get(`/v1/payin/${ref}`)).status).toBe(404);
      expect((await test.get(`/v1/direct/payout/${payoutRef}`)).status).toBe(404);
    },
  );

  // Issue 46: a live payment link's payins go through the connectors' session flows: the link's
  // page, the checkout's confirmation, then the provider (Wave: its own payment page).
  it.each(routes)('$connector: a live payment link is paid through the checkout and counted', async (r) => {
    const made = await live.post('/v1/payment-links', {
      title: `Pagne ${r.connector}`,
      amount: { type: 'fixed', value: 5_000 },
      currency: 'XOF',
      countries: ['CI'],
      operators: [r.provider],
      customerFields: { name: true },
      referencePrefix: 'LIVE',
    });
    expect([made.status, made.body.livemode]).toEqual([201, true]);
    const page = `${stack.baseUrl}/l/${made.body.slug as string}`;
    const html = await (await fetch(`${page}?lang=fr`)).text();
    expect(html).not.toContain('data-testid="test-mode"');
    const posted = await fetch(`${page}?lang=fr`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({
        token: /name="token" value="([^"]+)"/.exec(html)![1]!,
        msisdn: r.msisdn,
        name: 'Awa Koné',
      }).toString(),
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    const id = /\/checkout\/(pr_[0-9a-f]{24})/.exec(posted.headers.get('location') ?? '')![1]!;
    const confirmed = await fetch(`${stack.baseUrl}/checkout/${id}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: r.provider,
        msisdn: r.msisdn,
        ...(r.provider === 'ORANGE' ? { otp: '482913' } : {}),
      }),
    });
    expect(confirmed.status).toBe(200);
    // The page polls its status; a provider with its own page (Wave) hands out where to go.
    const sentTo = new Set<unknown>();
    const final = await eventually(
      async () => {
        const st = (await (await fetch(`${stack.baseUrl}/checkout/${id}/status`)).json()) as Record<
          string,
          unknown
        >;
        sentTo.add(st.paymentUrl);
        return st;
      },
      (st) => st.status !== 'pending' && st.status !== 'processing',
      30_000,
    );
    // Only Wave sends its customer to its own page; the others push to the phone.
    expect([...sentTo].filter(Boolean)).toEqual(
      r.connector === 'wave' ? [expect.stringMatching(/^https:\/\/pay\.wave\.com\/c\//)] : [],
    );
    expect([final.status, final.failure]).toEqual(['success', null]);
    // Wave's session is the payin's own (its client_reference).
    if (r.connector === 'wave') {
      const sessions = (await (await fetch(`${fakeUrls.wave}/__fake/state`)).json()) as {
        sessions: Array<{ client_reference: string | null; wave_launch_url: string }>;
      };
      expect(sessions.sessions.some((x) => x.client_reference === id)).toBe(true);
    }
    const payments = await eventually(
      () => live.get(`/v1/payment-links/${made.body.id as string}`),
      (x) => x.body.stats.paid === 1,
    );
    expect(payments.body).toMatchObject({
      status: 'active',
      stats: { attempted: 1, paid: 1, paidTotal: 5_000 },
    });
    const listed = await live.get(`/v1/payment-links/${made.body.id as string}/payments`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      livemode: true,
      status: 'success',
      paymentLinkId: made.body.id,
      customer: { name: 'Awa Koné' },
    });
    expect(listed.body.data[0].reference).toMatch(/^LIVE-/);
    // The link's own event, beside the payin's.
    const events = await eventually(
      () => live.get('/v1/events?type=payment_link.paid&limit=100'),
      (x) => x.body.data.some((e: { data: { id: string } }) => e.data.id === id),
    );
    expect(events.status).toBe(200);
  });

  it("hub2: a refund its transfer cannot make is refused when asked, in the caller's language, never after a 201", async () => {
    const hub2 = routes.find((r) => r.connector === 'hub2')!;
    const ref = `live-hub2-limits-${randomUUID()}`;
    expect((await collect(hub2, ref)).body.status).toBe('success');
    const odd = await live.post(`/v1/payin/${ref}/refund`, {
      reason: 'returned',
      amount: 1_003,
      externalReference: `rf-odd-${ref}`,
    });
    expect(odd.status).toBe(400);
    const message = 'This ORANGE payment is refunded by a transfer of 200 to 1500000 XOF, in multiples of 5.';
    expect(odd.body).toMatchObject({ code: 'INVALID_AMOUNT', errors: [{ path: 'amount', message }] });
    const tooSmall = await live.post(
      `/v1/payin/${ref}/refund`,
      { reason: 'returned', amount: 100, externalReference: `rf-small-${ref}` },
      { 'accept-language': 'fr' },
    );
    expect(tooSmall.body.errors).toEqual([
      {
        path: 'amount',
        message:
          'Ce paiement ORANGE est remboursé par un transfert de 200 à 1500000 XOF, par multiples de 5.',
      },
    ]);
    // Nothing was opened: the payin lists no refund.
    expect((await live.get(`/v1/payin/${ref}`)).body.refunds ?? []).toEqual([]);
  });

  it('hub2: every request was one Hub2 documents, with one attempt per intent and one transfer per id', async () => {
    expect(await (await fetch(`${fakeUrls.hub2}/__fake/undocumented`)).json()).toEqual([]);
    expect(await (await fetch(`${fakeUrls.hub2}/__fake/defects`)).json()).toEqual([]);
    const { transfers } = (await (await fetch(`${fakeUrls.hub2}/__fake/state`)).json()) as {
      transfers: Array<{ reference: string; destination: { msisdn: string } }>;
    };
    // The refund went to the payer's number, under the refund's id.
    expect(
      transfers.some((t) => t.reference.startsWith('rf_') && t.destination.msisdn === routes[3].msisdn),
    ).toBe(true);
  });

  // Issue 28 §7: a rule the routed provider imposes is answered when the request is made, never
  // after a 201; and what the customer reads names the merchant and its reference, not our ids.
  describe("the routed provider's rules, answered at the request", () => {
    const wave = routes[1];
    const httpAction = { successUrl: 'http://shop.example/ok', failureUrl: 'https://shop.example/ko' };

    it.each([
      ['en', /https/],
      ['fr', /adresses https/],
    ])('a Wave payin with an http return URL is refused with a 400 (%s)', async (lang, wording) => {
      const ref = `live-wave-http-${randomUUID()}`;
      const res = await live.post(
        '/v1/direct/payin',
        {
          reference: ref,
          payin: { amount: 20_000, msisdn: wave.msisdn, provider: 'WAVE', country: 'CI' },
          action: httpAction,
        },
        { 'accept-language': lang },
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toEqual([
        { path: 'action.successUrl', message: expect.stringMatching(wording) },
      ]);
      expect(res.body.detail).toMatch(wording);
      // Nothing was created.
      expect((await live.get(`/v1/payin/${ref}`)).status).toBe(404);
    });

    it('an http return URL stays fine where the routed provider takes it (MTN) and in test mode', async () => {
      const mtnPayin = await live.post('/v1/direct/payin', {
        reference: `live-mtn-http-${randomUUID()}`,
        payin: { amount: 20_000, msisdn: routes[0].msisdn, provider: 'MTN', country: 'CI' },
        action: httpAction,
      });
      expect(mtnPayin.status).toBe(201);
      const sandboxWave = await test.post('/v1/direct/payin', {
        reference: `test-wave-http-${randomUUID()}`,
        payin: { amount: 20_000, msisdn: wave.msisdn, provider: 'WAVE', country: 'CI' },
        action: httpAction,
      });
      expect(sandboxWave.status).toBe(201);
    });

    it('a partial refund of a Wave payin is refused at the request; a full one goes through', async () => {
      const ref = `live-wave-partial-${randomUUID()}`;
      expect((await collect(wave, ref)).body.status).toBe('success');
      // Funds the full refund below (the merchant bears the payin fee).
      expect((await collect(wave, `${ref}-2`)).body.status).toBe('success');
      for (const [lang, wording] of [
        ['en', /in full only/],
        ['fr', /qu'en totalité/],
      ] as const) {
        const partial = await live.post(
          `/v1/payin/${ref}/refund`,
          { amount: 5_000, reason: 'part', externalReference: `rf-part-${lang}-${ref}` },
          { 'accept-language': lang },
        );
        expect(partial.status).toBe(400);
        expect(partial.body.code).toBe('INVALID_AMOUNT');
        expect(partial.body.detail).toMatch(wording);
        expect(partial.body.errors).toEqual([{ path: 'amount', message: expect.stringMatching(wording) }]);
      }
      expect((await live.get(`/v1/payin/${ref}`)).body.refunds ?? []).toEqual([]);

      const full = await live.post(`/v1/payin/${ref}/refund`, {
        amount: 20_000,
        reason: 'whole',
        externalReference: `rf-full-${ref}`,
      });
      expect(full.status).toBe(201);
      const done = await eventually(
        () => live.get(`/v1/refunds/${full.body.reference}`),
        (x) => x.body.status !== 'pending' && x.body.status !== 'processing',
        30_000,
      );
      expect(done.body.status).toBe('completed');
    });

    it('a Wave payin whose customer paid the fee cannot be refunded through Wave: refused at the request', async () => {
      const ref = `live-wave-payfee-${randomUUID()}`;
      const created = await live.post('/v1/direct/payin', {
        reference: ref,
        payin: { amount: 20_000, msisdn: wave.msisdn, provider: 'WAVE', country: 'CI' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
        payFee: false,
      });
      expect(created.status).toBe(201);
      expect((await payinStatus(ref)).body.status).toBe('success');
      const refund = await live.post(`/v1/payin/${ref}/refund`, {
        reason: 'returned',
        externalReference: `rf-${ref}`,
      });
      expect(refund.status).toBe(403);
      expect(refund.body.code).toBe('REFUND_NOT_ALLOWED');
      expect(refund.body.detail).toMatch(/fee/);
    });

    it('the customer reads the merchant and its reference, never our id (MTN, pawaPay)', async () => {
      const mtnRef = `ord-${randomUUID().slice(0, 8)}`;
      const moovRef = `ord-${randomUUID().slice(0, 8)}`;
      expect((await collect(routes[0], mtnRef)).body.status).toBe('success');
      expect((await collect(routes[2], moovRef)).body.status).toBe('success');

      const mtnSent = (await (await fetch(`${fakeUrls.mtn}/__fake/requests`)).json()) as Array<{
        method: string;
        path: string;
        body: { externalId?: string; payerMessage?: string; payeeNote?: string };
      }>;
      const rtp = mtnSent.find(
        (r) =>
          r.method === 'POST' && r.path.includes('requesttopay') && r.body.payerMessage?.includes(mtnRef),
      );
      expect(rtp?.body.payerMessage).toBe(`Boutique Cote Fils ${mtnRef}`);
      expect(rtp?.body.payeeNote).toBe(`Boutique Cote Fils ${mtnRef}`);
      expect(JSON.stringify([rtp?.body.payerMessage, rtp?.body.payeeNote])).not.toMatch(/pr_/);

      const pawaSent = (await (await fetch(`${fakeUrls.pawapay}/__fake/received`)).json()) as Array<{
        method: string;
        path: string;
        body: { clientReferenceId?: string; customerMessage?: string };
      }>;
      const deposit = pawaSent.find(
        (r) =>
          r.method === 'POST' &&
          r.path === '/v2/deposits' &&
          r.body.customerMessage?.includes(moovRef.slice(4)),
      );
      // 4 to 22 letters, digits or spaces: the reference whole, the name shortened.
      expect(deposit?.body.customerMessage).toBe(`Boutique ${moovRef.replace('-', ' ')}`);
      expect(deposit?.body.customerMessage).toMatch(/^[A-Za-z0-9 ]{4,22}$/);
    });
  });
});
