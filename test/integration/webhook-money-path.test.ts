import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';

// A slow merchant endpoint never delays the money: an event's activity only records the event, and
// the endpoint's dispatcher makes every HTTP attempt, in order. Here the endpoint takes 20 s to
// answer each webhook; a payout still completes, and a refused one is reversed, while the endpoint
// is holding its first request.
const ANSWER_AFTER_MS = 20_000;

describe('webhooks off the money path', () => {
  let server: Server;
  let url: string;
  const requests: { receivedAt: number; answered: Promise<number> }[] = [];
  const { stack } = useStack({
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT: '30s' },
    merchant: false,
    beforeStop: async () => {
      // Let the held requests end, so no attempt is still running when the worker stops.
      await Promise.all(requests.map((r) => r.answered));
      server?.closeAllConnections();
      await new Promise<void>((r) => server?.close(() => r()));
    },
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const receivedAt = Date.now();
      req.resume();
      requests.push({
        receivedAt,
        answered: new Promise((done) =>
          setTimeout(() => {
            res.writeHead(200).end('ok');
            done(Date.now());
          }, ANSWER_AFTER_MS),
        ),
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/slow`;
  });

  it('a payout completes and a refused one is reversed while the endpoint holds its first webhook', async () => {
    const merchant = await createTestMerchant(stack);
    const api = new ApiClient(stack.baseUrl, merchant.credentials);
    await fundMerchant(stack, merchant.merchantId, 100_000);
    expect((await api.post('/v1/webhooks', { url })).status).toBe(201);

    const completedRef = `po-slow-${randomUUID()}`;
    const refusedRef = `po-slow-${randomUUID()}`;
    const started = Date.now();
    const [completed, refused] = await Promise.all([
      api.post('/v1/direct/payout', {
        reference: completedRef,
        payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      }),
      api.post('/v1/payout', {
        reference: refusedRef,
        sandboxScenario: 'failed',
        amount: 5_000,
        msisdn: '+2250700000001',
        country: 'CI',
      }),
    ]);
    expect([completed.status, refused.status]).toEqual([201, 201]);

    const finalAt = async (path: string, status: string) => {
      await eventually(
        () => api.get(path),
        (r) => r.body.status === status,
      );
      return Date.now();
    };
    const [completedAt, reversedAt] = await Promise.all([
      finalAt(`/v1/direct/payout/${completedRef}`, 'completed'),
      finalAt(`/v1/payout/${refusedRef}`, 'reversed'),
    ]);

    // The endpoint was reached (the first attempts are under way) but has answered nothing yet.
    expect(requests.length).toBeGreaterThanOrEqual(1);
    const firstAnswerAt = requests[0]!.receivedAt + ANSWER_AFTER_MS;
    expect(completedAt).toBeLessThan(firstAnswerAt);
    expect(reversedAt).toBeLessThan(firstAnswerAt);
    expect(Math.max(completedAt, reversedAt) - started).toBeLessThan(ANSWER_AFTER_MS);

    // Every event of both payouts is recorded; the endpoint gets them one at a time, in order: the
    // next request only once the first is answered.
    const events = await eventually(
      () => api.get('/v1/events?limit=50'),
      (r) => r.body.data?.filter((e: { type: string }) => e.type === 'payout.completed').length === 1,
    );
    expect((events.body.data as unknown[]).length).toBeGreaterThanOrEqual(4);
    await eventually(
      () => Promise.resolve(requests.length),
      (n) => n >= 2,
      60_000,
    );
    expect(requests[1]!.receivedAt).toBeGreaterThanOrEqual(requests[0]!.receivedAt + ANSWER_AFTER_MS);
  }, 120_000);
});
