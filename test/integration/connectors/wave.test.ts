import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorStatus,
} from '../../../src/operators/gateway';
import type { Connector, IncomingCallback } from '../../../src/operators/connectors/connector';
import { StatementsNotOfferedError } from '../../../src/operators/connectors/connector';
import { buildWaveConnector, waveConfigShape } from '../../../src/operators/connectors/wave/config';
import type { WaveConnector } from '../../../src/operators/connectors/wave/connector';
import { undocumented } from '../../../src/operators/connectors/wave/wire';
import { spawnFake, type FakeProcess } from '../../fakes/spawn';
import { signWave } from '../../fakes/wave/server';

// The Wave connector against the Wave fake (its own process, Wave's own routes and signatures).

const API_KEY = 'wave_ci_prod_contract_key';
const SECRET = 'wave_ci_WHS_contract_secret';

let fake: FakeProcess;
let receiver: Server;
let callbacks: IncomingCallback[] = [];
type Wave = Connector & Pick<WaveConnector, 'reversePayout'>;
let wave: Wave;
const refundOrigins = new Map<string, string>();

function build(overrides: { apiKey?: string; timeoutMs?: number } = {}): Wave {
  const c = buildWaveConnector(
    {
      WAVE_BASE_URL: fake.url,
      WAVE_API_KEY: overrides.apiKey ?? API_KEY,
      WAVE_WEBHOOK_SECRET: SECRET,
      WAVE_SUCCESS_URL: 'https://pay.example.com/wave/success',
      WAVE_ERROR_URL: 'https://pay.example.com/wave/error',
    },
    {
      timeoutMs: overrides.timeoutMs ?? 5000,
      callbackBaseUrl: null,
      refundOrigin: (id) => Promise.resolve(refundOrigins.get(id) ?? null),
    },
  );
  return c as Wave;
}

let seq = 0;
const newId = (prefix: 'pr' | 'rf') =>
  `${prefix}_${(Date.now().toString(16) + (++seq).toString(16).padStart(6, '0')).padStart(24, '0')}`;

const collection = (msisdn: string, over: Partial<CollectionRequest> = {}): CollectionRequest => ({
  transactionId: newId('pr'),
  operator: 'WAVE',
  country: 'CI',
  msisdn,
  amount: 1500,
  currency: 'XOF',
  sandboxScenario: null,
  ...over,
});

const disbursement = (msisdn: string, over: Partial<DisbursementRequest> = {}): DisbursementRequest => ({
  transactionId: newId('pr'),
  operator: 'WAVE',
  country: 'CI',
  msisdn,
  amount: 2000,
  currency: 'XOF',
  sandboxScenario: null,
  ...over,
});

async function until(
  read: () => Promise<OperatorStatus>,
  done: (s: OperatorStatus) => boolean,
): Promise<OperatorStatus> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const s = await read();
    if (done(s) || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function control(p: string, body: unknown = {}): Promise<void> {
  const res = await fetch(`${fake.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
}

async function fakeState(): Promise<{
  sessions: Array<{ client_reference: string }>;
  payouts: Array<{ client_reference: string }>;
}> {
  return (await (await fetch(`${fake.url}/__fake/state`)).json()) as never;
}

async function waitForCallback(ref: string): Promise<IncomingCallback> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const cb = callbacks.find((c) => c.rawBody.toString('utf8').includes(ref));
    if (cb) return cb;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no callback');
}

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      callbacks.push({
        method: req.method ?? 'POST',
        path: req.url ?? '/',
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
        ),
        rawBody: Buffer.concat(chunks),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  fake = await spawnFake(path.join(__dirname, '../../fakes/wave/main.ts'), {
    FAKE_WAVE_API_KEY: API_KEY,
    FAKE_WAVE_WEBHOOK_SECRET: SECRET,
    FAKE_CALLBACK_URL: `http://127.0.0.1:${port}/provider-callbacks/wave`,
  });
  wave = build();
}, 40_000);

afterAll(async () => {
  await fake?.stop();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});

