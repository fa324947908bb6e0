import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { publishTestEvent } from '../helpers/events';

// The SSRF guard as production runs it (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset, NODE_ENV not
// development; the development default: webhooks-loopback-development.test.ts).
describe('webhook SSRF guard', () => {
  const { stack, receiver } = useStack({ merchant: false, receiver: true });

  it('refuses non-http(s), credentials and private addresses at registration, as problem+json', async () => {
    const api = new ApiClient(stack.baseUrl, (await createTestMerchant(stack)).credentials);
    const cases: [string, string][] = [
      ['ftp://merchant.example/hook', 'VALIDATION_ERROR'],
      ['file:///etc/passwd', 'VALIDATION_ERROR'],
      ['https://user:secret@merchant.example/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://127.0.0.1/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://0x7f000001/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://[::1]/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://[::ffff:10.0.0.1]/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://169.254.169.254/latest/meta-data', 'WEBHOOK_URL_NOT_ALLOWED'],
      ['http://192.168.1.10/hook', 'WEBHOOK_URL_NOT_ALLOWED'],
    ];
    for (const [url, code] of cases) {
      const res = await api.post('/v1/webhooks', { url });
      expect([url, res.status, res.body.code]).toEqual([url, 400, code]);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      // Whoever runs the server on a laptop learns which setting lets a local receiver in.
      if (code === 'WEBHOOK_URL_NOT_ALLOWED' && !url.includes('@'))
        expect(res.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
    }
    expect((await api.get('/v1/webhooks')).body.data).toEqual([]);
  });

  it('checks the resolved address when connecting: a name resolving to loopback is never contacted', async () => {
    const merchant = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, merchant.credentials);
    // A name, not a literal: accepted at registration, refused when the connection is made.
    const created = await api.post('/v1/webhooks', { url: `http://localhost:${receiver.port}/hook` });
    expect(created.status).toBe(201);
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'ssrf-1' });
    const log = await eventually(
      () => api.get(`/v1/webhooks/${created.body.id}/deliveries`),
      (r) => r.body.data?.length >= 1,
    );
    // A fixed reason: the log never shows what the name resolved to.
    expect(log.body.data[0]).toMatchObject({
      succeeded: false,
      statusCode: null,
      error: 'the address is not public',
    });
    expect(JSON.stringify(log.body)).not.toMatch(/127\.0\.0\.1|::1|resolves/);
    expect(receiver.received).toEqual([]);
  });
});
