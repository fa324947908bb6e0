import { Webhook } from 'standardwebhooks';
import { ensureAllDispatchers } from '../../activities/webhooks/webhook-dispatch-activities';
import { EndpointStore } from '../../src/webhooks/endpoint-store';
import { EventStore } from '../../src/events/event-store';
import { auditQueries, describeScans } from '../helpers/query-audit';
import { newSigningSecret } from '../../src/webhooks/signing';
import { newId } from '../../src/domain/ids';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { useWebhookStack } from '../helpers/webhooks';
import { publishTestEvent } from '../helpers/events';
import { webhookEndpointRecord } from '../../src/contract/schemas/webhooks';

// Webhook endpoints through HTTP: their management, Standard Webhooks signatures verified with the
// standardwebhooks package, secrets (rotation, sealed storage, migration), 410 and redirects, the
// per-merchant bound and tenant isolation. Deliveries and the events API: webhook-deliveries.test.ts.
// Receivers run on loopback, which WEBHOOK_ALLOW_PRIVATE_NETWORKS lets through (webhook-ssrf.test.ts
// covers refusals).
describe('webhooks', () => {
  const { stack, merchant, api, receiver, register, at } = useWebhookStack();

  it('manages endpoints: the secret is shown once, lists omit it, delete removes', async () => {
    const created = await register(api, '/crud', ['payin.completed']);
    expect(created.secret).toMatch(/^whsec_/);
    const list = await api.get('/v1/webhooks');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((e: { id: string }) => e.id === created.id);
    expect(webhookEndpointRecord.strict().parse(listed)).toMatchObject({
      eventTypes: ['payin.completed'],
      status: 'enabled',
    });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const bad = await api.post('/v1/webhooks', { url: `${receiver.url}/x`, eventTypes: ['payin.nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('eventTypes.0');
    const creds = await api.post(
      '/v1/webhooks',
      { url: 'https://u:p@merchant.example/hook' },
      { 'accept-language': 'fr' },
    );
    expect(creds.status).toBe(400);
    expect(creds.body).toMatchObject({
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      title: 'URL de webhook non autorisée',
    });

    expect((await api.request('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(204);
    const gone = await api.request('DELETE', `/v1/webhooks/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toMatch(/problem\+json/);
    expect(gone.body.code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('disables an endpoint that answers 410, and never follows a redirect', async () => {
    const gone = await register(api, '/gone', ['payin.completed']);
    const redirecting = await register(api, '/redirect', ['payin.completed']);
    receiver.respond = ({ path }) =>
      path === '/gone'
        ? { status: 410 }
        : path === '/redirect'
          ? { status: 302, headers: { location: `${receiver.url}/target` } }
          : { status: 200 };
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-410' });
    await eventually(
      () => api.get(`/v1/webhooks/${gone.id}`),
      (r) => r.body.status === 'disabled',
    );
    const log = await eventually(
      () => api.get(`/v1/webhooks/${redirecting.id}/deliveries`),
      (r) => r.body.data?.length >= 1,
    );
    expect(log.body.data[0]).toMatchObject({ succeeded: false, statusCode: 302, error: 'HTTP 302' });
    expect(receiver.received.filter((r) => r.path === '/target')).toEqual([]);
    const disabled = await api.get(`/v1/webhooks/${gone.id}`);
    expect(disabled.body.disabledReason).toMatch(/410/);
    // A disabled endpoint receives nothing more until enabled again.
    const firstEvent = (await api.get('/v1/events?reference=wh-410')).body.data[0];
    expect((await api.post(`/v1/events/${firstEvent.id}/redeliver`, { endpointId: gone.id })).body.code).toBe(
      'WEBHOOK_DISABLED',
    );
    expect((await api.post(`/v1/webhooks/${gone.id}/enable`, {})).body.status).toBe('enabled');
    await api.request('DELETE', `/v1/webhooks/${gone.id}`);
    await api.request('DELETE', `/v1/webhooks/${redirecting.id}`);
  });

  it('edits an endpoint and pauses it: disabled it receives nothing, enabled again it gets what waited', async () => {
    const endpoint = await register(api, '/before', ['payin.completed']);
    const path = `/v1/webhooks/${endpoint.id}`;
    const refused = await api.request(
      'PATCH',
      path,
      { url: 'https://u:p@merchant.example/hook' },
      { 'accept-language': 'fr' },
    );
    expect(refused.body).toMatchObject({
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      title: 'URL de webhook non autorisée',
    });
    expect((await api.request('PATCH', path, {})).body.code).toBe('VALIDATION_ERROR');
    expect((await api.request('PATCH', path, { secret: 'whsec_x' })).body.code).toBe('VALIDATION_ERROR');
    const edited = await api.request('PATCH', path, {
      url: `${receiver.url}/after`,
      eventTypes: [],
      description: 'Caisse principale',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      url: `${receiver.url}/after`,
      eventTypes: [],
      description: 'Caisse principale',
    });
    const cleared = await api.request('PATCH', path, { description: null });
    expect(cleared.body).toMatchObject({ url: `${receiver.url}/after`, description: null });

    // Deliveries go to the new URL.
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-edited' });
    await eventually(at('/after'), (got) => got.some((r) => r.body.includes('wh-edited')));
    expect(await at('/before')()).toEqual([]);

    // Disabled by the merchant: nothing is sent; enabled, the event recorded meanwhile arrives.
    const disabled = await api.post(`${path}/disable`, {});
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: 'disabled by the merchant' });
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-paused' });
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await at('/after')()).filter((r) => r.body.includes('wh-paused'))).toEqual([]);
    expect((await api.post(`${path}/enable`, {})).body.status).toBe('enabled');
    await eventually(at('/after'), (got) => got.some((r) => r.body.includes('wh-paused')));

    expect((await api.post('/v1/webhooks/we_0123456789abcdef01234567/disable', {})).status).toBe(404);
    expect(
      (await api.request('PATCH', '/v1/webhooks/we_0123456789abcdef01234567', { description: 'x' })).status,
    ).toBe(404);
    await api.request('DELETE', path);
  });

  const rawEndpoint = (id: string) => stack.mongo.collection('webhookendpoints').findOne({ id });

  it('rotates the secret: during the overlap both secrets sign', async () => {
    const endpoint = await register(api, '/rotated');
    const rotated = await api.post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    // Both secrets are stored sealed, bound to the endpoint.
    const raw = await rawEndpoint(endpoint.id);
    expect(raw!.secrets).toHaveLength(2);
    expect(JSON.stringify(raw)).not.toContain('whsec_');
    for (const s of raw!.secrets) expect(s.secret).toMatch(/^v1\./);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(rotated.body.previousSecretsExpireAt).toEqual(expect.any(String));
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-rotated' });
    const [hit] = await eventually(at('/rotated'), (r) => r.length > 0);
    const headers = hit!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.body.secret).verify(hit!.body, headers)).toMatchObject({
      type: 'payin.completed',
    });
    expect(new Webhook(endpoint.secret).verify(hit!.body, headers)).toMatchObject({
      type: 'payin.completed',
    });
    await api.request('DELETE', `/v1/webhooks/${endpoint.id}`);
  });

  it('never shows or sends one merchant’s endpoints or events to another', async () => {
    const mine = await register(api, '/isolated-mine');
    const stranger = await createTestMerchant(stack, 'Stranger');
    const other = new ApiClient(stack.baseUrl, stranger.credentials);
    expect((await other.get('/v1/webhooks')).body.data).toEqual([]);
    expect((await other.get(`/v1/webhooks/${mine.id}/deliveries`)).status).toBe(404);
    expect((await other.request('DELETE', `/v1/webhooks/${mine.id}`)).status).toBe(404);
    await publishTestEvent(stack, stranger.merchantId, { type: 'payin.completed', reference: 'wh-stranger' });
    await eventually(
      () => other.get('/v1/events?reference=wh-stranger'),
      (r) => r.body.data?.length === 1,
    );
    const strangerEvent = (await other.get('/v1/events?reference=wh-stranger')).body.data[0];
    expect((await api.post(`/v1/events/${strangerEvent.id}/redeliver`, {})).status).toBe(404);
    expect((await api.get(`/v1/events/${strangerEvent.id}`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/isolated-mine')).toEqual([]);
  });

  it('stores signing secrets sealed: the raw document holds no whsec_, and deliveries verify', async () => {
    const endpoint = await register(api, '/sealed');
    const raw = await rawEndpoint(endpoint.id);
    expect(JSON.stringify(raw)).not.toContain('whsec_');
    expect(JSON.stringify(raw)).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(raw!.secrets[0].secret).toMatch(/^v1\./);
    // Bound to its endpoint: the sealed secret copied onto another endpoint does not open.
    expect(() => stack.config.DATA_ENCRYPTION_KEYS.openString(raw!.secrets[0].secret, 'we_other')).toThrow();
    expect(stack.config.DATA_ENCRYPTION_KEYS.openString(raw!.secrets[0].secret, endpoint.id)).toBe(
      endpoint.secret,
    );
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-sealed' });
    const [hit] = await eventually(at('/sealed'), (r) => r.length > 0);
    expect(
      new Webhook(endpoint.secret).verify(hit!.body, hit!.headers as Record<string, string>),
    ).toMatchObject({
      type: 'payin.completed',
    });
    await api.request('DELETE', `/v1/webhooks/${endpoint.id}`);
  });

  it('migrates at start an endpoint stored before (clear secret, no slot): sealed, listed, signing with its secret', async () => {
    const merchant = await createTestMerchant(stack, 'Legacy endpoints');
    const client = new ApiClient(stack.baseUrl, merchant.credentials);
    // An endpoint as stored before this layout: an ObjectId `_id`, its secret in clear, no slot.
    const id = newId('we');
    const secret = newSigningSecret();
    const now = new Date();
    await stack.mongo.collection('webhookendpoints').insertOne({
      id,
      merchantId: merchant.merchantId,
      url: `${receiver.url}/legacy`,
      eventTypes: [],
      description: null,
      status: 'enabled',
      disabledReason: null,
      secrets: [{ secret, createdAt: now, expiresAt: null }],
      createdAt: now,
      updatedAt: now,
    });
    // What every process does at start (EndpointStore.init): keyed by its id, given a slot, sealed.
    const store = EndpointStore.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS);
    expect(await store.migrate()).toBeGreaterThanOrEqual(1);
    const raw = await rawEndpoint(id);
    expect(raw!._id).toBe(id);
    expect(JSON.stringify(raw)).not.toContain('whsec_');
    expect(await store.migrate()).toBe(0);
    expect((await client.get('/v1/webhooks')).body.data.map((e: { id: string }) => e.id)).toEqual([id]);
    // What a worker's first recovery sweep does: a dispatcher for each enabled endpoint without one,
    // its queue fixed at the chain's head first (once): an event recorded before the drain starts
    // is still delivered, however late the drain starts.
    const deps = { endpoints: store, events: EventStore.on(stack.mongo) };
    const head = await deps.events.outboxHead(merchant.merchantId);
    expect(await ensureAllDispatchers(deps, stack.env.client, stack.taskQueue)).toBeGreaterThan(0);
    const cursors = stack.mongo.collection<{ _id: string }>('webhook_outbox_cursors');
    expect(await cursors.findOne({ _id: id })).toMatchObject({ cursor: head, attempts: 0 });
    expect(await ensureAllDispatchers(deps, stack.env.client, stack.taskQueue)).toBe(0);

    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-legacy-2' });
    const hits = await eventually(at('/legacy'), (r) => r.length === 1);
    expect(
      new Webhook(secret).verify(hits[0]!.body, hits[0]!.headers as Record<string, string>),
    ).toMatchObject({
      data: { reference: 'wh-legacy-2' },
    });
    // Rotation still works on a migrated endpoint, and keeps the old secret signing for the overlap.
    const rotated = await client.post(`/v1/webhooks/${id}/rotate-secret`, { overlapSeconds: 60 });
    expect(rotated.status).toBe(200);
    await publishTestEvent(stack, merchant.merchantId, { type: 'payin.completed', reference: 'wh-legacy-3' });
    const third = (await eventually(at('/legacy'), (r) => r.length === 2))[1]!;
    const headers = third.headers as Record<string, string>;
    expect(new Webhook(secret).verify(third.body, headers)).toBeTruthy();
    expect(new Webhook(rotated.body.secret).verify(third.body, headers)).toBeTruthy();
    expect(JSON.stringify(await rawEndpoint(id))).not.toContain('whsec_');
  });

  it('bounds endpoints per merchant (WEBHOOK_MAX_ENDPOINTS), also under concurrent creations', async () => {
    const merchant = await createTestMerchant(stack, 'Many endpoints');
    const client = new ApiClient(stack.baseUrl, merchant.credentials);
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client.post('/v1/webhooks', { url: `${receiver.url}/many-${i}` })),
    );
    expect(created.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = created.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.body).toMatchObject({ status: 409, code: 'WEBHOOK_ENDPOINT_LIMIT' });
    // Listing and reading endpoints are `_id` reads only (slots, then each endpoint): no scan.
    const audit = await auditQueries(
      stack.mongo,
      async () => {
        const listed = await client.get('/v1/webhooks');
        await client.get(`/v1/webhooks/${listed.body.data[0].id}`);
        return listed;
      },
      { ignore: (q) => q.collection === 'event_feed' },
    );
    expect(audit.result.body.data).toHaveLength(5);
    expect(describeScans(audit.scans)).toBe('');
    const fr = await client.post(
      '/v1/webhooks',
      { url: `${receiver.url}/many-fr` },
      { 'accept-language': 'fr' },
    );
    expect(fr.status).toBe(409);
    expect(fr.headers.get('content-type')).toMatch(/problem\+json/);
    expect(fr.body.title).toBe('Trop de points de terminaison webhook');
    // A deleted endpoint frees its place.
    const first = created.find((r) => r.status === 201)!.body;
    expect((await client.request('DELETE', `/v1/webhooks/${first.id}`)).status).toBe(204);
    expect((await client.post('/v1/webhooks', { url: `${receiver.url}/many-again` })).status).toBe(201);
    expect((await client.post('/v1/webhooks', { url: `${receiver.url}/many-over` })).status).toBe(409);
  });
});
