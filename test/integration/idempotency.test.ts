import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { requestFingerprint } from '../../src/api/idempotency';
import { IDEMPOTENCY_RETENTION_MS, IdempotencyStore } from '../../src/persistence/idempotency-keys';
import { parseKeyRing } from '../../src/security/key-ring';

// X-Idempotency-Key through HTTP, against FerretDB and Temporal: replay, reuse, in-flight,
// crash recovery, merchant scope, duplicate references, and 50 simultaneous identical POSTs. The
// middleware around failing and slow handlers: idempotency-middleware.test.ts.
describe('idempotency of POST requests', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Idempotency merchant' });
  let store: IdempotencyStore;

  beforeAll(() => {
    store = IdempotencyStore.on(stack.mongo);
  });

  const payin = (reference: string, amount = 5000) => ({
    reference,
    sandboxScenario: 'completed',
    payin: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });
  const post = (body: unknown, key: string, headers: Record<string, string> = {}, client = api) =>
    client.post('/v1/direct/payin', body, { 'x-idempotency-key': key, ...headers });
  const countTx = (reference: string, merchantId = merchant.merchantId) =>
    stack.mongo.collection('transactions').countDocuments({ merchantId, reference });
  const keyRecord = (key: string) =>
    stack.mongo.collection('idempotency_keys').findOne({ merchantId: merchant.merchantId, key });

  it('requires X-Idempotency-Key on every POST, as a UUID, and creates nothing without it', async () => {
    const missing = await post(payin('idem-missing'), '');
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({
      code: 'IDEMPOTENCY_KEY_MISSING',
      title: 'Idempotency key missing',
      errors: [{ path: 'headers.x-idempotency-key', message: 'Required.' }],
    });

    const fr = await post(payin('idem-missing'), '', { 'accept-language': 'fr' });
    expect(fr.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_MISSING', title: "Clé d'idempotence manquante" });

    for (const bad of ['abc', '1234', `${randomUUID()}x`, 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) {
      const invalid = await post(payin('idem-missing'), bad);
      expect(invalid.status).toBe(400);
      expect(invalid.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    }
    expect(await countTx('idem-missing')).toBe(0);
  });

  it('replays the first answer for the same key and request, with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await post(payin('idem-replay'), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Same request with its keys in another order, and the key in upper case: still the same.
    const b = payin('idem-replay');
    const reordered = {
      action: b.action,
      payin: { ...b.payin },
      sandboxScenario: b.sandboxScenario,
      reference: b.reference,
    };
    const again = await post(reordered, key.toUpperCase());
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await countTx('idem-replay')).toBe(1);

    // Kept at least 24 hours.
    const record = await keyRecord(key);
    expect(record!.state).toBe('completed');
    expect(record!.expiresAt.getTime() - record!.createdAt.getTime()).toBeGreaterThanOrEqual(
      24 * 60 * 60 * 1000,
    );
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with another body or path', async () => {
    const key = randomUUID();
    expect((await post(payin('idem-reuse'), key)).status).toBe(201);

    const otherBody = await post(payin('idem-reuse', 7000), key, { 'accept-language': 'fr-FR;q=0.9' });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      title: "Clé d'idempotence réutilisée",
    });

    const otherPath = await api.post('/v1/payin/sessions', payin('idem-reuse'), { 'x-idempotency-key': key });
    expect(otherPath.status).toBe(409);
    expect(otherPath.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countTx('idem-reuse')).toBe(1);
  });

  it('keeps keyed fingerprints: no plain hash of a body (phone number, OTP) to test guesses on', async () => {
    const key = randomUUID();
    const body = payin('idem-keyed');
    expect((await post(body, key)).status).toBe(201);
    const plain = requestFingerprint({ method: 'POST', originalUrl: '/v1/direct/payin', body });
    const kid = stack.config.DATA_ENCRYPTION_KEYS.current;
    const keyed = requestFingerprint(
      { method: 'POST', originalUrl: '/v1/direct/payin', body },
      stack.config.DATA_ENCRYPTION_KEYS,
    );
    expect(keyed).toMatch(new RegExp(`^${kid}\\.[0-9a-f]{64}$`));
    expect((await keyRecord(key))?.fingerprint).toBe(keyed);
    const tx = await stack.mongo
      .collection('transactions')
      .findOne({ merchantId: merchant.merchantId, reference: 'idem-keyed' });
    expect(tx?.requestFingerprint).toBe(keyed);
    expect(JSON.stringify([await keyRecord(key), tx])).not.toContain(plain);
    // Same key, another number: still told apart.
    const other = { ...body, payin: { ...body.payin, msisdn: '+2250500000002' } };
    expect((await post(other, key)).body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // A claim made under a key since rotated out of first place is still compared under it.
    const rotated = parseKeyRing(`new1:${'ab'.repeat(32)},${kid}:${'11'.repeat(32)}`);
    const underOld = requestFingerprint(
      { method: 'POST', originalUrl: '/v1/x', body: { a: 1 } },
      rotated,
      kid,
    );
    expect(underOld).toBe(
      requestFingerprint(
        { method: 'POST', originalUrl: '/v1/x', body: { a: 1 } },
        stack.config.DATA_ENCRYPTION_KEYS,
      ),
    );
  });

  it('scopes keys to the merchant: another merchant may use the same key', async () => {
    const key = randomUUID();
    const other = await createTestMerchant(stack, 'Other merchant');
    const otherApi = new ApiClient(stack.baseUrl, other.credentials);
    const mine = await post(payin('idem-scope'), key);
    const theirs = await post(payin('idem-scope'), key, {}, otherApi);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await countTx('idem-scope', other.merchantId)).toBe(1);
  });

  it('answers 409 REQUEST_IN_PROGRESS with Retry-After while the first request runs', async () => {
    const key = randomUUID();
    const body = payin('idem-inflight');
    // Another API process holds the claim and has not answered yet.
    const fingerprint = requestFingerprint({ method: 'POST', originalUrl: '/v1/direct/payin', body });
    await store.claim(merchant.merchantId, key, fingerprint, 60_000);

    const res = await post(body, key, { 'accept-language': 'fr' });
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ code: 'REQUEST_IN_PROGRESS', title: 'Requête en cours' });
    expect(await countTx('idem-inflight')).toBe(0);
  });

  it('takes over a claim left by a crashed process once its lock has expired', async () => {
    const key = randomUUID();
    const body = payin('idem-crashed');
    const fingerprint = requestFingerprint({ method: 'POST', originalUrl: '/v1/direct/payin', body });
    await store.claim(merchant.merchantId, key, fingerprint, -1_000);

    const res = await post(body, key);
    expect(res.status).toBe(201);
    expect(await countTx('idem-crashed')).toBe(1);
    expect((await post(body, key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('after a crash between the effect and the stored answer, a retry gets the same payin', async () => {
    const key = randomUUID();
    const body = payin('idem-half');
    const first = await post(body, key);
    expect(first.status).toBe(201);
    // As if the process died after creating the payin and before storing the answer.
    await stack.mongo
      .collection('idempotency_keys')
      .updateOne(
        { merchantId: merchant.merchantId, key },
        { $set: { state: 'in_progress', status: null, body: null, lockedUntil: new Date(Date.now() - 1) } },
      );
    const retry = await post(body, key);
    expect(retry.status).toBeLessThan(300);
    expect(retry.body.id).toBe(first.body.id);
    expect(await countTx('idem-half')).toBe(1);
  });

  it('answers 409 DUPLICATE_REFERENCE when a new key reuses a reference, without a second payin', async () => {
    expect((await post(payin('idem-dupref'), randomUUID())).status).toBe(201);
    const dup = await post(payin('idem-dupref', 9000), randomUUID());
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({
      code: 'DUPLICATE_REFERENCE',
      title: 'Duplicate reference',
      errors: [{ path: 'reference' }],
    });
    const fr = await post(payin('idem-dupref'), randomUUID(), { 'accept-language': 'fr' });
    expect(fr.body).toMatchObject({ code: 'DUPLICATE_REFERENCE', title: 'Référence déjà utilisée' });
    expect(await countTx('idem-dupref')).toBe(1);
  });

  it('does not keep a 400: the same key may carry the corrected request', async () => {
    const key = randomUUID();
    const bad = await post(payin('idem-fixed', -5), key);
    expect(bad.status).toBe(400);
    expect(await keyRecord(key)).toBeNull();
    const fixed = await post(payin('idem-fixed'), key);
    expect(fixed.status).toBe(201);
  });

  it('ignores and sweeps records past their retention (no reliance on a TTL index)', async () => {
    const key = randomUUID();
    expect((await post(payin('idem-expired-a'), key)).status).toBe(201);
    // The answer is stored as it is sent, not before (src/api/idempotency.ts): age the record only
    // once it is stored, or the store's read-then-replace of the completion (slow on a loaded
    // machine) may write the old expiry back over ours, and the key is still held (409).
    await eventually(
      () => keyRecord(key),
      (r) => r?.state === 'completed',
    );
    await stack.mongo
      .collection('idempotency_keys')
      .updateOne({ merchantId: merchant.merchantId, key }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    // Past retention the key is free again: another request with it is a new request.
    const reused = await post(payin('idem-expired-b'), key);
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();

    const stale = randomUUID();
    await store.claim(merchant.merchantId, stale, 'x', 1_000);
    await stack.mongo
      .collection('idempotency_keys')
      .updateOne({ key: stale }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await keyRecord(stale)).toBeNull();
    expect(await keyRecord(key)).not.toBeNull();
    expect(IDEMPOTENCY_RETENTION_MS).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
  });

  it('50 simultaneous identical POSTs with one key create exactly one payin and one workflow', async () => {
    const key = randomUUID();
    const body = payin('idem-burst');
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(body, key)));

    const created = responses.filter((r) => r.status === 201);
    const busy = responses.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(50);
    for (const r of busy) expect(r.body.code).toBe('REQUEST_IN_PROGRESS');
    const firsts = created.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
    expect(firsts).toHaveLength(1);
    for (const r of created) expect(r.body).toEqual(firsts[0]!.body);

    expect(await countTx('idem-burst')).toBe(1);
    const workflowId = `payin:${merchant.merchantId}:idem-burst`;
    const description = await stack.env.client.workflow.getHandle(workflowId).describe();
    expect(description.workflowId).toBe(workflowId);
    const tx = await stack.mongo
      .collection('transactions')
      .findOne({ merchantId: merchant.merchantId, reference: 'idem-burst' });
    expect(tx!.id).toBe(firsts[0]!.body.id);

    const after = await post(body, key);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body).toEqual(firsts[0]!.body);
  });

  it('20 simultaneous POSTs with new keys and one reference create one payin; the rest get 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(payin('idem-race-ref'), randomUUID())),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    const others = responses.filter((r) => r.status !== 201);
    for (const r of others) expect(r.body.code).toBe('DUPLICATE_REFERENCE');
    expect(await countTx('idem-race-ref')).toBe(1);
  });

  // Answers carrying a secret are replayed as first given (the client may have lost the first, and
  // the secret is shown nowhere else), but are stored sealed: no whsec_ or wst_ in the database.
  describe('answers that carry a secret', () => {
    const rawRecord = (key: string) =>
      stack.mongo.collection('idempotency_keys').findOne({ _id: `${merchant.merchantId}|${key}` as never });
    const replayedSame = async (path: string, body: unknown, secret: RegExp) => {
      const key = randomUUID();
      const first = await api.post(path, body, { 'x-idempotency-key': key });
      expect(first.status).toBeLessThan(300);
      expect(JSON.stringify(first.body)).toMatch(secret);
      // Stored as it is sent (docs/decisions/idempotency/what-is-stored-and-released.md).
      const raw = await eventually(
        () => rawRecord(key),
        (r) => r?.state === 'completed',
      );
      expect(raw).toMatchObject({ state: 'completed', bodySealed: true });
      expect(JSON.stringify(raw)).not.toMatch(/whsec_|wst_/);
      const again = await api.post(path, body, { 'x-idempotency-key': key });
      expect(again.status).toBe(first.status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      return first.body as Record<string, string>;
    };

    it('webhook endpoint creation and secret rotation', async () => {
      const created = await replayedSame('/v1/webhooks', { url: 'https://merchant.example/hooks' }, /whsec_/);
      const rotated = await replayedSame(`/v1/webhooks/${created.id}/rotate-secret`, {}, /whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
    });

    it('WebSocket tokens', async () => {
      await replayedSame('/v1/ws/tokens', {}, /wst_/);
    });

    it('without a key ring, the stored answer keeps no secret and its replay shows it was issued', async () => {
      const bare = IdempotencyStore.on(stack.mongo);
      const key = randomUUID();
      const claim = await bare.claim('m_no_ring', key, 'fp', 30_000);
      if (claim.outcome !== 'claimed') throw new Error('not claimed');
      await bare.complete('m_no_ring', key, claim, {
        status: 201,
        contentType: 'application/json',
        body: JSON.stringify({ token: 'wst_abc-DEF_123', secret: 'whsec_QUJD+/=' }),
      });
      const stored = await bare.find('m_no_ring', key);
      expect(JSON.parse(stored!.body!)).toEqual({
        token: '[issued; not kept]',
        secret: '[issued; not kept]',
      });
    });
  });
});
