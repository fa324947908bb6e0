import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { freePort, startStack, type TestStack } from '../helpers/stack';
import { spawnFake, type FakeProcess } from '../fakes/spawn';

// Done-when of issue 18: a merchant in live mode, with the connectors pointed at their fakes (each
// its own process, speaking its provider's protocol), completes a payin, a payout and a refund
// through each connector: MTN CI through MTN MoMo direct, Wave CI through Wave direct, Moov CI
// through pawaPay. Callbacks come back signed as each provider signs them, to /provider-callbacks.

const fakes = join(__dirname, '..', 'fakes');
const mtnCredentials = {
  COLLECTION: {
    SUBSCRIPTION_KEY: 'col-sub-key',
    API_USER: '5f1c2e43-2f6b-4c1e-9d9a-1a2b3c4d5e6f',
    API_KEY: 'col-key',
  },
  DISBURSEMENT: {
    SUBSCRIPTION_KEY: 'dis-sub-key',
    API_USER: '6a2d3f54-3a7c-4d2f-8e0b-2b3c4d5e6f70',
    API_KEY: 'dis-key',
  },
};

const routes = [
  { connector: 'mtn', provider: 'MTN', msisdn: '+2250500000101' },
  { connector: 'wave', provider: 'WAVE', msisdn: '+2250700000102' },
  { connector: 'pawapay', provider: 'MOOV', msisdn: '+2250100000103' },
] as const;

describe('live mode through each connector', () => {
  const running: FakeProcess[] = [];
  let stack: TestStack;
  let merchant: TestMerchant;
  let live: ApiClient;
  let test: ApiClient;

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const pawapayKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = (
      k: { export(o: { type: 'pkcs8' | 'spki'; format: 'pem' }): string | Buffer },
      type: 'pkcs8' | 'spki',
    ) => k.export({ type, format: 'pem' }).toString();
    const [pawapay, mtn, wave] = await Promise.all([
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
    ]);
    running.push(pawapay, mtn, wave);
    stack = await startStack({
      PORT: String(port),
      OPERATOR_CALLBACK_BASE_URL: base,
      OPERATOR_ROUTES: JSON.stringify({ '*': 'pawapay', MTN_CI: 'mtn', WAVE_CI: 'wave' }),
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
    });
    merchant = await createTestMerchant(stack);
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
      payin: { amount: 20_000, msisdn: r.msisdn, provider: r.provider, country: 'CI' },
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
});
