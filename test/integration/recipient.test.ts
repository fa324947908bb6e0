import { ApiClient } from '../helpers/http';
import { useStack } from '../helpers/use-stack';

// GET /v1/providers/recipient through the whole stack: test mode answers from the sandbox's magic
// numbers (src/simulator/recipient-routes.ts), live mode from the routed connector (none routed
// here: the prefix answers, unchecked); the cache, the budget per merchant and mode, validation.
// A merchant per test: each test has the whole budget.

const perMinute = 8;
const check = (msisdn: string, country = 'CI') =>
  `/v1/providers/recipient?msisdn=${encodeURIComponent(msisdn)}&country=${country}`;

describe('recipient checks', () => {
  const { stack, api, merchant } = useStack({
    merchantPerTest: true,
    config: { RECIPIENT_CHECKS_PER_MINUTE: String(perMinute), RECIPIENT_CACHE_TTL_SECONDS: '60' },
  });

  it("answers the sandbox's active account with the holder's name, never to be stored by a cache", async () => {
    const res = await api.get(check('+2250500000001'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      msisdn: '+2250500000001',
      country: 'CI',
      operator: 'MTN',
      provider: 'MTN_CI',
      predictedBy: 'provider',
      checked: true,
      active: true,
      holderName: 'Awa Koné',
      checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      livemode: false,
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cm = await api.get(check('237690000001', 'CM'));
    expect(cm.body).toMatchObject({ msisdn: '+237690000001', operator: 'ORANGE', provider: 'ORANGE_CM' });
  });

  it.each([
    ['9911', { operator: 'MTN', predictedBy: 'provider', checked: true, active: false, holderName: null }],
    ['9912', { operator: 'MTN', predictedBy: 'provider', checked: true, active: true, holderName: null }],
    // Unknown to the operator: the prefix still names the network.
    ['9913', { operator: 'MTN', predictedBy: 'prefix', checked: true, active: null, holderName: null }],
    // The check is unavailable: the prefix answers, unchecked.
    ['9914', { operator: 'MTN', predictedBy: 'prefix', checked: false, active: null, checkedAt: null }],
  ])('the sandbox number ending %s', async (suffix, expected) => {
    const res = await api.get(check(`+225050000${suffix}`));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(expected);
  });

  it('reuses an answer for the same number (same checkedAt), and asks again for an unavailable one', async () => {
    const first = await api.get(check('+2250700000002'));
    const second = await api.get(check('+2250700000002'));
    expect(second.body).toEqual(first.body);
    expect(first.body.checkedAt).not.toBeNull();
    // An unchecked answer is not cached: it has no time to keep.
    expect((await api.get(check('+2250500009914'))).body.checkedAt).toBeNull();
  });

  it('refuses a number of another country, an unknown country, a missing number (fr), and no credentials', async () => {
    const wrong = await api.get(check('+2250500000001', 'CM'), { 'accept-language': 'fr' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({
      path: 'msisdn',
      message: expect.stringMatching(/numéro mobile/),
    });
    expect((await api.get(check('+2250500000001', 'SN'))).status).toBe(400);
    const missing = await api.get('/v1/providers/recipient?country=CI');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toBe('msisdn');
    expect((await new ApiClient(stack.baseUrl, null).get(check('+2250500000001'))).status).toBe(401);
  });

  it('has its own budget per merchant and mode, cached answers included: 429 with Retry-After beyond it', async () => {
    for (let i = 0; i < perMinute; i++) expect((await api.get(check('+2250500000001'))).status).toBe(200);
    const refused = await api.get(check('+2250500000001'), { 'accept-language': 'fr' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other routes keep the general budget.
    expect((await api.get('/v1/providers?country=CI')).status).toBe(200);
    // The same merchant's live key has its own budget.
    const live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    expect((await live.get(check('+2250500000001'))).status).toBe(200);
  });

  it('in live mode asks the routed connector: with none routed, the prefix answers unchecked (never the sandbox)', async () => {
    const live = new ApiClient(stack.baseUrl, merchant.live.credentials);
    const res = await live.get(check('+2250500000003'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      msisdn: '+2250500000003',
      country: 'CI',
      operator: 'MTN',
      provider: 'MTN_CI',
      predictedBy: 'prefix',
      checked: false,
      active: null,
      holderName: null,
      checkedAt: null,
      livemode: true,
    });
    // The sandbox's answer for that number, in test mode, is not shared with live mode.
    expect((await api.get(check('+2250500000003'))).body).toMatchObject({
      holderName: 'Awa Koné',
      livemode: false,
    });
  });
});
