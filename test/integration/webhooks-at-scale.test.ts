import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { useWebhookStack } from '../helpers/webhooks';
import { webhookEndpointWithHealth } from '../../src/contract/schemas/webhooks';
import { healthOf } from '../../src/services/webhook-operations';
import type { DeliveryAttempt } from '../../src/webhooks/delivery-log';

// Webhooks at scale through HTTP on the real servers: an endpoint that fails shows it in its
// health, its event is listed by GET /v1/events?delivered=false, a dry run counts it, a replay sends
// it again (a workflow), after which it is delivered and the endpoint healthy again.

describe('webhooks at scale', () => {
  const { merchant, api, receiver } = useWebhookStack();

  it('health, undelivered events, dry run and paced replay', async () => {
    let status = 500;
    receiver.respond = () => ({ status });
    const path = `/hooks/${merchant.merchantId}`;
    const hook = await api.post('/v1/webhooks', {
      url: `${receiver.url}${path}`,
      eventTypes: ['payin.completed'],
    });
    expect(hook.status).toBe(201);
    const from = new Date(Date.now() - 60_000).toISOString();
    const reference = `wh-${randomUUID().slice(0, 8)}`;
    await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'completed',
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    const mine = () => receiver.received.filter((r) => r.path === path);
    // The first attempt and its retry 5 s later both fail; the next retry is a minute away.
    await eventually(
      () => Promise.resolve(mine()),
      (r) => r.length >= 2,
      60_000,
    );

    const sick = webhookEndpointWithHealth.parse((await api.get(`/v1/webhooks/${hook.body.id}`)).body);
    expect(sick.health).toMatchObject({ successRate: 0, consecutiveFailures: 2, complete: true });
    expect(sick.health.attempts).toBe(2);
    expect(sick.health.lastError).toMatchObject({ statusCode: 500 });
    expect(sick.health.latencyP50Ms).not.toBeNull();

    const undelivered = await api.get('/v1/events?delivered=false');
    expect(undelivered.status).toBe(200);
    const completed = undelivered.body.data.find((e: { type: string }) => e.type === 'payin.completed');
    expect(completed).toBeDefined();
    // Events no endpoint subscribes to were owed to none: they count as delivered.
    expect(undelivered.body.data.every((e: { type: string }) => e.type === 'payin.completed')).toBe(true);

    status = 200;
    const to = new Date(Date.now() + 60_000).toISOString();
    const dry = await api.post(`/v1/webhooks/${hook.body.id}/replay`, { from, to, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ id: null, count: 1, onlyFailed: true, dryRun: true });
    expect(mine()).toHaveLength(2);

    const key = randomUUID();
    const replay = await api.post(
      `/v1/webhooks/${hook.body.id}/replay`,
      { from, to },
      { 'x-idempotency-key': key },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.count).toBe(1);
    expect(replay.body.id).toMatch(/^rp_/);
    await eventually(
      () => Promise.resolve(mine()),
      (r) => r.some((x) => x.status === 200),
      60_000,
    );
    const after = await eventually(
      () => api.get('/v1/events?delivered=false'),
      (r) => !r.body.data.some((e: { id: string }) => e.id === completed.id),
    );
    expect(after.status).toBe(200);
    const delivered = await api.get('/v1/events?delivered=true');
    expect(delivered.body.data.map((e: { id: string }) => e.id)).toContain(completed.id);
    // Nothing left to replay; every event of the period is still there to send again.
    expect(
      (await api.post(`/v1/webhooks/${hook.body.id}/replay`, { from, to, dryRun: true })).body.count,
    ).toBe(0);
    expect(
      (await api.post(`/v1/webhooks/${hook.body.id}/replay`, { from, to, dryRun: true, onlyFailed: false }))
        .body.count,
    ).toBe(1);

    const healthy = (await api.get(`/v1/webhooks/${hook.body.id}`)).body;
    expect(healthy.health).toMatchObject({ attempts: 3, consecutiveFailures: 0 });
    expect(healthy.health.successRate).toBeCloseTo(1 / 3);
  });

  it('refuses a replay period over 31 days, in order, or of an unknown endpoint', async () => {
    const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/hooks/limits` });
    const long = await api.post(`/v1/webhooks/${hook.body.id}/replay`, {
      from: '2026-01-01T00:00:00Z',
      to: '2026-03-01T00:00:00Z',
    });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].path).toBe('to');
    const unknown = await api.post('/v1/webhooks/we_000000000000000000000000/replay', {
      from: '2026-01-01T00:00:00Z',
      to: '2026-01-02T00:00:00Z',
    });
    expect(unknown.status).toBe(404);
  });

  it('health figures: nearest-rank percentiles, failures since the last success', () => {
    const at = (n: number, succeeded: boolean, latencyMs: number) =>
      ({
        attemptedAt: new Date(1_000_000 - n),
        succeeded,
        latencyMs,
        statusCode: succeeded ? 200 : 503,
        error: null,
      }) as DeliveryAttempt;
    // Newest first: two failures, then successes.
    const attempts = [
      at(1, false, 900),
      at(2, false, 800),
      ...Array.from({ length: 98 }, (_, i) => at(3 + i, true, i + 1)),
    ];
    const h = healthOf(attempts, new Date(0), true);
    expect(h).toMatchObject({
      attempts: 100,
      successRate: 0.98,
      consecutiveFailures: 2,
      latencyP50Ms: 50,
      latencyP99Ms: 800,
    });
    expect(h.lastError).toMatchObject({ statusCode: 503 });
    expect(healthOf([], new Date(0), true)).toMatchObject({
      attempts: 0,
      successRate: null,
      latencyP50Ms: null,
    });
  });
});
