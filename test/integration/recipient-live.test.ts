import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { ApiClient } from '../helpers/http';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { startStack, type TestStack } from '../helpers/stack';
import { spawnFake, type FakeProcess } from '../fakes/spawn';

// GET /v1/providers/recipient in live mode, through the routed connectors pointed at their fakes
// (each its own process): MTN CI through MTN MoMo's account-holder checks (active, then the name),
// Orange CI through pawaPay's predict-provider (the operator only). Test mode stays on the sandbox.

const fakes = join(__dirname, '..', 'fakes');
const mtnCollection = {
  SUBSCRIPTION_KEY: 'col-sub-key',
  API_USER: '5f1c2e43-2f6b-4c1e-9d9a-1a2b3c4d5e6f',
  API_KEY: 'col-key',
};
const check = (msisdn: string, country = 'CI') =>
  `/v1/providers/recipient?msisdn=${encodeURIComponent(msisdn)}&country=${country}`;

describe('recipient checks in live mode', () => {
  const running: FakeProcess[] = [];
  let stack: TestStack;
  let merchant: TestMerchant;
  let live: ApiClient;

  beforeAll(async () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const [pawapay, mtn] = await Promise.all([
      spawnFake(join(fakes, 'pawapay', 'main.ts'), {
        FAKE_PAWAPAY_API_TOKEN: 'live-pawapay-token',
        FAKE_PAWAPAY_SIGNING_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      }),
      spawnFake(join(fakes, 'mtn', 'main.ts'), {
        ...Object.fromEntries(Object.entries(mtnCollection).map(([k, v]) => [`FAKE_MTN_COLLECTION_${k}`, v])),
      }),
    ]);
    running.push(pawapay, mtn);
    stack = await startStack({
      OPERATOR_ROUTES: JSON.stringify({ '*': 'pawapay', MTN_CI: 'mtn' }),
      PAWAPAY_BASE_URL: pawapay.url,
      PAWAPAY_API_TOKEN: 'live-pawapay-token',
      MTN_BASE_URL: mtn.url,
      MTN_CALLBACK_SECRET: 'mtn-callback-secret-0123456789abcdef',
      ...Object.fromEntries(Object.entries(mtnCollection).map(([k, v]) => [`MTN_CI_COLLECTION_${k}`, v])),
    });
    merchant = await createTestMerchant(stack);
    live = new ApiClient(stack.baseUrl, merchant.live.credentials);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all(running.map((f) => f.stop()));
  });

  it("MTN CI: MTN's account-holder check answers the account status and the holder's name", async () => {
    const res = await live.get(check('+2250500000101'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      operator: 'MTN',
      provider: 'MTN_CI',
      predictedBy: 'provider',
      checked: true,
      active: true,
      holderName: 'Awa Kone 01',
      livemode: true,
    });
  });

  it('MTN CI: an account MTN says is not active has no name; the prefix still names MTN', async () => {
    const res = await live.get(check('+2250500000133'));
    expect(res.body).toMatchObject({
      operator: 'MTN',
      predictedBy: 'prefix',
      checked: true,
      active: false,
      holderName: null,
    });
  });

  it('Orange CI through pawaPay: predict-provider names the operator, and nothing of the account', async () => {
    const res = await live.get(check('+2250700000102'));
    expect(res.body).toMatchObject({
      operator: 'ORANGE',
      provider: 'ORANGE_CI',
      predictedBy: 'provider',
      checked: true,
      active: null,
      holderName: null,
      livemode: true,
    });
  });

  it("the same merchant's test key still asks the sandbox", async () => {
    const test = new ApiClient(stack.baseUrl, merchant.credentials);
    expect((await test.get(check('+2250500000101'))).body).toMatchObject({
      holderName: 'Awa Koné',
      livemode: false,
    });
  });
});
