import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import express from 'express';
import { isAmbiguousFailure } from '../../../src/domain/failures';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type OperatorStatus,
} from '../../../src/operators/gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type IncomingCallback,
} from '../../../src/operators/connectors/connector';
import { buildMtnConnector, type MtnConfig } from '../../../src/operators/connectors/mtn/config';
import { undocumented } from '../../../src/operators/connectors/mtn/wire';
import { toProviderUuid } from '../../../src/operators/provider-ids';
import { spawnFake, type FakeProcess } from '../../fakes/spawn';

// Contract tests of the MTN MoMo Open API connector against its fake (test/fakes/mtn), run as its
// own process. Callbacks reach a receiver in this process, which hands them to verifyCallback as the
// service's /provider-callbacks/mtn route does.

const creds = {
  FAKE_MTN_COLLECTION_SUBSCRIPTION_KEY: 'col-sub-key',
  FAKE_MTN_COLLECTION_API_USER: '0c3f7a1e-6a62-4b8e-9b7f-3d0f2d1c9e11',
  FAKE_MTN_COLLECTION_API_KEY: 'col-api-key',
  FAKE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY: 'dis-sub-key',
  FAKE_MTN_DISBURSEMENT_API_USER: '9a4e2b7c-1d3f-4a5b-8c6d-7e8f9a0b1c2d',
  FAKE_MTN_DISBURSEMENT_API_KEY: 'dis-api-key',
};
const secret = 'mtn-callback-secret-0123456789abcdef';

let fake: FakeProcess;
let receiver: Server;
let receiverUrl: string;
let mtn: Connector;
/** Gives up after 500 ms, for the tests where MTN answers after 1.5 s; the others wait as long as a loaded machine needs. */
let hasty: Connector;
const received: IncomingCallback[] = [];

function configFor(baseUrl: string): MtnConfig {
  return {
    MTN_BASE_URL: baseUrl,
    MTN_CALLBACK_SECRET: secret,
    MTN_CI_TARGET_ENVIRONMENT: 'mtnivorycoast',
    MTN_CI_COLLECTION_SUBSCRIPTION_KEY: creds.FAKE_MTN_COLLECTION_SUBSCRIPTION_KEY,
    MTN_CI_COLLECTION_API_USER: creds.FAKE_MTN_COLLECTION_API_USER,
    MTN_CI_COLLECTION_API_KEY: creds.FAKE_MTN_COLLECTION_API_KEY,
    MTN_CI_DISBURSEMENT_SUBSCRIPTION_KEY: creds.FAKE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY,
    MTN_CI_DISBURSEMENT_API_USER: creds.FAKE_MTN_DISBURSEMENT_API_USER,
    MTN_CI_DISBURSEMENT_API_KEY: creds.FAKE_MTN_DISBURSEMENT_API_KEY,
    MTN_CM_TARGET_ENVIRONMENT: 'mtncameroon',
    MTN_CM_COLLECTION_SUBSCRIPTION_KEY: creds.FAKE_MTN_COLLECTION_SUBSCRIPTION_KEY,
    MTN_CM_COLLECTION_API_USER: creds.FAKE_MTN_COLLECTION_API_USER,
    MTN_CM_COLLECTION_API_KEY: creds.FAKE_MTN_COLLECTION_API_KEY,
  };
}

const newId = (prefix: 'pr' | 'rf') => `${prefix}_${randomBytes(12).toString('hex')}`;
/** A CI MTN number (05…) whose last two digits pick the fake's outcome. */
const msisdn = (last2: string) =>
  `+22505${(randomBytes(3).readUIntBE(0, 3) % 1_000_000).toString().padStart(6, '0')}${last2}`;

function payin(over: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    transactionId: newId('pr'),
    operator: 'MTN',
    country: 'CI',
    msisdn: msisdn('01'),
    amount: 5000,
    currency: 'XOF',
    sandboxScenario: null,
    ...over,
  };
}

