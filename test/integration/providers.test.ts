import { ApiClient } from '../helpers/http';
import { useStack } from '../helpers/use-stack';

// GET /v1/providers, GET /v1/providers/predict, and the provider rules a direct payin must meet.
describe('providers', () => {
  const { stack, api } = useStack();
  let seq = 0;

  it('lists the operators of each country with availability, limits, OTP and USSD codes', async () => {
    const ci = await api.get('/v1/providers?country=CI');
    expect(ci.status).toBe(200);
    expect(ci.body.providers.map((p: { name: string }) => p.name)).toEqual([
      'ORANGE_CI',
      'MTN_CI',
      'MOOV_CI',
      'WAVE_CI',
    ]);
    const byCode = Object.fromEntries(ci.body.providers.map((p: { code: string }) => [p.code, p]));
    expect(byCode.ORANGE).toMatchObject({
      available: true,
      otpRequired: true,
      otpUssdCode: '#144*82#',
      currency: 'XOF',
      minAmount: 100,
      maxAmount: 1_500_000,
    });
    expect(byCode.MTN).toMatchObject({ otpRequired: false, ussdCode: '*133#' });
    expect(byCode.MOOV).toMatchObject({ otpRequired: false, ussdCode: '*155#' });
    expect(byCode.WAVE).toMatchObject({ otpRequired: false, ussdCode: null, redirect: true });

    const cm = await api.get('/v1/providers?country=CM');
    expect(cm.body.providers).toEqual([
      expect.objectContaining({ name: 'ORANGE_CM', currency: 'XAF', otpRequired: true, ussdCode: null }),
      expect.objectContaining({ name: 'MTN_CM', currency: 'XAF', otpRequired: false, ussdCode: null }),
    ]);
    expect((await api.get('/v1/providers')).body.providers).toHaveLength(6);
  });

  it('refuses an unknown country naming the allowed values, and a caller without credentials', async () => {
    const bad = await api.get('/v1/providers?country=SN');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
    expect(JSON.stringify(bad.body.errors)).toMatch(/CI.*CM/);
    const anon = new ApiClient(stack.baseUrl, null);
    expect((await anon.get('/v1/providers?country=CI')).status).toBe(401);
  });

  it.each([
    ['%2B2250700000001', 'CI', 'ORANGE', ['ORANGE_CI', 'WAVE_CI']],
    ['+2250500000001', 'CI', 'MTN', ['MTN_CI', 'WAVE_CI']], // a raw '+' arrives as a space
    ['2250100000001', 'CI', 'MOOV', ['MOOV_CI', 'WAVE_CI']],
    ['%2B237690000001', 'CM', 'ORANGE', ['ORANGE_CM']],
    ['%2B237670000001', 'CM', 'MTN', ['MTN_CM']],
  ])('predicts %s as %s %s', async (msisdn, country, operator, acceptedBy) => {
    const res = await api.get(`/v1/providers/predict?msisdn=${msisdn}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ country, operator, provider: `${operator}_${country}`, acceptedBy });
  });

  it('predicts no offered operator for another network, and refuses a number outside CI and CM', async () => {
    const nexttel = await api.get('/v1/providers/predict?msisdn=%2B237660000001');
    expect(nexttel.body).toMatchObject({
      country: 'CM',
      operator: null,
      provider: null,
      carrier: 'NEXTTEL',
      acceptedBy: [],
    });
    const fr = await api.get('/v1/providers/predict?msisdn=%2B33612345678', { 'accept-language': 'fr' });
    expect(fr.status).toBe(400);
    expect(fr.body.errors[0]).toMatchObject({
      path: 'msisdn',
      message: expect.stringMatching(/numéro mobile/),
    });
    expect((await api.get('/v1/providers/predict')).status).toBe(400);
  });

  const payin = (provider: string, msisdn: string, over: Record<string, unknown> = {}, country = 'CI') => ({
    reference: `prov-${seq++}`,
    customerName: 'Awa Koné',
    payin: { amount: 5000, msisdn, provider, country, ...over },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });

  it('refuses an Orange payin without its OTP, naming the field, in English and French', async () => {
    const res = await api.post('/v1/direct/payin', payin('ORANGE', '+2250700000001'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'OTP_REQUIRED', errors: [{ path: 'payin.otp' }] });
    expect(res.body.errors[0].message).toMatch(/#144\*82#/);
    const fr = await api.post('/v1/direct/payin', payin('ORANGE', '+237690000001', {}, 'CM'), {
      'accept-language': 'fr',
    });
    expect(fr.body).toMatchObject({ code: 'OTP_REQUIRED', title: 'OTP requis' });
  });

  it('refuses a number that belongs to another operator; Wave takes any number', async () => {
    const res = await api.post('/v1/direct/payin', payin('MTN', '+2250700000001'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'MSISDN_PROVIDER_MISMATCH', errors: [{ path: 'payin.msisdn' }] });
    const cm = await api.post('/v1/direct/payin', payin('ORANGE', '+237670000001', { otp: '1234' }, 'CM'));
    expect(cm.body).toMatchObject({ code: 'MSISDN_PROVIDER_MISMATCH' });
    expect((await api.post('/v1/direct/payin', payin('WAVE', '+2250700000001'))).status).toBe(201);
  });

  it('refuses amounts outside the provider limits', async () => {
    for (const amount of [99, 1_500_001]) {
      const res = await api.post('/v1/direct/payin', payin('MTN', '+2250500000001', { amount }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE', errors: [{ path: 'payin.amount' }] });
    }
    expect((await api.post('/v1/direct/payin', payin('MTN', '+2250500000001', { amount: 100 }))).status).toBe(
      201,
    );
  });

  it('refuses an operator the country does not have and an unknown code, naming the allowed values', async () => {
    const moovCm = await api.post('/v1/direct/payin', payin('MOOV', '+237670000001', {}, 'CM'));
    expect(moovCm.status).toBe(400);
    expect(JSON.stringify(moovCm.body)).toMatch(/ORANGE, MTN/);
    const airtel = await api.post('/v1/direct/payin', payin('AIRTEL', '+2250500000001'));
    expect(airtel.status).toBe(400);
    expect(JSON.stringify(airtel.body.errors)).toMatch(/ORANGE.*MTN.*MOOV.*WAVE/);
  });

  it('accepts a payin for every operator of every country', async () => {
    const cases: [string, string, string, Record<string, unknown>][] = [
      ['ORANGE', 'CI', '+2250700000011', { otp: '1234' }],
      ['MTN', 'CI', '+2250500000011', {}],
      ['MOOV', 'CI', '+2250100000011', {}],
      ['WAVE', 'CI', '+2250500000012', {}],
      ['ORANGE', 'CM', '+237690000011', { otp: '1234' }],
      ['MTN', 'CM', '+237670000011', {}],
    ];
    for (const [provider, country, msisdn, extra] of cases) {
      const res = await api.post('/v1/direct/payin', payin(provider, msisdn, extra, country));
      expect([res.status, res.body.mobileMoney?.provider?.name]).toEqual([201, `${provider}_${country}`]);
    }
  });
});
