import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorStatus,
} from '../../../src/operators/gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type IncomingCallback,
} from '../../../src/operators/connectors/connector';
import { buildPawapayConnector } from '../../../src/operators/connectors/pawapay/config';
import { undocumented } from '../../../src/operators/connectors/pawapay/wire';
import type { PawapayConnector } from '../../../src/operators/connectors/pawapay/connector';
import { toProviderUuid } from '../../../src/operators/provider-ids';
import { spawnFake, type FakeProcess } from '../../fakes/spawn';
import { signPawapayCallback } from '../../fakes/pawapay/server';

// The pawaPay connector against the pawaPay fake (its own process, pawaPay's own routes, answers,
// statuses and RFC 9421-signed callbacks). Numbers: …567 completes, …039 fails, …129 stays pending.

const TOKEN = 'pawapay-contract-token';
const KEY_ID = 'PAWAPAY_CONTRACT_KEY';
const pawapayKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PAWAPAY_PRIVATE = pawapayKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PAWAPAY_PUBLIC = pawapayKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const MAIN = path.join(__dirname, '../../fakes/pawapay/main.ts');

const OK_CI = '+2250501020567';
const FAIL_CI = '+2250501020039';
const PENDING_CI = '+2250501020129';

let fake: FakeProcess;
let receiver: Server;
let receiverUrl: string;
let callbacks: IncomingCallback[] = [];
/** The gateway interface, plus the active configuration reader. */
type Pawapay = Connector &
  Pick<PawapayConnector, 'activeConfiguration'> &
  Required<Pick<Connector, 'recipient' | 'availability'>>;
let pawapay: Pawapay;

function build(
  over: { token?: string; timeoutMs?: number; baseUrl?: string; signing?: boolean } = {},
): Pawapay {
  const signer = over.signing ? merchantKeys : null;
  const c = buildPawapayConnector(
    {
      PAWAPAY_BASE_URL: over.baseUrl ?? fake.url,
      PAWAPAY_API_TOKEN: over.token ?? TOKEN,
      PAWAPAY_CALLBACK_PUBLIC_KEY: PAWAPAY_PUBLIC,
      PAWAPAY_CALLBACK_KEY_ID: KEY_ID,
      ...(signer
        ? {
            PAWAPAY_SIGNING_PRIVATE_KEY: signer.privateKey
              .export({ type: 'pkcs8', format: 'pem' })
              .toString(),
            PAWAPAY_SIGNING_KEY_ID: 'MERCHANT_KEY',
          }
        : {}),
    },
    { timeoutMs: over.timeoutMs ?? 5000, callbackBaseUrl: null },
  );
  if (!c) throw new Error('no connector');
  return c;
}
const merchantKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });

let seq = 0;
const newId = (prefix: 'pr' | 'rf') =>
  `${prefix}_${(Date.now().toString(16) + (++seq).toString(16).padStart(6, '0')).padStart(24, '0')}`;

const collection = (msisdn: string, over: Partial<CollectionRequest> = {}): CollectionRequest => ({
  transactionId: newId('pr'),
  operator: 'MTN',
  country: 'CI',
  msisdn,
  amount: 1500,
  currency: 'XOF',
  sandboxScenario: null,
  ...over,
});

const disbursement = (msisdn: string, over: Partial<DisbursementRequest> = {}): DisbursementRequest => ({
  transactionId: newId('pr'),
  operator: 'ORANGE',
  country: 'CI',
  msisdn,
  amount: 2000,
  currency: 'XOF',
  sandboxScenario: null,
  ...over,
});