beforeEach(() => {
  callbacks = [];
});

describe('wave connector: configuration', () => {
  it('is not built without an API key, and serves WAVE in CI only', async () => {
    expect(buildWaveConnector({}, { timeoutMs: 1000 })).toBeNull();
    const c: Connector = wave;
    expect(c.name).toBe('wave');
    expect(c.serves).toEqual([{ operator: 'WAVE', country: 'CI' }]);
    await expect(
      wave.requestCollection(collection('+2250700000000', { operator: 'MTN' })),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    await expect(wave.statement('WAVE', '2026-11-23')).rejects.toBeInstanceOf(StatementsNotOfferedError);
  });
});

describe('wave connector: payins (checkout sessions)', () => {
  it('success: a session with wave_launch_url as paymentUrl, then completed; its signed webhook verifies', async () => {
    const req = collection('+2250700000000');
    const first = await wave.requestCollection(req);
    expect(first.outcome).toBe('pending');
    expect(first.paymentUrl).toMatch(/^https:\/\/pay\.wave\.com\/c\/cos-/);
    const done = await until(
      () => wave.collectionStatus(req.transactionId, 'WAVE', 'CI'),
      (s) => s.outcome !== 'pending',
    );
    expect(done.outcome).toBe('completed');
    expect(done.operatorReference).toMatch(/^T/);
    expect(await wave.partnerCheck(req.transactionId, 'WAVE', 'CI')).toMatchObject({ collected: true });
    const cb = await waitForCallback(req.transactionId);
    expect(await wave.verifyCallback(cb)).toMatchObject({ kind: 'collection', id: req.transactionId });
  });

  it('uses the payin’s own return URLs when it names them, and refuses URLs Wave refuses', async () => {
    const req = collection('+2250700000022', {
      successUrl: 'https://merchant.example/ok',
      failureUrl: 'https://merchant.example/ko',
    });
    await wave.requestCollection(req);
    const received = (await (await fetch(`${fake.url}/__fake/state`)).json()) as {
      sessions: Array<{ client_reference: string; success_url: string; error_url: string }>;
    };
    expect(received.sessions.find((s) => s.client_reference === req.transactionId)).toMatchObject({
      success_url: 'https://merchant.example/ok',
      error_url: 'https://merchant.example/ko',
    });
    await expect(
      wave.requestCollection(collection('+2250700000000', { successUrl: 'http://insecure.example/ok' })),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
  });

  it('a session’s customer (no URLs of its own) returns to our https checkout page, else to the configured defaults', async () => {
    const withPage = buildWaveConnector(
      {
        WAVE_BASE_URL: fake.url,
        WAVE_API_KEY: API_KEY,
        WAVE_SUCCESS_URL: 'https://pay.example.com/wave/success',
        WAVE_ERROR_URL: 'https://pay.example.com/wave/error',
      },
      { timeoutMs: 1500, checkoutPage: (id) => `https://pay.example.com/checkout/${id}` },
    )!;
    const session = collection('+2250700000022');
    const direct = collection('+2250700000022', {
      successUrl: 'https://merchant.example/ok',
      failureUrl: 'https://merchant.example/ko',
    });
    const defaults = collection('+2250700000022');
    await withPage.requestCollection(session);
    await withPage.requestCollection(direct);
    await wave.requestCollection(defaults);
    const { sessions } = (await (await fetch(`${fake.url}/__fake/state`)).json()) as {
      sessions: Array<{ client_reference: string; success_url: string; error_url: string }>;
    };
    const of = (id: string) => sessions.find((s) => s.client_reference === id);
    expect(of(session.transactionId)).toMatchObject({
      success_url: `https://pay.example.com/checkout/${session.transactionId}`,
      error_url: `https://pay.example.com/checkout/${session.transactionId}`,
    });
    expect(of(direct.transactionId)).toMatchObject({ success_url: 'https://merchant.example/ok' });
    expect(of(defaults.transactionId)).toMatchObject({ success_url: 'https://pay.example.com/wave/success' });
  });

  it('refuses http default return URLs at start: Wave takes https only', () => {
    expect(
      z.object(waveConfigShape).safeParse({ WAVE_SUCCESS_URL: 'http://pay.example.com/ok' }).success,
    ).toBe(false);
    expect(
      z.object(waveConfigShape).safeParse({ WAVE_SUCCESS_URL: 'https://pay.example.com/ok' }).success,
    ).toBe(true);
  });

  it('definitive refusal: the payment fails and the session expires → failed INSUFFICIENT_FUNDS', async () => {
    const req = collection('+2250700000011');
    expect((await wave.requestCollection(req)).outcome).toBe('pending');
    const s = await until(
      () => wave.collectionStatus(req.transactionId, 'WAVE', 'CI'),
      (x) => x.outcome !== 'pending',
    );
    expect(s).toMatchObject({ outcome: 'failed', failure: { code: 'INSUFFICIENT_FUNDS' } });
    expect(JSON.stringify(s)).not.toContain('0700000011');
    const cb = await waitForCallback(req.transactionId);
    expect(await wave.verifyCallback(cb)).toMatchObject({ kind: 'collection', id: req.transactionId });
  });

  it('a pending session stays pending; cancel expires it → failed CANCELLED; a paid one cannot be cancelled', async () => {
    const req = collection('+2250700000022');
    await wave.requestCollection(req);
    await new Promise((r) => setTimeout(r, 250));
    expect((await wave.collectionStatus(req.transactionId, 'WAVE', 'CI')).outcome).toBe('pending');
    expect(await wave.cancel('collection', req.transactionId, 'WAVE', 'CI')).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
    expect((await wave.collectionStatus(req.transactionId, 'WAVE', 'CI')).outcome).toBe('failed');

    const paid = collection('+2250700000000');
    await wave.requestCollection(paid);
    await until(
      () => wave.collectionStatus(paid.transactionId, 'WAVE', 'CI'),
      (s) => s.outcome === 'completed',
    );
    expect((await wave.cancel('collection', paid.transactionId, 'WAVE', 'CI')).outcome).toBe('completed');
  });

  it('timeout then success: the lost answer is unavailable, the retry with the same id finds the one session', async () => {
    const req = collection('+2250700000022');
    // Wave creates the session but its answer comes too late.
    await control('/__fake/faults', { count: 1, hangMs: 2500, path: '/v1/checkout/sessions' });
    await expect(build({ timeoutMs: 300 }).requestCollection(req)).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    const again = await wave.requestCollection(req);
    expect(again.outcome).toBe('pending');
    const held = (await fakeState()).sessions.filter((s) => s.client_reference === req.transactionId);
    expect(held).toHaveLength(1);
    expect(again.operatorReference).toBe((held[0] as unknown as { id: string }).id);
  });

  it('duplicate submission: concurrent requests with one id make one session (Idempotency-Key)', async () => {
    const req = collection('+2250700000022');
    const [a, b] = await Promise.all([wave.requestCollection(req), wave.requestCollection(req)]);
    expect(a.operatorReference).toBe(b.operatorReference);
    expect((await fakeState()).sessions.filter((s) => s.client_reference === req.transactionId)).toHaveLength(
      1,
    );
    const keys = (
      (await (await fetch(`${fake.url}/__fake/received`)).json()) as Array<{
        path: string;
        idempotencyKey: string | null;
      }>
    )
      .filter((r) => r.path === '/v1/checkout/sessions')
      .map((r) => r.idempotencyKey);
    expect(keys).toContain(req.transactionId);
  });

  it('same id with other terms → conflict', async () => {
    const req = collection('+2250700000022');
    await wave.requestCollection(req);
    await expect(wave.requestCollection({ ...req, amount: 999 })).rejects.toBeInstanceOf(
      OperatorConflictError,
    );
  });

  it('callback lost: the status read finds the payment', async () => {
    await control('/__fake/drop-callbacks', { count: 1 });
    const req = collection('+2250700000000');
    await wave.requestCollection(req);
    const s = await until(
      () => wave.collectionStatus(req.transactionId, 'WAVE', 'CI'),
      (x) => x.outcome !== 'pending',
    );
    expect(s.outcome).toBe('completed');
    await new Promise((r) => setTimeout(r, 150));
    expect(callbacks.some((c) => c.rawBody.toString().includes(req.transactionId))).toBe(false);
  });

  it('forged, replayed, stale, unsigned or wrongly signed webhooks → null', async () => {
    const req = collection('+2250700000000');
    await wave.requestCollection(req);
    const cb = await waitForCallback(req.transactionId);
    // The genuine webhook verifies; the very same bytes again name the same signed content, which
    // the callback door (src/operators/callbacks.ts) acknowledges once.
    const fresh = build();
    const genuine = await fresh.verifyCallback(cb);
    expect(genuine).toMatchObject({ kind: 'collection', id: req.transactionId });
    expect((await fresh.verifyCallback(cb))?.signed.content).toEqual(genuine?.signed.content);
    const forged = {
      ...cb,
      rawBody: Buffer.from(cb.rawBody.toString().replace(req.transactionId, newId('pr'))),
    };
    expect(await build().verifyCallback(forged)).toBeNull();
    expect(await build().verifyCallback({ ...cb, headers: {} })).toBeNull();
    const body = cb.rawBody.toString();
    const stale = Math.floor(Date.now() / 1000) - 3600;
    expect(
      await build().verifyCallback({
        ...cb,
        headers: { 'wave-signature': `t=${stale},v1=${signWave(SECRET, stale, body)}` },
      }),
    ).toBeNull();
    const now = Math.floor(Date.now() / 1000);
    expect(
      await build().verifyCallback({
        ...cb,
        headers: { 'wave-signature': `t=${now},v1=${signWave('other', now, body)}` },
      }),
    ).toBeNull();
    // Several v1 (secret rotation): one matching is enough.
    expect(
      await build().verifyCallback({
        ...cb,
        headers: {
          'wave-signature': `t=${now},v1=${signWave('old', now, body)},v1=${signWave(SECRET, now, body)}`,
        },
      }),
    ).toMatchObject({ kind: 'collection', id: req.transactionId });
  });

  it('5xx and 429 are unavailable (retry), then the same call works', async () => {
    const req = collection('+2250700000022');
    await control('/__fake/faults', { count: 1, status: 500 });
    await expect(wave.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    await control('/__fake/faults', { count: 1, status: 429 });
    await expect(wave.collectionStatus(req.transactionId, 'WAVE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    await control('/__fake/faults', { count: 1, status: 503 });
    await expect(wave.disburse(disbursement('+2250700000000'))).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    expect((await wave.requestCollection(req)).outcome).toBe('pending');
  });

  it('unknown ids → unknown, never failed', async () => {
    expect((await wave.collectionStatus(newId('pr'), 'WAVE', 'CI')).outcome).toBe('unknown');
    expect((await wave.disbursementStatus(newId('pr'), 'WAVE', 'CI')).outcome).toBe('unknown');
    const rf = newId('rf');
    refundOrigins.set(rf, newId('pr'));
    expect((await wave.refundStatus(rf, 'WAVE', 'CI')).outcome).toBe('unknown');
    expect((await wave.cancel('collection', newId('pr'), 'WAVE', 'CI')).outcome).toBe('unknown');
    expect(await wave.partnerCheck(newId('pr'), 'WAVE', 'CI')).toEqual({ collected: false });
  });
});

describe('wave connector: refunds', () => {
  it('refunds a paid session in full; refundStatus reads it on the payin’s session; partial → rejected', async () => {
    const req = collection('+2250700000000');
    await wave.requestCollection(req);
    await until(
      () => wave.collectionStatus(req.transactionId, 'WAVE', 'CI'),
      (s) => s.outcome === 'completed',
    );
    const base = {
      transactionId: req.transactionId,
      operator: 'WAVE' as const,
      country: 'CI' as const,
      currency: 'XOF',
      sandboxScenario: null,
    };
    await expect(wave.refund({ ...base, refundId: newId('rf'), amount: 500 })).rejects.toBeInstanceOf(
      OperatorRejectedError,
    );
    const rf = newId('rf');
    refundOrigins.set(rf, req.transactionId);
    expect((await wave.refund({ ...base, refundId: rf, amount: 1500 })).outcome).toBe('completed');
    // A retry (answer lost) finds the refund made, and does not refund twice.
    expect((await wave.refund({ ...base, refundId: rf, amount: 1500 })).outcome).toBe('completed');
    expect((await wave.refundStatus(rf, 'WAVE', 'CI')).outcome).toBe('completed');
    // The payin itself stays collected.
    expect((await wave.collectionStatus(req.transactionId, 'WAVE', 'CI')).outcome).toBe('completed');
    // The refund's answer lost: unavailable; the retry with the same id answers completed.
    const lost = collection('+2250700000000');
    await wave.requestCollection(lost);
    await until(
      () => wave.collectionStatus(lost.transactionId, 'WAVE', 'CI'),
      (s) => s.outcome === 'completed',
    );
    const session = (await wave.collectionStatus(lost.transactionId, 'WAVE', 'CI')).operatorReference;
    expect(session).toMatch(/^T/);
    const state = (await fakeState()) as unknown as {
      sessions: Array<{ id: string; client_reference: string }>;
    };
    const cos = state.sessions.find((x) => x.client_reference === lost.transactionId)!.id;
    await control('/__fake/faults', { count: 1, hangMs: 2500, path: `/v1/checkout/sessions/${cos}/refund` });
    const rfLost = { ...base, transactionId: lost.transactionId, refundId: newId('rf'), amount: 1500 };
    await expect(build({ timeoutMs: 300 }).refund(rfLost)).rejects.toBeInstanceOf(OperatorUnavailableError);
    expect((await wave.refund(rfLost)).outcome).toBe('completed');
    // No origin known (yet): unavailable, not a guess.
    await expect(wave.refundStatus(newId('rf'), 'WAVE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
  });

  it('an unpaid session cannot be refunded', async () => {
    const req = collection('+2250700000022');
    await wave.requestCollection(req);
    await expect(
      wave.refund({
        refundId: newId('rf'),
        transactionId: req.transactionId,
        operator: 'WAVE',
        country: 'CI',
        amount: 1500,
        currency: 'XOF',
        sandboxScenario: null,
      }),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
  });
});

describe('wave connector: payouts', () => {
  it('success: processing then succeeded; the idempotency-key is our id', async () => {
    const req = disbursement('+2250700000000');
    expect((await wave.disburse(req)).outcome).toBe('pending');
    const s = await until(
      () => wave.disbursementStatus(req.transactionId, 'WAVE', 'CI'),
      (x) => x.outcome !== 'pending',
    );
    expect(s.outcome).toBe('completed');
    expect(s.operatorReference).toMatch(/^pt-/);
    const keys = (
      (await (await fetch(`${fake.url}/__fake/received`)).json()) as Array<{
        path: string;
        idempotencyKey: string | null;
      }>
    )
      .filter((r) => r.path === '/v1/payout')
      .map((r) => r.idempotencyKey);
    expect(keys).toContain(req.transactionId);
  });

  it('definitive refusal: failed with Wave’s payout_error mapped', async () => {
    const req = disbursement('+2250700000011');
    expect(await wave.disburse(req)).toMatchObject({
      outcome: 'failed',
      failure: { code: 'PAYEE_REJECTED' },
    });
    expect(await wave.disbursementStatus(req.transactionId, 'WAVE', 'CI')).toMatchObject({
      outcome: 'failed',
    });
  });

  it('pending payout: cancel is a status read that confirms nothing', async () => {
    const req = disbursement('+2250700000022');
    await wave.disburse(req);
    expect((await wave.cancel('disbursement', req.transactionId, 'WAVE', 'CI')).outcome).toBe('pending');
  });

  it('timeout then success, and duplicate submission: one payout', async () => {
    const req = disbursement('+2250700000000');
    await control('/__fake/faults', { count: 1, hangMs: 2500, path: '/v1/payout' });
    await expect(build({ timeoutMs: 300 }).disburse(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    const [a, b] = await Promise.all([wave.disburse(req), wave.disburse(req)]);
    expect(a.operatorReference).toBe(b.operatorReference);
    expect((await fakeState()).payouts.filter((p) => p.client_reference === req.transactionId)).toHaveLength(
      1,
    );
    await expect(wave.disburse({ ...req, amount: 1 })).rejects.toBeInstanceOf(OperatorConflictError);
    const twice = disbursement('+2250700000022');
    const [c, d] = await Promise.all([wave.disburse(twice), wave.disburse(twice)]);
    expect(c.operatorReference).toBe(d.operatorReference);
    expect(
      (await fakeState()).payouts.filter((p) => p.client_reference === twice.transactionId),
    ).toHaveLength(1);
  });

  it('reversal of a completed payout → failed CANCELLED (money back)', async () => {
    const req = disbursement('+2250700000000');
    await wave.disburse(req);
    await until(
      () => wave.disbursementStatus(req.transactionId, 'WAVE', 'CI'),
      (s) => s.outcome === 'completed',
    );
    expect(await wave.reversePayout(req.transactionId)).toMatchObject({
      outcome: 'failed',
      failure: { code: 'CANCELLED' },
    });
  });
});

describe('wave connector: API keys', () => {
  it('a wrong or revoked key is unavailable (ours to fix, retried), never a refusal of the payment', async () => {
    const wrong = build({ apiKey: 'wave_ci_prod_wrong' });
    await expect(wrong.collectionStatus(newId('pr'), 'WAVE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    const wrongDirect = buildWaveConnector(
      { WAVE_BASE_URL: fake.url, WAVE_API_KEY: 'wave_ci_prod_wrong', WAVE_PAYOUT_API_KEY: 'x' },
      { timeoutMs: 1000 },
    ) as Wave;
    await expect(wrongDirect.disburse(disbursement('+2250700000000'))).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    // Revoked at Wave (last test: the fake refuses every key afterwards).
    await control('/__fake/expire-keys');
    await expect(wave.disbursementStatus(newId('pr'), 'WAVE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
  });
});

// Issue 43 §4: the connector sends only the fields Wave documents per endpoint
// (src/operators/connectors/wave/wire.ts); the fake refuses the rest and keeps what it refused.
describe('wave connector: only the documented fields, per endpoint (conformance)', () => {
  it('the rule: an unknown field, a bad limit or an undocumented endpoint is refused', () => {
    const payout = {
      currency: 'XOF',
      receive_amount: '1000',
      mobile: '+2250700000001',
      client_reference: 'po_1',
    };
    expect(undocumented('POST', '/v1/payout', payout)).toBeNull();
    expect(undocumented('POST', '/v1/payout', { ...payout, customerMessage: 'x' })).toMatch(
      /customerMessage/,
    );
    expect(undocumented('POST', '/v1/payout', { ...payout, payment_reason: 'x'.repeat(41) })).toMatch(
      /payment_reason/,
    );
    expect(undocumented('POST', '/v1/payout', { ...payout, mobile: '0700000001' })).toMatch(/mobile/);
    expect(undocumented('POST', '/v1/checkout/sessions/cos_1/refund', undefined)).toBeNull();
    expect(undocumented('POST', '/v1/checkout/sessions/cos_1/refund', { amount: '10' })).toMatch(/amount/);
    expect(undocumented('POST', '/v1/refunds', {})).toMatch(/not a documented endpoint/);
  });

  // Last in the file: what every test above made the connector send.
  it('every request this file made is one Wave documents', async () => {
    expect(await (await fetch(`${fake.url}/__fake/undocumented`)).json()).toEqual([]);
  });
});
