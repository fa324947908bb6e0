import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';

// A slow merchant endpoint never delays the money: an event's activity only records the event, and
// the endpoint's dispatcher makes every HTTP attempt, in order. Here the endpoint holds each webhook
// unanswered until the test lets it go (a fixed 20 s answer before: 40 s of waiting per run); a payout
// still completes, and a refused one is reversed, while the endpoint is holding its first request.

describe('webhooks off the money path', () => {
  let server: Server;
  let url: string;
  const requests: { receivedAt: number; answeredAt: number | null; answer: () => void }[] = [];
  // Once set, every held request and every later one is answered at once.
  let answerAll = false;
  const releaseAll = () => {
    answerAll = true;
    requests.forEach((r) => r.answer());
  };
  const { stack } = useStack({
    // 30 s: a held request is not cut short by our own timeout while the test waits on the payouts.
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT: '30s' },
    merchant: false,
    beforeStop: async () => {
      // Let the held requests end, so no attempt is still running when the worker stops.
      releaseAll();
      server?.closeAllConnections();
      await new Promise<void>((r) => server?.close(() => r()));
    },
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const request = {
        receivedAt: Date.now(),
        answeredAt: null as number | null,
        answer: () => {
          if (request.answeredAt !== null) return;
          request.answeredAt = Date.now();
          res.writeHead(200).end('ok');
        },
      };
      requests.push(request);
      if (answerAll) request.answer();
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

    const final = (path: string, status: string) =>
      eventually(
        () => api.get(path),
        (r) => r.body.status === status,
      );
    await Promise.all([
      final(`/v1/direct/payout/${completedRef}`, 'completed'),
      final(`/v1/payout/${refusedRef}`, 'reversed'),
    ]);

    // The endpoint was reached (the first attempt is under way) but has answered nothing yet, and
    // the dispatcher sent nothing else meanwhile.
    expect(requests.length).toBe(1);
    expect(requests[0]!.answeredAt).toBeNull();

    // Every event of both payouts is recorded; the endpoint gets them one at a time, in order: the
    // next request only once the first is answered.
    const events = await eventually(
      () => api.get('/v1/events?limit=50'),
      (r) => r.body.data?.filter((e: { type: string }) => e.type === 'payout.completed').length === 1,
    );
    expect((events.body.data as unknown[]).length).toBeGreaterThanOrEqual(4);
    expect(requests.length).toBe(1);
    requests[0]!.answer();
    await eventually(
      () => Promise.resolve(requests.length),
      (n) => n >= 2,
      60_000,
    );
    expect(requests[1]!.receivedAt).toBeGreaterThanOrEqual(requests[0]!.answeredAt!);
  }, 120_000);
});
