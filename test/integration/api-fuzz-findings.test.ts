import { randomUUID } from 'node:crypto';
import { ApiClient } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { IdempotencyStore } from '../../src/persistence/idempotency-keys';

// Regressions for what `npm run fuzz` (schemathesis) found, through HTTP against the real stack.
describe('API fuzz findings', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Fuzz findings merchant' });

  it('a documented path asked with another method is a 405 naming the allowed ones, before any other check', async () => {
    // Was a 404 (TRACE, PUT), or the idempotency middleware's 400 (a POST to a read route).
    const put = await api.request('PUT', '/v1/providers', {});
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(put.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });

    const post = await api.request('POST', '/v1/payin/order-1', {}, { 'x-idempotency-key': 'not-a-uuid' });
    expect([post.status, post.body.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');

    // Without credentials too: the methods of a path are public (the document lists them).
    const anon = new ApiClient(stack.baseUrl, null);
    const del = await anon.request('DELETE', '/v1/direct/payin', undefined, { 'accept-language': 'fr' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('POST, OPTIONS');
    expect(del.body.title).toBe('Méthode non autorisée');

    // The literal path wins over the template, as OpenAPI resolves paths.
    const get = await api.get('/v1/payin/sessions');
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);

    // Declared methods and unknown paths are untouched.
    expect((await api.get('/v1/providers')).status).toBe(200);
    expect((await api.request('PATCH', '/v1/nowhere')).status).toBe(404);
  });

  it('OPTIONS lists the methods of the document, not those of every route the path matches', async () => {
    // Express answered `GET, HEAD, POST` for /v1/payin/sessions (GET of /v1/payin/{reference}).
    const res = await new ApiClient(stack.baseUrl, null).request('OPTIONS', '/v1/payin/sessions');
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the checkout decline takes the documented body `{}` and nothing else', async () => {
    const customer = new ApiClient(stack.baseUrl, null);
    const page = '/checkout/pr_000000000000000000000000/decline';
    // The document once declared no body, but the route requires a JSON one (415 without).
    expect((await customer.request('POST', page)).status).toBe(415);
    const extra = await customer.post(page, { reason: 'no' });
    expect([extra.status, extra.body.code, extra.body.errors]).toEqual([
      400,
      'VALIDATION_ERROR',
      [{ path: 'reason', message: expect.any(String) }],
    ]);
    expect((await customer.post(page, {})).body.code).toBe('SESSION_NOT_FOUND');
  });

  it('a SQLite write conflict on the idempotency claim is retried, not answered 503', async () => {
    // FerretDB answers SQLITE_BUSY_SNAPSHOT at once when another writer committed under the insert;
    // the fuzz met it on the claim every POST begins with while workflows wrote in the background.
    const store = IdempotencyStore.on(stack.mongo);
    const conflict = Object.assign(
      new Error(
        '[msg_insert.go:168 handler.(*Handler).MsgInsert] [collection.go:135 sqlite.(*collection).InsertAll.func1] database is locked (517)',
      ),
      { name: 'MongoServerError', code: 1 },
    );
    const create = jest.spyOn(store.model, 'create').mockRejectedValueOnce(conflict);
    try {
      const key = randomUUID();
      const claim = await store.claim(merchant.merchantId, key, 'fingerprint', 30_000);
      expect(claim.outcome).toBe('claimed');
      expect(create).toHaveBeenCalledTimes(2);
      // Written once, by the second attempt, in the real database.
      expect(await store.find(merchant.merchantId, key)).toMatchObject({ state: 'in_progress' });
    } finally {
      create.mockRestore();
    }
  });
});