async function until(read: () => Promise<OperatorStatus>, done: (s: OperatorStatus) => boolean) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const s = await read();
    if (done(s) || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const final = (s: OperatorStatus) => s.outcome === 'completed' || s.outcome === 'failed';

async function control(p: string, body: unknown = {}): Promise<unknown> {
  const res = await fetch(`${fake.url}/__fake/${p}`, {
    method: body === null ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === null ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
}

async function callbackFor(uuid: string): Promise<IncomingCallback> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const cb = callbacks.find((c) => c.rawBody.toString().includes(uuid));
    if (cb) return cb;
    if (Date.now() > deadline) throw new Error('no callback');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    void readBody(req).then((rawBody) => {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      callbacks.push({ method: req.method ?? 'POST', path: req.url ?? '/', headers, rawBody });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/provider-callbacks/pawapay`;
  fake = await spawnFake(MAIN, {
    FAKE_PAWAPAY_API_TOKEN: TOKEN,
    FAKE_PAWAPAY_SIGNING_KEY: PAWAPAY_PRIVATE,
    FAKE_PAWAPAY_KEY_ID: KEY_ID,
    FAKE_CALLBACK_URL: receiverUrl,
    FAKE_SETTLE_MS: '100',
  });
  pawapay = build();
});

afterAll(async () => {
  await fake?.stop();
  await new Promise<void>((r) => receiver?.close(() => r()));
});

beforeEach(() => {
  callbacks = [];
});

describe('pawaPay connector against the pawaPay fake', () => {
  test('deposit: ACCEPTED, then COMPLETED, and its signed callback verifies to our id', async () => {
    const req = collection(OK_CI);
    const first = await pawapay.requestCollection(req);
    expect(first.outcome).toBe('pending');
    const done = await until(() => pawapay.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    expect(done.operatorReference).toMatch(/^PT/);
    const cb = await callbackFor(toProviderUuid(req.transactionId));
    await expect(pawapay.verifyCallback(cb)).resolves.toMatchObject({
      kind: 'collection',
      id: req.transactionId,
    });
    await expect(pawapay.partnerCheck(req.transactionId, 'MTN', 'CI')).resolves.toMatchObject({
      collected: true,
    });
    // What pawaPay received: its own payload shape, amount as a string in major units.
    const received = (await control('received', null)) as Array<{
      path: string;
      body: Record<string, unknown>;
    }>;
    const sent = received.find(
      (r) => r.path === '/v2/deposits' && r.body.depositId === toProviderUuid(req.transactionId),
    );
    expect(sent?.body).toMatchObject({
      amount: '1500',
      currency: 'XOF',
      payer: { type: 'MMO', accountDetails: { phoneNumber: '2250501020567', provider: 'MTN_MOMO_CIV' } },
    });
  });

  test('Wave through pawaPay: the deposit answers the authorisation URL the customer is sent to', async () => {
    const req = collection(OK_CI, {
      operator: 'WAVE',
      successUrl: 'https://shop.example/ok',
      failureUrl: 'https://shop.example/ko',
    });
    const first = await pawapay.requestCollection(req);
    expect(first).toMatchObject({
      outcome: 'pending',
      paymentUrl: expect.stringMatching(/^https:\/\/pay\.wave\.example\//),
    });
    const received = (await control('received', null)) as Array<{
      path: string;
      body: Record<string, unknown>;
    }>;
    const sent = received.find(
      (r) => r.path === '/v2/deposits' && r.body.depositId === toProviderUuid(req.transactionId),
    );
    expect(sent?.body).toMatchObject({
      successfulUrl: 'https://shop.example/ok',
      failedUrl: 'https://shop.example/ko',
    });
    await expect(
      until(() => pawapay.collectionStatus(req.transactionId, 'WAVE', 'CI'), final),
    ).resolves.toMatchObject({
      outcome: 'completed',
    });
  });

  test('definitive refusals: FAILED with a mapped code, REJECTED at initiation, limits from active-conf', async () => {
    const req = collection(FAIL_CI);
    await pawapay.requestCollection(req);
    const done = await until(() => pawapay.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done).toMatchObject({ outcome: 'failed', failure: { code: 'DECLINED_BY_CUSTOMER' } });
    // A CI number sent for a Cameroonian provider: pawaPay REJECTS it (INVALID_PHONE_NUMBER).
    await expect(
      pawapay.requestCollection(collection(OK_CI, { country: 'CM', currency: 'XAF' })),
    ).rejects.toThrow(OperatorRejectedError);
    await expect(pawapay.requestCollection(collection(OK_CI, { amount: 50 }))).rejects.toThrow(
      /AMOUNT_OUT_OF_BOUNDS/,
    );
    // Not one of pawaPay's pairs for us (WAVE in CM does not exist).
    await expect(
      pawapay.requestCollection(collection(OK_CI, { operator: 'WAVE', country: 'CM', currency: 'XAF' })),
    ).rejects.toThrow(OperatorRejectedError);
  });

  test('timeout then success: the retry with the same depositId meets DUPLICATE_IGNORED, one deposit', async () => {
    const quick = build({ timeoutMs: 500 });
    const req = collection(OK_CI);
    await quick.activeConfiguration(); // read once: the hang is for the deposit itself
    await control('hang', { count: 1 });
    await expect(quick.requestCollection(req)).rejects.toThrow(OperatorUnavailableError);
    const again = await pawapay.requestCollection(req);
    expect(['pending', 'completed']).toContain(again.outcome);
    const done = await until(() => pawapay.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    const received = (await control('received', null)) as Array<{
      path: string;
      body: Record<string, unknown>;
    }>;
    const posts = received.filter(
      (r) => r.path === '/v2/deposits' && r.body.depositId === toProviderUuid(req.transactionId),
    );
    expect(posts).toHaveLength(2);
  });

  test('duplicate submission: same terms answer the status, other terms are a conflict', async () => {
    const req = collection(OK_CI);
    await pawapay.requestCollection(req);
    await until(() => pawapay.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    await expect(pawapay.requestCollection(req)).resolves.toMatchObject({ outcome: 'completed' });
    await expect(pawapay.requestCollection({ ...req, amount: 1600 })).rejects.toThrow(OperatorConflictError);
    await expect(pawapay.requestCollection({ ...req, msisdn: '+2250501020568' })).rejects.toThrow(
      OperatorConflictError,
    );
  });

  test('callback lost: the status read finds the final answer', async () => {
    await control('drop-callbacks', { count: 1 });
    const req = collection(OK_CI);
    await pawapay.requestCollection(req);
    const done = await until(() => pawapay.collectionStatus(req.transactionId, 'MTN', 'CI'), final);
    expect(done.outcome).toBe('completed');
    await new Promise((r) => setTimeout(r, 200));
    expect(callbacks.some((c) => c.rawBody.toString().includes(toProviderUuid(req.transactionId)))).toBe(
      false,
    );
  });

  test('callbacks forged, tampered, stale or re-signed by another key are refused; a replay signs the same content', async () => {
    const req = collection(OK_CI);
    await pawapay.requestCollection(req);
    const cb = await callbackFor(toProviderUuid(req.transactionId));
    const tampered = Buffer.from(cb.rawBody.toString().replace('"COMPLETED"', '"FAILED"'));
    // Body changed, digest left: the digest does not match.
    await expect(pawapay.verifyCallback({ ...cb, rawBody: tampered })).resolves.toBeNull();
    // Body changed and a fresh digest: the signature (which covers the digest) does not match.
    const redigested = signPawapayCallback(receiverUrl, tampered.toString(), PAWAPAY_PRIVATE, KEY_ID);
    await expect(
      pawapay.verifyCallback({
        ...cb,
        rawBody: tampered,
        headers: { ...cb.headers, 'content-digest': redigested['content-digest'] },
      }),
    ).resolves.toBeNull();
    // Signed by someone else's key.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const forged = signPawapayCallback(receiverUrl, cb.rawBody.toString(), other, KEY_ID);
    await expect(
      pawapay.verifyCallback({ ...cb, headers: { ...cb.headers, ...forged } }),
    ).resolves.toBeNull();
    // Signed by pawaPay's key ten minutes ago.
    const stale = signPawapayCallback(
      receiverUrl,
      cb.rawBody.toString(),
      PAWAPAY_PRIVATE,
      KEY_ID,
      Date.now() - 600_000,
    );
    await expect(pawapay.verifyCallback({ ...cb, headers: { ...cb.headers, ...stale } })).resolves.toBeNull();
    // Unsigned, or sent to another path than the one signed.
    await expect(pawapay.verifyCallback({ ...cb, headers: { host: cb.headers.host } })).resolves.toBeNull();
    await expect(pawapay.verifyCallback({ ...cb, path: '/provider-callbacks/other' })).resolves.toBeNull();
    // RFC 9421's own ECDSA encoding (r||s) verifies as well as pawaPay's sample's DER.
    const p1363 = signPawapayCallback(
      receiverUrl,
      cb.rawBody.toString(),
      PAWAPAY_PRIVATE,
      KEY_ID,
      Date.now(),
      'ieee-p1363',
    );
    await expect(
      pawapay.verifyCallback({ ...cb, headers: { ...cb.headers, ...p1363 } }),
    ).resolves.toMatchObject({ kind: 'collection', id: req.transactionId });
    // Another keyid than the configured one.
    const otherKeyId = signPawapayCallback(receiverUrl, cb.rawBody.toString(), PAWAPAY_PRIVATE, 'OTHER_KEY');
    await expect(
      pawapay.verifyCallback({ ...cb, headers: { ...cb.headers, ...otherKeyId } }),
    ).resolves.toBeNull();
    // The genuine one; the same again names the same signed content, which the callback door
    // (src/operators/callbacks.ts) acknowledges once.
    const genuine = await pawapay.verifyCallback(cb);
    expect(genuine).toMatchObject({ kind: 'collection', id: req.transactionId });
    expect((await pawapay.verifyCallback(cb))?.signed.content).toEqual(genuine?.signed.content);
    // A genuine signature over a body naming an id we did not make.
    const foreign = cb.rawBody
      .toString()
      .replace(toProviderUuid(req.transactionId), '8917c345-4791-4285-a416-62f24b6982db');
    const signedForeign = signPawapayCallback(receiverUrl, foreign, PAWAPAY_PRIVATE, KEY_ID);
    await expect(
      pawapay.verifyCallback({
        ...cb,
        rawBody: Buffer.from(foreign),
        headers: { ...cb.headers, ...signedForeign },
      }),
    ).resolves.toBeNull();
  });

  test('a revoked API token is an outage (pawaPay tokens are not refreshed), and works once restored', async () => {
    await control('revoke-token');
    try {
      await expect(pawapay.requestCollection(collection(OK_CI))).rejects.toThrow(
        /HTTP 403 AUTHENTICATION_ERROR/,
      );
      await expect(pawapay.collectionStatus(newId('pr'), 'MTN', 'CI')).rejects.toThrow(
        OperatorUnavailableError,
      );
    } finally {
      await control('restore-token');
    }
    await expect(build({ token: 'wrong' }).disbursementStatus(newId('pr'), 'MTN', 'CI')).rejects.toThrow(
      OperatorUnavailableError,
    );
    await expect(pawapay.requestCollection(collection(OK_CI))).resolves.toMatchObject({ outcome: 'pending' });
  });

  test('5xx and 429 are outages; the same request then goes through', async () => {
    const req = collection(OK_CI);
    await control('fail', { count: 1, status: 500 });
    await expect(pawapay.collectionStatus(req.transactionId, 'MTN', 'CI')).rejects.toThrow(
      OperatorUnavailableError,
    );
    await control('fail', { count: 1, status: 429 });
    await expect(pawapay.requestCollection(req)).rejects.toThrow(/HTTP 429/);
    await control('fail', { count: 1, status: 503 });
    await expect(pawapay.requestCollection(req)).rejects.toThrow(OperatorUnavailableError);
    await expect(pawapay.requestCollection(req)).resolves.toMatchObject({ outcome: 'pending' });
  });

  test('a lagging read side answers unknown, then the truth; a late settlement is read and called back', async () => {
    const req = collection(PENDING_CI);
    await pawapay.requestCollection(req);
    await control('read-lag', { count: 1 });
    await expect(pawapay.collectionStatus(req.transactionId, 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'unknown',
    });
    await expect(pawapay.collectionStatus(req.transactionId, 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'pending',
    });
    const uuid = toProviderUuid(req.transactionId);
    await control('settle', { kind: 'deposit', id: uuid, status: 'COMPLETED' });
    await expect(pawapay.collectionStatus(req.transactionId, 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'completed',
    });
    await expect(pawapay.verifyCallback(await callbackFor(uuid))).resolves.toMatchObject({
      kind: 'collection',
      id: req.transactionId,
    });
    const books = (await control('books', null)) as Array<{
      kind: string;
      depositId?: string;
      status: string;
    }>;
    expect(books.find((b) => b.depositId === uuid)).toMatchObject({ kind: 'deposit', status: 'COMPLETED' });
  });

  test('unknown ids read as unknown (NOT_FOUND), never failed', async () => {
    await expect(pawapay.collectionStatus(newId('pr'), 'MTN', 'CI')).resolves.toEqual({
      outcome: 'unknown',
      operatorReference: '',
    });
    await expect(pawapay.disbursementStatus(newId('pr'), 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'unknown',
    });
    await expect(pawapay.refundStatus(newId('rf'), 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'unknown',
    });
    await expect(pawapay.partnerCheck(newId('pr'), 'MTN', 'CI')).resolves.toEqual({ collected: false });
  });

  test('payouts: completed with a verified callback, failed with a mapped code', async () => {
    const ok = disbursement(OK_CI);
    expect((await pawapay.disburse(ok)).outcome).toBe('pending');
    await expect(
      until(() => pawapay.disbursementStatus(ok.transactionId, 'ORANGE', 'CI'), final),
    ).resolves.toMatchObject({
      outcome: 'completed',
    });
    const cb = await callbackFor(toProviderUuid(ok.transactionId));
    await expect(pawapay.verifyCallback(cb)).resolves.toMatchObject({
      kind: 'disbursement',
      id: ok.transactionId,
    });
    const ko = disbursement(FAIL_CI, {
      operator: 'MTN',
      country: 'CM',
      currency: 'XAF',
      msisdn: '+237670102039',
    });
    await pawapay.disburse(ko);
    await expect(
      until(() => pawapay.disbursementStatus(ko.transactionId, 'MTN', 'CM'), final),
    ).resolves.toMatchObject({
      outcome: 'failed',
      failure: { code: 'INVALID_MSISDN' },
    });
  });

  test('cancel: an ENQUEUED payout is failed as CANCELLED; a completed one answers completed; deposits only read', async () => {
    const held = disbursement(PENDING_CI);
    await pawapay.disburse(held);
    await expect(pawapay.cancel('disbursement', held.transactionId, 'ORANGE', 'CI')).resolves.toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    const paid = disbursement(OK_CI);
    await pawapay.disburse(paid);
    await until(() => pawapay.disbursementStatus(paid.transactionId, 'ORANGE', 'CI'), final);
    await expect(pawapay.cancel('disbursement', paid.transactionId, 'ORANGE', 'CI')).resolves.toMatchObject({
      outcome: 'completed',
    });
    const dep = collection(PENDING_CI);
    await pawapay.requestCollection(dep);
    await expect(pawapay.cancel('collection', dep.transactionId, 'MTN', 'CI')).resolves.toMatchObject({
      outcome: 'pending',
    });
  });

  test('refunds: partial refunds of a completed deposit, callback verified, over-refund refused', async () => {
    const dep = collection('+237670102567', { country: 'CM', currency: 'XAF', amount: 3000 });
    await pawapay.requestCollection(dep);
    await until(() => pawapay.collectionStatus(dep.transactionId, 'MTN', 'CM'), final);
    const rf = {
      refundId: newId('rf'),
      transactionId: dep.transactionId,
      operator: 'MTN' as const,
      country: 'CM' as const,
      amount: 2000,
      currency: 'XAF',
      sandboxScenario: null,
    };
    expect((await pawapay.refund(rf)).outcome).toBe('pending');
    await expect(until(() => pawapay.refundStatus(rf.refundId, 'MTN', 'CM'), final)).resolves.toMatchObject({
      outcome: 'completed',
    });
    await expect(
      pawapay.verifyCallback(await callbackFor(toProviderUuid(rf.refundId))),
    ).resolves.toMatchObject({
      kind: 'refund',
      id: rf.refundId,
    });
    await expect(pawapay.refund({ ...rf, refundId: newId('rf'), amount: 1500 })).rejects.toThrow(
      /AMOUNT_OUT_OF_BOUNDS/,
    );
    await expect(pawapay.refund({ ...rf, amount: 2500 })).rejects.toThrow(OperatorConflictError);
  });

  test('recipient (predict-provider), availability, active-conf and statements', async () => {
    await expect(pawapay.recipient('+2250701020567', 'CI')).resolves.toEqual({
      operator: 'ORANGE',
      country: 'CI',
      active: null,
      holderName: null,
    });
    await expect(pawapay.recipient('+237690102567', 'CM')).resolves.toMatchObject({ operator: 'ORANGE' });
    await expect(pawapay.recipient('+33612345678', 'CI')).resolves.toMatchObject({ operator: null });
    await control('availability', { provider: 'MTN_MOMO_CMR', operationType: 'PAYOUT', status: 'DELAYED' });
    await control('availability', { provider: 'MOOV_CIV', operationType: 'DEPOSIT', status: 'CLOSED' });
    try {
      const av = await pawapay.availability();
      expect(av).toContainEqual({ operator: 'MTN', country: 'CM', operation: 'payout', status: 'delayed' });
      expect(av).toContainEqual({ operator: 'MOOV', country: 'CI', operation: 'payin', status: 'closed' });
      expect(av).toContainEqual({
        operator: 'WAVE',
        country: 'CI',
        operation: 'refund',
        status: 'operational',
      });
      expect(av).toHaveLength(18);
      // A CLOSED provider's REJECTED is temporary: an outage, retried with the same id.
      await expect(pawapay.requestCollection(collection(OK_CI, { operator: 'MOOV' }))).rejects.toThrow(
        /PROVIDER_TEMPORARILY_UNAVAILABLE/,
      );
    } finally {
      await control('availability', {
        provider: 'MTN_MOMO_CMR',
        operationType: 'PAYOUT',
        status: 'OPERATIONAL',
      });
      await control('availability', {
        provider: 'MOOV_CIV',
        operationType: 'DEPOSIT',
        status: 'OPERATIONAL',
      });
    }
    const conf = await pawapay.activeConfiguration();
    expect(conf.countries.map((c) => c.country).sort()).toEqual(['CIV', 'CMR']);
    await expect(pawapay.statement('MTN', '2026-11-23')).rejects.toThrow(StatementsNotOfferedError);
  });

  test('configuration: no token no connector; a bad key or half a signing pair refuses to start', () => {
    expect(buildPawapayConnector({}, { timeoutMs: 1000 })).toBeNull();
    expect(() =>
      buildPawapayConnector(
        { PAWAPAY_API_TOKEN: TOKEN, PAWAPAY_CALLBACK_PUBLIC_KEY: 'not a key' },
        { timeoutMs: 1000 },
      ),
    ).toThrow(/PAWAPAY_CALLBACK_PUBLIC_KEY/);
    expect(() =>
      buildPawapayConnector({ PAWAPAY_API_TOKEN: TOKEN, PAWAPAY_SIGNING_KEY_ID: 'k' }, { timeoutMs: 1000 }),
    ).toThrow(/go together/);
    // Without the public key, every callback is refused.
    const blind = buildPawapayConnector(
      { PAWAPAY_API_TOKEN: TOKEN, PAWAPAY_BASE_URL: fake.url },
      { timeoutMs: 1000 },
    )!;
    const body = JSON.stringify({ depositId: toProviderUuid(newId('pr')), status: 'COMPLETED' });
    const headers = {
      host: new URL(receiverUrl).host,
      ...signPawapayCallback(receiverUrl, body, PAWAPAY_PRIVATE, KEY_ID),
    };
    return expect(
      blind.verifyCallback({
        method: 'POST',
        path: '/provider-callbacks/pawapay',
        headers,
        rawBody: Buffer.from(body),
      }),
    ).resolves.toBeNull();
  });

  test('signed financial requests: accepted when signed with our key, refused (outage) when not', async () => {
    const strict = await spawnFake(MAIN, {
      FAKE_PAWAPAY_API_TOKEN: TOKEN,
      FAKE_PAWAPAY_MERCHANT_PUBLIC_KEY: merchantKeys.publicKey
        .export({ type: 'spki', format: 'pem' })
        .toString(),
    });
    try {
      await expect(
        build({ baseUrl: strict.url, signing: true }).requestCollection(collection(OK_CI)),
      ).resolves.toMatchObject({
        outcome: 'pending',
      });
      await expect(build({ baseUrl: strict.url }).requestCollection(collection(OK_CI))).rejects.toThrow(
        /HTTP_SIGNATURE_ERROR/,
      );
    } finally {
      await strict.stop();
    }
  });
});

describe('pawaPay connector: what the customer reads (issue 28 §7)', () => {
  const sentBody = async (path: string, idName: string, id: string) => {
    const received = (await control('received', null)) as Array<{
      path: string;
      body: Record<string, unknown>;
    }>;
    return received.find((r) => r.path === path && r.body[idName] === toProviderUuid(id))?.body;
  };

  test('customerMessage: 4 to 22 letters, digits or spaces, the reference kept whole, never our id', async () => {
    const req = collection(OK_CI, {
      customerText: { merchant: 'Pâtisserie de la Côte d’Ivoire', reference: 'INV-0042' },
    });
    expect((await pawapay.requestCollection(req)).outcome).toBe('pending');
    const body = await sentBody('/v2/deposits', 'depositId', req.transactionId);
    expect(body?.customerMessage).toBe('Patisserie de INV 0042');
    expect(body?.customerMessage).toMatch(/^[A-Za-z0-9 ]{4,22}$/);

    const out = disbursement(OK_CI, {
      operator: 'MTN',
      customerText: { merchant: 'Shop', reference: 'PAYOUT-7' },
    });
    expect((await pawapay.disburse(out)).outcome).toBe('pending');
    expect((await sentBody('/v2/payouts', 'payoutId', out.transactionId))?.customerMessage).toBe(
      'Shop PAYOUT 7',
    );
  });

  test('a text that cannot fit pawaPay’s rule is left out (pawaPay shows our company name)', async () => {
    const req = collection(OK_CI, { customerText: { merchant: null, reference: '--' } });
    expect((await pawapay.requestCollection(req)).outcome).toBe('pending');
    const body = await sentBody('/v2/deposits', 'depositId', req.transactionId);
    expect(body).toBeDefined();
    expect(body).not.toHaveProperty('customerMessage');
    expect(JSON.stringify(body)).not.toMatch(/"customerMessage"/);
  });
});

// Issue 43 §4: pawaPay's live API failed every refund we sent (OPERATOR_REJECTED), because the body
// carried `customerMessage`, which its v2 reference documents for deposits and payouts only. The
// documented bodies live in src/operators/connectors/pawapay/wire.ts; the fake refuses the rest.
describe('pawaPay connector: only the documented fields, per endpoint (conformance)', () => {
  test('the rule: a refund with customerMessage, an unknown field or a bad limit is refused', () => {
    const refund = { refundId: toProviderUuid(newId('rf')), depositId: toProviderUuid(newId('pr')) };
    expect(undocumented('POST', '/v2/refunds', refund)).toBeNull();
    expect(undocumented('POST', '/v2/refunds', { ...refund, customerMessage: 'Shop INV 1' })).toMatch(
      /unrecognized key.*customerMessage/i,
    );
    const deposit = {
      depositId: toProviderUuid(newId('pr')),
      amount: '1000',
      currency: 'XOF',
      payer: { type: 'MMO', accountDetails: { phoneNumber: '2250501020304', provider: 'MTN_MOMO_CIV' } },
      customerMessage: 'Shop INV 1',
    };
    expect(undocumented('POST', '/v2/deposits', deposit)).toBeNull();
    expect(undocumented('POST', '/v2/deposits', { ...deposit, customerMessage: 'x' })).toMatch(
      /customerMessage/,
    );
    expect(undocumented('POST', '/v2/deposits', { ...deposit, note: 'x' })).toMatch(/note/);
    expect(undocumented('POST', '/v2/payouts/enqueue', {})).toMatch(/not a documented endpoint/);
    expect(undocumented('GET', '/v2/deposits/abc', undefined)).toBeNull();
  });

  test('a refund of a payin whose customer read a message sends none, and pawaPay accepts it', async () => {
    const customerText = { merchant: 'Shop', reference: 'INV-9' };
    const dep = collection(OK_CI, { customerText });
    await pawapay.requestCollection(dep);
    await until(() => pawapay.collectionStatus(dep.transactionId, 'MTN', 'CI'), final);
    const rf = {
      refundId: newId('rf'),
      transactionId: dep.transactionId,
      operator: 'MTN' as const,
      country: 'CI' as const,
      amount: 500,
      currency: 'XOF',
      sandboxScenario: null,
      customerText,
    };
    expect((await pawapay.refund(rf)).outcome).toBe('pending');
    const received = (await control('received', null)) as Array<{
      path: string;
      body: Record<string, unknown>;
    }>;
    const sent = received.find(
      (r) => r.path === '/v2/refunds' && r.body.refundId === toProviderUuid(rf.refundId),
    );
    expect(sent?.body).toBeDefined();
    expect(sent?.body).not.toHaveProperty('customerMessage');
  });

  // Last in the file: what every test above made the connector send.
  test('every request this file made is one pawaPay documents', async () => {
    expect(await control('undocumented', null)).toEqual([]);
    const received = (await control('received', null)) as Array<{ method: string; path: string }>;
    expect(received.filter((r) => r.method === 'POST').length).toBeGreaterThan(20);
  });
});
