import { eventually } from '../helpers/http';
import { publishTestEvent } from '../helpers/events';
import { useStack } from '../helpers/use-stack';

// `npm start` runs with NODE_ENV=development and no WEBHOOK_ALLOW_PRIVATE_NETWORKS: a receiver on
// the developer's machine must work, by IP literal and by name
// (docs/decisions/webhooks/loopback-in-development.md). Production: webhook-ssrf.test.ts.
describe('webhooks to loopback under the development default', () => {
  const { stack, merchant, api, receiver } = useStack({
    config: { NODE_ENV: 'development' },
    receiver: true,
  });

  it('defaults to loopback only: private networks stay refused', () => {
    expect(stack.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe('loopback');
  });

  it.each(['127.0.0.1', 'localhost'])('registers http://%s and delivers to it', async (host) => {
    const path = `/hook-${host}`;
    const created = await api.post('/v1/webhooks', { url: `http://${host}:${receiver.port}${path}` });
    expect(created.status).toBe(201);
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: `lo-${host}` });
    const got = await eventually(
      () => Promise.resolve(receiver.received.filter((r) => r.path === path)),
      (r) => r.length >= 1,
    );
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: 'payin.completed' });
    const log = await eventually(
      () => api.get(`/v1/webhooks/${created.body.id}/deliveries`),
      (r) => r.body.data?.length >= 1,
    );
    expect(log.body.data[0]).toMatchObject({ succeeded: true, statusCode: 200, error: null });
  });

  it('still refuses a private network, naming the setting that would allow it', async () => {
    for (const lang of ['en', 'fr']) {
      const res = await api.post(
        '/v1/webhooks',
        { url: 'http://192.168.1.10/hook' },
        { 'accept-language': lang },
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
      expect(res.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    }
  });
});