async function control(pathname: string, body: unknown = {}): Promise<void> {
  const r = await fetch(`${fake.url}${pathname}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
}
async function look<T>(pathname: string): Promise<T> {
  return (await (await fetch(`${fake.url}${pathname}`)).json()) as T;
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const final = (s: OperatorStatus) => s.outcome === 'completed' || s.outcome === 'failed';

async function callbackFor(id: string): Promise<IncomingCallback | undefined> {
  const ref = toProviderUuid(id);
  return until(
    () => Promise.resolve(received.find((c) => c.path.includes(ref))),
    (c) => c !== undefined,
    3000,
  );
}

beforeAll(async () => {
  const app = express();
  app.post('/provider-callbacks/mtn', express.raw({ type: () => true }), (req, res) => {
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    received.push({
      method: req.method,
      path: req.originalUrl,
      headers,
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    res.status(202).json({ received: true });
  });
  receiver = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  fake = await spawnFake(path.join(__dirname, '../../fakes/mtn/main.ts'), {
    ...creds,
    FAKE_CALLBACK_HOST: new URL(receiverUrl).host,
    FAKE_MTN_COMPLETE_AFTER_MS: '100',
  });
  mtn = buildMtnConnector(configFor(fake.url), { timeoutMs: 5000, callbackBaseUrl: receiverUrl })!;
  hasty = buildMtnConnector(configFor(fake.url), { timeoutMs: 500, callbackBaseUrl: receiverUrl })!;
});

afterAll(async () => {
  await fake?.stop();
  await new Promise((r) => receiver?.close(r));
});

beforeEach(() => control('/__fake/reset'));

describe('MTN connector: configuration', () => {
  it('builds nothing without credentials, refuses half a credential set, serves the configured countries', () => {
    expect(buildMtnConnector({}, { timeoutMs: 1000 })).toBeNull();
    expect(() => buildMtnConnector({ MTN_CI_COLLECTION_SUBSCRIPTION_KEY: 'k' }, { timeoutMs: 1000 })).toThrow(
      /must be set together/,
    );
    expect(mtn.name).toBe('mtn');
    expect(mtn.serves).toEqual([
      { operator: 'MTN', country: 'CI' },
      { operator: 'MTN', country: 'CM' },
    ]);
  });
});

describe('MTN connector: sandbox target environment', () => {
  it("MTN's sandbox takes EUR only: the amount goes as is in EUR, and a retry compares in EUR", async () => {
    const sandbox = buildMtnConnector(
      { ...configFor(fake.url), MTN_CI_TARGET_ENVIRONMENT: 'sandbox' },
      { timeoutMs: 2000 },
    )!;
    const req = payin();
    expect((await sandbox.requestCollection(req)).outcome).toBe('pending');
    expect((await sandbox.requestCollection(req)).outcome).not.toBe('unknown'); // 409, read, same terms
    const posts = (
      await look<
        Array<{
          method: string;
          path: string;
          headers: Record<string, string>;
          body: Record<string, unknown>;
        }>
      >('/__fake/requests')
    ).filter((r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay');
    expect(posts[0]!.headers['x-target-environment']).toBe('sandbox');
    expect(posts[0]!.body).toMatchObject({ amount: '5000', currency: 'EUR' });
  });
});

describe('MTN connector: request-to-pay', () => {
  it('success: sends the documented headers and body, answers pending, then completed on the status read; the callback verifies', async () => {
    const req = payin();
    const first = await mtn.requestCollection(req);
    expect(first).toMatchObject({
      outcome: 'pending',
      operatorReference: toProviderUuid(req.transactionId),
      ussdCode: '*133#',
    });

    const requests = await look<
      Array<{
        method: string;
        path: string;
        headers: Record<string, string>;
        body: Record<string, unknown>;
      }>
    >('/__fake/requests');
    const post = requests.find((r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay')!;
    expect(post.headers['x-reference-id']).toBe(toProviderUuid(req.transactionId));
    expect(post.headers['x-target-environment']).toBe('mtnivorycoast');
    expect(post.headers['ocp-apim-subscription-key']).toBe('col-sub-key');
    expect(post.headers.authorization).toMatch(/^Bearer tok_collection_/);
    expect(post.headers['x-callback-url']).toMatch(
      new RegExp(`^${receiverUrl}/provider-callbacks/mtn\\?kind=collection&ref=`),
    );
    expect(post.body).toMatchObject({
      amount: '5000',
      currency: 'XOF',
      externalId: req.transactionId,
      payer: { partyIdType: 'MSISDN', partyId: req.msisdn.slice(1) },
    });
    // No phone number in the texts MTN shows and stores.
    expect(JSON.stringify([post.body.payerMessage, post.body.payeeNote])).not.toContain(req.msisdn.slice(1));

    const done = await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    expect(done.operatorReference).toMatch(/^\d+$/); // MTN's financialTransactionId
    expect(await mtn.partnerCheck(req.transactionId, 'MTN', 'CI')).toMatchObject({ collected: true });

    const cb = await callbackFor(req.transactionId);
    expect(cb).toBeDefined();
    expect(await mtn.verifyCallback(cb!)).toMatchObject({ kind: 'collection', id: req.transactionId });
  });

  it('definitive refusal: FAILED reasons map to definitive codes (PAYER_NOT_FOUND, NOT_ENOUGH_FUNDS, APPROVAL_REJECTED, EXPIRED)', async () => {
    const cases: Array<[string, string]> = [
      ['11', 'INVALID_MSISDN'],
      ['12', 'INSUFFICIENT_FUNDS'],
      ['13', 'DECLINED_BY_CUSTOMER'],
      ['14', 'PAYER_DECLINED'],
    ];
    await Promise.all(
      cases.map(async ([digits, code]) => {
        const req = payin({ msisdn: msisdn(digits) });
        await mtn.requestCollection(req);
        const s = await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
        expect(s.outcome).toBe('failed');
        expect(s.failure?.code).toBe(code);
        expect(isAmbiguousFailure(s.failure!.code)).toBe(false);
      }),
    );
  });

  it('other FAILED reasons: refusals of our account are OPERATOR_REJECTED, unknown ones MTN_<REASON> (ambiguous); both reason shapes read', async () => {
    const cases: Array<[string, boolean, string, boolean]> = [
      ['NOT_ALLOWED', false, 'OPERATOR_REJECTED', false],
      ['INTERNAL_PROCESSING_ERROR', true, 'MTN_INTERNAL_PROCESSING_ERROR', true],
      ['APPROVAL_REJECTED', true, 'DECLINED_BY_CUSTOMER', false],
    ];
    for (const [reason, reasonAsObject, code, ambiguous] of cases) {
      const req = payin({ msisdn: msisdn('22') });
      await mtn.requestCollection(req);
      await control(`/__fake/transactions/${toProviderUuid(req.transactionId)}`, {
        status: 'FAILED',
        reason,
        reasonAsObject,
      });
      const s = await mtn.collectionStatus(req.transactionId, 'MTN', 'CI');
      expect(s).toMatchObject({ outcome: 'failed', failure: { code } });
      expect(isAmbiguousFailure(code)).toBe(ambiguous);
    }
  });

  it('definitive refusal of the request itself: a 400 is OperatorRejectedError; a 500 NOT_ALLOWED confirmed by a 404 read too', async () => {
    await control('/__fake/faults', { status: 400, code: 'BAD_REQUEST', count: 1, path: 'requesttopay' });
    await expect(mtn.requestCollection(payin())).rejects.toBeInstanceOf(OperatorRejectedError);
    await control('/__fake/faults', { status: 500, code: 'NOT_ALLOWED', count: 1, path: 'requesttopay' });
    await expect(mtn.requestCollection(payin())).rejects.toBeInstanceOf(OperatorRejectedError);
    await control('/__fake/faults', { status: 500, code: 'PAYER_NOT_FOUND', count: 1, path: 'requesttopay' });
    await expect(mtn.requestCollection(payin())).rejects.toBeInstanceOf(OperatorRejectedError);
    // A 500 without a refusal code is an outage: retried, never a refusal.
    await control('/__fake/faults', {
      status: 500,
      code: 'INTERNAL_PROCESSING_ERROR',
      count: 1,
      path: 'requesttopay',
    });
    await expect(mtn.requestCollection(payin())).rejects.toBeInstanceOf(OperatorUnavailableError);
    // The connector refuses what MTN would refuse, before calling: wrong currency, operator, product.
    await expect(mtn.requestCollection(payin({ currency: 'XAF' }))).rejects.toBeInstanceOf(
      OperatorRejectedError,
    );
    await expect(mtn.requestCollection(payin({ operator: 'ORANGE' }))).rejects.toBeInstanceOf(
      OperatorRejectedError,
    );
    await expect(
      mtn.disburse({
        transactionId: newId('pr'),
        operator: 'MTN',
        country: 'CM',
        msisdn: '+237650000001',
        amount: 100,
        currency: 'XAF',
        sandboxScenario: null,
      }),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
  });

  it('timeout then success: the first answer is lost, the retry with the same id gets 409 and reads the one transaction', async () => {
    const req = payin();
    // The token first, so that the 500 ms the hasty connector waits are the collection request's.
    await hasty.collectionStatus(newId('pr'), 'MTN', 'CI');
    await control('/__fake/delay', { ms: 1500, count: 1, process: true, path: 'requesttopay' });
    await expect(hasty.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    const again = await mtn.requestCollection(req);
    expect(['pending', 'completed']).toContain(again.outcome);
    const done = await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    const posts = (await look<Array<{ method: string; path: string }>>('/__fake/requests')).filter(
      (r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay',
    );
    expect(posts).toHaveLength(2);
  });

  it('timeout before MTN did anything: the retry with the same id is a first request (202)', async () => {
    const req = payin();
    // The token first, so that the 500 ms the hasty connector waits are the collection request's.
    await hasty.collectionStatus(newId('pr'), 'MTN', 'CI');
    await control('/__fake/delay', { ms: 1500, count: 1, process: false, path: 'requesttopay' });
    await expect(hasty.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    expect((await mtn.collectionStatus(req.transactionId, 'MTN', 'CI')).outcome).toBe('unknown');
    // The abandoned request still reaches the fake after its delay: wait it out, then the retry
    // meets it (409, same terms) or creates it; either way one transaction, completed.
    await new Promise((r) => setTimeout(r, 1600));
    expect(['pending', 'completed']).toContain((await mtn.requestCollection(req)).outcome);
    expect((await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final)).outcome).toBe(
      'completed',
    );
  });

  it('duplicate submission: same id and terms answers the status; same id with another amount is OperatorConflictError', async () => {
    const req = payin();
    await mtn.requestCollection(req);
    const dup = await mtn.requestCollection(req);
    expect(['pending', 'completed']).toContain(dup.outcome);
    await expect(mtn.requestCollection({ ...req, amount: 6000 })).rejects.toBeInstanceOf(
      OperatorConflictError,
    );
    await expect(mtn.requestCollection({ ...req, msisdn: msisdn('02') })).rejects.toBeInstanceOf(
      OperatorConflictError,
    );
  });

  it('callback lost: MTN sends it once, it is dropped, the status read still finds the outcome', async () => {
    const req = payin();
    await control('/__fake/drop-callbacks', { ref: toProviderUuid(req.transactionId) });
    await mtn.requestCollection(req);
    const done = await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    const ref = toProviderUuid(req.transactionId);
    const cbs = (await look<Array<{ url: string; dropped: boolean }>>('/__fake/callbacks')).filter((c) =>
      c.url.includes(ref),
    );
    expect(cbs).toEqual([expect.objectContaining({ dropped: true })]);
    expect(received.some((c) => c.path.includes(toProviderUuid(req.transactionId)))).toBe(false);
  });

  it('callback forged: refused (null); replayed: the same signed content, for the door to dedupe', async () => {
    const req = payin();
    await mtn.requestCollection(req);
    const cb = (await callbackFor(req.transactionId))!;
    const other = newId('pr');
    const url = new URL(cb.path, 'http://x');
    const withQuery = (over: Record<string, string>) => {
      const q = new URLSearchParams(url.search);
      for (const [k, v] of Object.entries(over)) q.set(k, v);
      return `${url.pathname}?${q.toString()}`;
    };
    const forged: IncomingCallback[] = [
      { ...cb, path: withQuery({ sig: 'A'.repeat(43) }) }, // made-up token
      { ...cb, path: withQuery({ ref: toProviderUuid(other) }) }, // token of another transaction
      { ...cb, path: withQuery({ kind: 'disbursement' }) }, // token of another kind
      { ...cb, path: url.pathname }, // no token at all
      { ...cb, path: withQuery({ ref: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }) }, // a UUID not ours
      { ...cb, rawBody: Buffer.from(JSON.stringify({ externalId: other, status: 'SUCCESSFUL' })) }, // body of another id
      { ...cb, rawBody: Buffer.from('not json') },
    ];
    for (const f of forged) expect(await mtn.verifyCallback(f)).toBeNull();
    const first = await mtn.verifyCallback(cb);
    expect(first).toMatchObject({ kind: 'collection', id: req.transactionId });
    // A replay names the same signed content (src/operators/callbacks.ts keeps its receipt).
    expect((await mtn.verifyCallback(cb))?.signed.content).toEqual(first?.signed.content);
    // Another connector instance (another key) does not accept it either.
    const other2 = buildMtnConnector(
      { ...configFor(fake.url), MTN_CALLBACK_SECRET: 'x'.repeat(40) },
      { timeoutMs: 500 },
    )!;
    expect(await other2.verifyCallback(cb)).toBeNull();
  });

  it('unknown id: a status read of a reference MTN never saw is unknown, not failed', async () => {
    const s = await mtn.collectionStatus(newId('pr'), 'MTN', 'CI');
    expect(s.outcome).toBe('unknown');
    expect((await mtn.disbursementStatus(newId('pr'), 'MTN', 'CI')).outcome).toBe('unknown');
    expect((await mtn.refundStatus(newId('rf'), 'MTN', 'CI')).outcome).toBe('unknown');
  });
});

describe('MTN connector: tokens, 5xx, 429', () => {
  it('caches a token per product until expiry, and on a 401 (expired) fetches a new one and retries once', async () => {
    const before = await look<{ tokensIssued: { collection: number; disbursement: number } }>(
      '/__fake/stats',
    );
    const fresh = buildMtnConnector(configFor(fake.url), { timeoutMs: 2000, callbackBaseUrl: receiverUrl })!;
    await fresh.collectionStatus(newId('pr'), 'MTN', 'CI');
    await fresh.collectionStatus(newId('pr'), 'MTN', 'CI');
    await fresh.disbursementStatus(newId('pr'), 'MTN', 'CI');
    const mid = await look<{ tokensIssued: { collection: number; disbursement: number } }>('/__fake/stats');
    expect(mid.tokensIssued.collection - before.tokensIssued.collection).toBe(1);
    expect(mid.tokensIssued.disbursement - before.tokensIssued.disbursement).toBe(1);

    await control('/__fake/expire-tokens');
    const req = payin();
    expect((await fresh.requestCollection(req)).outcome).toBe('pending');
    const after = await look<{ tokensIssued: { collection: number } }>('/__fake/stats');
    expect(after.tokensIssued.collection - mid.tokensIssued.collection).toBe(1);
    const statuses = (await look<Array<{ path: string; method: string }>>('/__fake/requests')).filter(
      (r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay',
    );
    expect(statuses).toHaveLength(2); // the 401, then the retry with the new token
  });

  it('a token is renewed before MTN expires it (no 401 on the way)', async () => {
    const shortLived = await spawnFake(path.join(__dirname, '../../fakes/mtn/main.ts'), {
      ...creds,
      FAKE_MTN_TOKEN_TTL_SECONDS: '2',
    });
    try {
      const c = buildMtnConnector(configFor(shortLived.url), { timeoutMs: 2000 })!;
      await c.collectionStatus(newId('pr'), 'MTN', 'CI');
      await c.collectionStatus(newId('pr'), 'MTN', 'CI');
      await new Promise((r) => setTimeout(r, 1100)); // past half of the 2 s life
      await c.collectionStatus(newId('pr'), 'MTN', 'CI');
      const stats = (await (await fetch(`${shortLived.url}/__fake/stats`)).json()) as {
        tokensIssued: { collection: number };
      };
      expect(stats.tokensIssued.collection).toBe(2);
      const log = (await (await fetch(`${shortLived.url}/__fake/requests`)).json()) as unknown[];
      expect(log).toHaveLength(5); // token, read, read, token, read: no 401 in between
    } finally {
      await shortLived.stop();
    }
  });

  it('concurrent calls on a cold connector share one token request', async () => {
    const before = await look<{ tokensIssued: { collection: number } }>('/__fake/stats');
    const cold = buildMtnConnector(configFor(fake.url), { timeoutMs: 2000 })!;
    await Promise.all(Array.from({ length: 5 }, () => cold.collectionStatus(newId('pr'), 'MTN', 'CI')));
    const after = await look<{ tokensIssued: { collection: number } }>('/__fake/stats');
    expect(after.tokensIssued.collection - before.tokensIssued.collection).toBe(1);
  });

  it('wrong credentials: the token is refused, the call is unavailable (retried), never rejected', async () => {
    const bad = buildMtnConnector(
      { ...configFor(fake.url), MTN_CI_COLLECTION_API_KEY: 'wrong' },
      { timeoutMs: 2000 },
    )!;
    await expect(bad.requestCollection(payin())).rejects.toBeInstanceOf(OperatorUnavailableError);
  });

  it('a 500, 503 or 429 from MTN is OperatorUnavailableError; the same id then goes through', async () => {
    const req = payin();
    for (const status of [500, 503, 429]) {
      await control('/__fake/faults', { status, count: 1, path: 'requesttopay' });
      await expect(mtn.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    }
    await control('/__fake/faults', { status: 503, count: 1, path: 'requesttopay' });
    await expect(mtn.collectionStatus(req.transactionId, 'MTN', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    expect((await mtn.requestCollection(req)).outcome).toBe('pending');
    expect((await until(() => mtn.collectionStatus(req.transactionId, 'MTN', 'CI'), final)).outcome).toBe(
      'completed',
    );
  });
});

describe('MTN connector: transfers, refunds, account holders', () => {
  it('payout by transfer: completes; PAYEE_NOT_FOUND fails definitively as INVALID_MSISDN; the callback verifies as a disbursement', async () => {
    const ok = {
      transactionId: newId('pr'),
      operator: 'MTN' as const,
      country: 'CI' as const,
      msisdn: msisdn('05'),
      amount: 2500,
      currency: 'XOF',
      sandboxScenario: null,
    };
    expect((await mtn.disburse(ok)).outcome).toBe('pending');
    expect((await until(() => mtn.disbursementStatus(ok.transactionId, 'MTN', 'CI'), final)).outcome).toBe(
      'completed',
    );
    const cb = (await callbackFor(ok.transactionId))!;
    expect(await mtn.verifyCallback(cb)).toMatchObject({ kind: 'disbursement', id: ok.transactionId });

    const bad = { ...ok, transactionId: newId('pr'), msisdn: msisdn('11') };
    await mtn.disburse(bad);
    const s = await until(() => mtn.disbursementStatus(bad.transactionId, 'MTN', 'CI'), final);
    expect(s).toMatchObject({ outcome: 'failed', failure: { code: 'INVALID_MSISDN' } });
  });

  it('refund v2 of a completed request-to-pay: referenceIdToRefund is its X-Reference-Id; completes; the callback verifies as a refund', async () => {
    const p = payin();
    await mtn.requestCollection(p);
    await until(() => mtn.collectionStatus(p.transactionId, 'MTN', 'CI'), final);
    const refundId = newId('rf');
    const r = await mtn.refund({
      refundId,
      transactionId: p.transactionId,
      operator: 'MTN',
      country: 'CI',
      amount: 2000,
      currency: 'XOF',
      sandboxScenario: null,
    });
    expect(r.outcome).toBe('pending');
    const post = (
      await look<Array<{ path: string; body: Record<string, unknown>; headers: Record<string, string> }>>(
        '/__fake/requests',
      )
    ).find((x) => x.path === '/disbursement/v2_0/refund')!;
    expect(post.body).toMatchObject({
      amount: '2000',
      currency: 'XOF',
      externalId: refundId,
      referenceIdToRefund: toProviderUuid(p.transactionId),
    });
    expect(post.headers['ocp-apim-subscription-key']).toBe('dis-sub-key');
    expect((await until(() => mtn.refundStatus(refundId, 'MTN', 'CI'), final)).outcome).toBe('completed');
    expect(await mtn.verifyCallback((await callbackFor(refundId))!)).toMatchObject({
      kind: 'refund',
      id: refundId,
    });
  });

  it('recipient: an active account holder with the name MTN gives; an inactive one', async () => {
    const active = await mtn.recipient!(msisdn('07'), 'CI');
    expect(active).toMatchObject({ operator: 'MTN', country: 'CI', active: true });
    expect(active.holderName).toMatch(/^Awa Kone/);
    expect(await mtn.recipient!(msisdn('33'), 'CI')).toEqual({
      operator: null,
      country: 'CI',
      active: false,
      holderName: null,
    });
  });

  it('no cancel API: cancel answers the status (pending stays pending); no statement API', async () => {
    const req = payin({ msisdn: msisdn('22') });
    await mtn.requestCollection(req);
    await new Promise((r) => setTimeout(r, 300));
    expect((await mtn.cancel('collection', req.transactionId, 'MTN', 'CI')).outcome).toBe('pending');
    await expect(mtn.statement('MTN', '2026-11-23')).rejects.toBeInstanceOf(StatementsNotOfferedError);
  });

  it('errors carry no phone number', async () => {
    const number = msisdn('07');
    await control('/__fake/faults', { status: 503, count: 1, path: 'accountholder' });
    const err = await mtn.recipient!(number, 'CI').catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(OperatorUnavailableError);
    expect((err as Error).message).not.toContain(number.slice(1));
  });
});

describe('MTN connector: what the customer reads (issue 28 §7)', () => {
  type Sent = { method: string; path: string; body: Record<string, unknown> };
  const notes = async (path: string, externalId: string) => {
    const sent = (await look<Sent[]>('/__fake/requests')).find(
      (r) => r.method === 'POST' && r.path === path && r.body.externalId === externalId,
    )!;
    return [sent.body.payerMessage, sent.body.payeeNote] as [string, string];
  };

  it('payerMessage and payeeNote carry the merchant and its reference within 160 plain characters, never our id', async () => {
    const req = payin({
      customerText: { merchant: 'Épicerie « Chez Awa » & Fils', reference: 'CMD-2024/0042' },
    });
    await mtn.requestCollection(req);
    const [payerMessage, payeeNote] = await notes('/collection/v1_0/requesttopay', req.transactionId);
    expect(payerMessage).toBe('Epicerie Chez Awa Fils CMD-2024/0042');
    expect(payeeNote).toBe(payerMessage);

    const long = payin({ customerText: { merchant: 'M'.repeat(300), reference: 'ORDER-1' } });
    await mtn.requestCollection(long);
    const [longMessage] = await notes('/collection/v1_0/requesttopay', long.transactionId);
    expect(longMessage).toHaveLength(160);
    expect(longMessage.endsWith(' ORDER-1')).toBe(true);
  });

  it('without a text (a direct use of the connector), a plain word: no pr_ or rf_ id on any side', async () => {
    const req = payin();
    await mtn.requestCollection(req);
    expect(await notes('/collection/v1_0/requesttopay', req.transactionId)).toEqual(['Payment', 'Payment']);
    const out = { ...payin(), operator: 'MTN' as const };
    await mtn.disburse(out);
    expect(await notes('/disbursement/v1_0/transfer', out.transactionId)).toEqual(['Payout', 'Payout']);
    const all = JSON.stringify(
      (await look<Sent[]>('/__fake/requests')).map((r) => [r.body?.payerMessage, r.body?.payeeNote]),
    );
    expect(all).not.toMatch(/pr_|rf_/);
  });
});

// Issue 43 §4: the connector sends only the fields MTN documents per endpoint
// (src/operators/connectors/mtn/wire.ts); the fake refuses the rest and keeps what it refused.
describe('MTN connector: only the documented fields, per endpoint (conformance)', () => {
  it('the rule: an unknown field, a missing one or an undocumented endpoint is refused', () => {
    const rtp = {
      amount: '1500',
      currency: 'XOF',
      externalId: 'pr_1',
      payer: { partyIdType: 'MSISDN', partyId: '2250501020304' },
      payerMessage: 'Payment',
      payeeNote: 'Payment',
    };
    expect(undocumented('POST', '/collection/v1_0/requesttopay', rtp)).toBeNull();
    expect(undocumented('POST', '/collection/v1_0/requesttopay', { ...rtp, customerMessage: 'x' })).toMatch(
      /customerMessage/,
    );
    expect(undocumented('POST', '/disbursement/v1_0/transfer', rtp)).toMatch(/payee|payer/);
    expect(undocumented('POST', '/collection/v2_0/requesttopay', rtp)).toMatch(/not a documented endpoint/);
    expect(undocumented('POST', '/collection/token/', undefined)).toBeNull();
    expect(undocumented('GET', '/collection/v1_0/requesttopay/abc', undefined)).toBeNull();
  });

  // Last in the file: what every test above made the connector send.
  it('every request this file made is one MTN documents', async () => {
    expect(await look<string[]>('/__fake/undocumented')).toEqual([]);
  });
});
