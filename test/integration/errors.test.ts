import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { ApiClient, basic, type ApiResponse } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { problemSchema } from '../../src/contract/problems';
import { buildApi } from '../../src/main/wiring';
import { createLogger } from '../../src/infra/logger';

// Bad input of every kind, through HTTP: always a 4xx application/problem+json in the caller's
// language, each bad field named by path, never a 500 or a stack trace. Then rate limiting.
describe('errors: bad input never yields a 500', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Errors merchant' });

  const valid = (reference = `err-${randomUUID()}`) => ({
    reference,
    sandboxScenario: 'completed',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });
  const withPayin = (fields: Record<string, unknown>) => {
    const b = valid();
    return { ...b, payin: { ...b.payin, ...fields } };
  };
  const countTx = () =>
    stack.mongo.collection('transactions').countDocuments({ merchantId: merchant.merchantId });

  /** The common shape of every error answer. */
  function expectProblem(res: ApiResponse<any>, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = problemSchema.parse(res.body);
    expect(problem).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String) });
    expect(problem.detail).toEqual(expect.any(String));
    expect(JSON.stringify(res.body)).not.toMatch(/\n\s+at |stack|node_modules/);
  }
  const paths = (res: ApiResponse<any>) => (res.body.errors ?? []).map((e: { path: string }) => e.path);

  it('malformed JSON and non-object bodies are 400s', async () => {
    expectProblem(await api.post('/v1/direct/payin', '{"reference":'), 400, 'MALFORMED_JSON');
    expectProblem(await api.post('/v1/direct/payin', '"just a string"'), 400, 'MALFORMED_JSON');
    const array = await api.post('/v1/direct/payin', '[]');
    expectProblem(array, 400, 'VALIDATION_ERROR');
    expect(paths(array)).toEqual(['(body)']);
    const empty = await api.post('/v1/direct/payin', undefined);
    expectProblem(empty, 400, 'VALIDATION_ERROR');
  });

  it('wrong types are listed field by field', async () => {
    const res = await api.post('/v1/direct/payin', {
      ...valid(),
      reference: 42,
      customerName: ['x'],
      payin: { amount: '5000', msisdn: 2250500000001, provider: 'MTN', country: 'CI' },
      action: 'https://merchant.example',
    });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(paths(res)).toEqual(
      expect.arrayContaining(['reference', 'customerName', 'payin.amount', 'payin.msisdn', 'action']),
    );
  });

  it('unknown fields are refused, each at its own path (no mass assignment)', async () => {
    const res = await api.post('/v1/direct/payin', {
      ...valid(),
      status: 'success',
      merchantId: 'someone-else',
      payin: { ...valid().payin, fee: 0 },
    });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(paths(res)).toEqual(expect.arrayContaining(['status', 'merchantId', 'payin.fee']));
    const proto = await api.post(
      '/v1/direct/payin',
      `{"__proto__":{"isAdmin":true},${JSON.stringify(valid()).slice(1)}`,
    );
    expectProblem(proto, 400, 'VALIDATION_ERROR');
    expect(paths(proto)).toEqual(['__proto__']);
    expect(await countTx()).toBe(0);
  });

  it('an oversized body is a 413', async () => {
    const res = await api.post('/v1/direct/payin', { ...valid(), customerName: 'x'.repeat(40_000) });
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a body that is not JSON is a 415; a JSON body without Content-Type is read as JSON', async () => {
    const text = await api.post('/v1/direct/payin', 'reference=abc', { 'content-type': 'text/plain' });
    expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const form = await api.post('/v1/direct/payin', 'reference=abc', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const charset = await api.post('/v1/direct/payin', valid(), {
      'content-type': 'application/json; charset=latin1',
    });
    expectProblem(charset, 415, 'UNSUPPORTED_MEDIA_TYPE');

    const res = await fetch(`${stack.baseUrl}/v1/direct/payin`, {
      method: 'POST',
      headers: { authorization: basic(merchant.credentials), 'x-idempotency-key': randomUUID() },
      body: new TextEncoder().encode(JSON.stringify(valid())),
    });
    expect(res.status).toBe(201);
  });

  it.each([
    ['huge', 1e12],
    ['beyond float range', '1e309'],
    ['negative', -100],
    ['zero', 0],
    ['fractional', 10.5],
    ['string', '100'],
    ['null', null],
  ])('a %s amount is a 400 on payin.amount', async (_label, amount) => {
    const body =
      typeof amount === 'string' && amount.startsWith('1e')
        ? JSON.stringify(withPayin({ amount: 1 })).replace('"amount":1', `"amount":${amount}`)
        : withPayin({ amount });
    const res = await api.post('/v1/direct/payin', body);
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(paths(res)).toEqual(['payin.amount']);
  });

  it('unknown provider, unsupported country and a provider not offered in the country are 400s', async () => {
    const provider = await api.post('/v1/direct/payin', withPayin({ provider: 'AIRTEL' }));
    expectProblem(provider, 400, 'VALIDATION_ERROR');
    expect(paths(provider)).toEqual(['payin.provider']);

    const country = await api.post('/v1/direct/payin', withPayin({ country: 'SN', msisdn: '+221770000001' }));
    expectProblem(country, 400, 'VALIDATION_ERROR');
    expect(paths(country)).toEqual(['payin.country']);

    const notOffered = await api.post(
      '/v1/direct/payin',
      withPayin({ provider: 'WAVE', country: 'CM', msisdn: '+237650000001' }),
    );
    expectProblem(notOffered, 400, 'VALIDATION_ERROR');
    expect(paths(notOffered)).toEqual(['payin.provider']);
  });

  it('a number that is not a valid mobile number of the country is a 400 on payin.msisdn', async () => {
    for (const msisdn of ['+2250500000001', '+33612345678', '+2371', 'hello']) {
      const res = await api.post('/v1/direct/payin', withPayin({ country: 'CM', msisdn }));
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(paths(res)).toEqual(['payin.msisdn']);
    }
    const fr = await api.post('/v1/direct/payin', withPayin({ msisdn: '+2250000' }), {
      'accept-language': 'fr',
    });
    expect(fr.body.title).toBe('Requête invalide');
  });

  it('a currency that contradicts the country is a 400; the matching one is accepted', async () => {
    const wrong = await api.post('/v1/direct/payin', withPayin({ currency: 'XAF' }));
    expectProblem(wrong, 400, 'VALIDATION_ERROR');
    expect(wrong.body.errors).toEqual([{ path: 'payin.currency', message: 'CI payments are in XOF.' }]);
    const fr = await api.post('/v1/direct/payin', withPayin({ currency: 'EUR' }), {
      'accept-language': 'fr',
    });
    expect(fr.body.errors).toEqual([{ path: 'payin.currency', message: 'Les paiements en CI sont en XOF.' }]);
    const unknown = await api.post('/v1/direct/payin', withPayin({ currency: 'GBP' }));
    expect(paths(unknown)).toEqual(['payin.currency']);

    const cm = await api.post(
      '/v1/direct/payin',
      withPayin({ country: 'CM', msisdn: '+237650000001', currency: 'XAF' }),
    );
    expect(cm.status).toBe(201);
    expect(cm.body.currency).toBe('XAF');
  });

  it('titles and details follow Accept-Language: fr, fr-FR;q=0.9, English by default', async () => {
    const bad = withPayin({ amount: -1 });
    const en = await api.post('/v1/direct/payin', bad);
    expect(en.body).toMatchObject({ title: 'Invalid request', detail: 'One or more fields are invalid.' });
    for (const lang of ['fr', 'fr-FR;q=0.9', 'de, fr-CI;q=0.8', 'en;q=0.1, fr;q=0.9']) {
      const fr = await api.post('/v1/direct/payin', bad, { 'accept-language': lang });
      expect(fr.body).toMatchObject({
        title: 'Requête invalide',
        detail: 'Un ou plusieurs champs sont invalides.',
      });
    }
    for (const lang of ['de', 'en-GB', 'fr;q=0.2, en;q=0.9']) {
      const other = await api.post('/v1/direct/payin', bad, { 'accept-language': lang });
      expect(other.body.title).toBe('Invalid request');
    }
    // zod's own field messages are localized too.
    const fr = await api.post('/v1/direct/payin', bad, { 'accept-language': 'fr' });
    expect(fr.body.errors[0].message).not.toEqual(en.body.errors[0].message);
  });

  it('unknown routes, missing credentials and unknown payments are problem+json as well', async () => {
    expectProblem(await api.get('/v1/nowhere'), 404, 'NOT_FOUND');
    // A method the path does not have (docs/decisions/api/method-not-allowed.md).
    expectProblem(await api.request('PUT', '/v1/direct/payin', valid()), 405, 'METHOD_NOT_ALLOWED');
    const anonymous = new ApiClient(stack.baseUrl, null);
    const unauthorized = await anonymous.get('/v1/payin/x', { 'accept-language': 'fr' });
    expectProblem(unauthorized, 401, 'UNAUTHORIZED');
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Basic/);
    const missing = await api.get('/v1/payin/nope');
    expectProblem(missing, 404, 'PAYMENT_NOT_FOUND');
    expect(missing.body.title).toBe('Payment not found');
  });

  describe('rate limiting per merchant', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      const app = await buildApi({
        config: { ...stack.config, RATE_LIMIT_PER_MINUTE: 3 },
        mongo: stack.mongo,
        temporal: stack.env.client,
        logger: createLogger('silent'),
      });
      server = await new Promise<Server>((res) => {
        const s = app.listen(0, '127.0.0.1', () => res(s));
      });
      const addr = server.address();
      url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    });
    afterAll(async () => {
      await new Promise<void>((res) => server?.close(() => res()));
    });

    it('answers 429 RATE_LIMITED with RateLimit headers past the limit, per merchant', async () => {
      const limited = await createTestMerchant(stack, 'Busy merchant');
      const client = new ApiClient(url, limited.credentials);
      for (let i = 0; i < 3; i++) {
        const ok = await client.get('/v1/payin/unknown');
        expect(ok.status).toBe(404);
        expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"merchant"; r=${2 - i}; t=\\d+$`));
        expect(ok.headers.get('ratelimit-policy')).toMatch(/^"merchant"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
      }
      const key = randomUUID();
      const throttled = await client.post('/v1/direct/payin', valid(), {
        'x-idempotency-key': key,
        'accept-language': 'fr',
      });
      expectProblem(throttled, 429, 'RATE_LIMITED');
      expect(throttled.body.title).toBe('Trop de requêtes');
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(throttled.headers.get('ratelimit')).toMatch(/^"merchant"; r=0; t=\d+$/);
      // A throttled POST claims nothing: the key stays free for the retry.
      expect(await stack.mongo.collection('idempotency_keys').findOne({ key })).toBeNull();

      // Another merchant has its own budget.
      const other = new ApiClient(url, merchant.credentials);
      expect((await other.get('/v1/payin/unknown')).status).toBe(404);
    });

    it('RATE_LIMIT_PER_MINUTE=0 disables the limit', async () => {
      // The stack's own API runs with the default; a disabled one sends no RateLimit headers.
      const app = await buildApi({
        config: { ...stack.config, RATE_LIMIT_PER_MINUTE: 0 },
        mongo: stack.mongo,
        temporal: stack.env.client,
        logger: createLogger('silent'),
      });
      const s = await new Promise<Server>((res) => {
        const srv = app.listen(0, '127.0.0.1', () => res(srv));
      });
      try {
        const addr = s.address();
        const client = new ApiClient(
          `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
          merchant.credentials,
        );
        for (let i = 0; i < 5; i++) {
          const res = await client.get('/v1/payin/unknown');
          expect(res.status).toBe(404);
          expect(res.headers.get('ratelimit')).toBeNull();
        }
      } finally {
        await new Promise<void>((res) => s.close(() => res()));
      }
    });
  });
});
