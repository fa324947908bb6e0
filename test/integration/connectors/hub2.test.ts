import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Connection } from 'mongoose';
import { isCustomerFailure } from '../../../src/domain/failures';
import {
  OperatorNotTakenError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorStatus,
  type RefundRequest,
} from '../../../src/operators/gateway';
import {
  StatementsNotOfferedError,
  type Connector,
  type IncomingCallback,
} from '../../../src/operators/connectors/connector';
import { buildHub2Connector } from '../../../src/operators/connectors/hub2/config';
import { undocumented } from '../../../src/operators/connectors/hub2/wire';
import { Hub2JournalStore } from '../../../src/persistence/hub2-journal';
import { spawnFake, type FakeProcess } from '../../fakes/spawn';
import { signHub2 } from '../../fakes/hub2/server';
import { connectTestMongo } from '../../helpers/stack';

// The Hub2 connector against the Hub2 fake (its own process, Hub2's own routes, headers and
// signatures), with its journal in the test database.

const API_KEY = 'hub2_contract_key';
const MERCHANT = 'merchant-contract';
const SECRET = 'hub2_contract_webhook_secret';

let fake: FakeProcess;
let receiver: Server;
let callbacks: IncomingCallback[] = [];
let mongo: Connection;
let journal: Hub2JournalStore;
let hub2: Connector;
const payers = new Map<string, string>();

function build(
  over: { apiKey?: string; timeoutMs?: number; baseUrl?: string; secret?: string } = {},
): Connector {
  return buildHub2Connector(
    {
      HUB2_BASE_URL: over.baseUrl ?? fake.url,
      HUB2_API_KEY: over.apiKey ?? API_KEY,
      HUB2_MERCHANT_ID: MERCHANT,
      HUB2_ENVIRONMENT: 'sandbox',
      HUB2_WEBHOOK_SECRET: over.secret ?? SECRET,
      HUB2_BUSINESS_NAME: 'Momo Payments',
    },
    {
      timeoutMs: over.timeoutMs ?? 5000,
      journal,
      payerOfRefund: (id) => Promise.resolve(payers.get(id) ?? null),
    },
  )!;
}

let seq = 0;
const newId = (prefix: 'pr' | 'rf') =>
  `${prefix}_${(Date.now().toString(16) + (++seq).toString(16).padStart(6, '0')).padStart(24, '0')}`;

const collection = (msisdn: string, over: Partial<CollectionRequest> = {}): CollectionRequest => ({
  transactionId: newId('pr'),
  operator: 'ORANGE',
  country: 'CI',
  msisdn,
  amount: 1500,
  currency: 'XOF',
  otp: '482913',
  sandboxScenario: null,
  customerText: { merchant: 'Boutique Céleste', reference: 'order-77' },
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
const final = (s: OperatorStatus) => s.outcome === 'completed' || s.outcome === 'failed';

async function control(p: string, body: unknown = {}): Promise<void> {
  const res = await fetch(`${fake.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
}

interface FakeState {
  intents: Array<{ id: string; purchaseReference: string; payments: unknown[] }>;
  transfers: Array<{ reference: string; destination: { msisdn: string; provider: string } }>;
}
const fakeState = async (): Promise<FakeState> =>
  (await (await fetch(`${fake.url}/__fake/state`)).json()) as FakeState;
const received = async (): Promise<Array<{ method: string; path: string }>> =>
  (await (await fetch(`${fake.url}/__fake/received`)).json()) as never;

/** The URL of a port nobody listens on (a server's, closed). */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
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
  mongo = await connectTestMongo();
  journal = Hub2JournalStore.on(mongo);
  await journal.init();
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
  fake = await spawnFake(path.join(__dirname, '../../fakes/hub2/main.ts'), {
    FAKE_HUB2_API_KEY: API_KEY,
    FAKE_HUB2_MERCHANT_ID: MERCHANT,
    FAKE_HUB2_WEBHOOK_SECRET: SECRET,
    FAKE_CALLBACK_URL: `http://127.0.0.1:${port}/provider-callbacks/hub2`,
  });
  hub2 = build();
}, 40_000);

afterAll(async () => {
  await fake?.stop();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await mongo?.close();
});

beforeEach(() => {
  callbacks = [];
});

describe('hub2 connector: configuration', () => {
  it('is not built without an API key and merchant id; serves ORANGE CI, ORANGE CM, MOOV CI', async () => {
    expect(buildHub2Connector({}, { timeoutMs: 1000, journal })).toBeNull();
    expect(buildHub2Connector({ HUB2_API_KEY: 'k' }, { timeoutMs: 1000, journal })).toBeNull();
    expect(hub2.name).toBe('hub2');
    expect(hub2.serves).toEqual([
      { operator: 'ORANGE', country: 'CI' },
      { operator: 'ORANGE', country: 'CM' },
      { operator: 'MOOV', country: 'CI' },
    ]);
    await expect(
      hub2.requestCollection(collection('+2250700000000', { operator: 'MTN' })),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    await expect(hub2.statement('ORANGE', '2026-11-23')).rejects.toBeInstanceOf(StatementsNotOfferedError);
  });

  it("refuses amounts outside Hub2's published limits before sending anything", async () => {
    const before = (await received()).length;
    // Orange CM payins: 500 to 500 000 XAF.
    await expect(
      hub2.requestCollection(collection('+237690000000', { country: 'CM', currency: 'XAF', amount: 400 })),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    // Payouts: a multiple of 5, within the provider's min and max.
    await expect(hub2.disburse(disbursement('+2250700000000', { amount: 2002 }))).rejects.toBeInstanceOf(
      OperatorRejectedError,
    );
    await expect(
      hub2.disburse(disbursement('+2250100000000', { operator: 'MOOV', amount: 300 })),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    expect((await received()).length).toBe(before);
  });
});

describe('hub2 connector: payins (a PaymentIntent, one attempt)', () => {
  it('Orange CI with its OTP: pending, then completed; its signed webhook verifies', async () => {
    const req = collection('+2250700000000');
    const first = await hub2.requestCollection(req);
    expect(first.outcome).toBe('pending');
    // Without the OTP the fake holds an Orange CI attempt at action_required: completion proves it went up front.
    const done = await until(() => hub2.collectionStatus(req.transactionId, 'ORANGE', 'CI'), final);
    expect(done.outcome).toBe('completed');
    expect(done.operatorReference).toMatch(/^pa_/);
    const cb = await waitForCallback(req.transactionId);
    const verified = await hub2.verifyCallback(cb);
    expect(verified).toMatchObject({ kind: 'collection', id: req.transactionId });
    expect(verified!.signed.content).toEqual(cb.rawBody);
    expect(verified!.signed.acceptedUntil).toBeGreaterThan(Date.now() / 1000);
    const intents = (await fakeState()).intents.filter((i) => i.purchaseReference === req.transactionId);
    expect(intents).toHaveLength(1);
    expect(intents[0]!.payments).toHaveLength(1);
  });

  it('Orange CM in XAF completes', async () => {
    const req = collection('+237690000000', { country: 'CM', currency: 'XAF', amount: 5000 });
    delete req.otp;
    await hub2.requestCollection(req);
    expect((await until(() => hub2.collectionStatus(req.transactionId, 'ORANGE', 'CM'), final)).outcome).toBe(
      'completed',
    );
  });

  it('Moov CI refused by the customer’s wallet: failed with a customer failure cause', async () => {
    const req = collection('+2250100000011', { operator: 'MOOV' });
    delete req.otp;
    await hub2.requestCollection(req);
    const s = await until(() => hub2.collectionStatus(req.transactionId, 'MOOV', 'CI'), final);
    expect(s.outcome).toBe('failed');
    expect(s.failure!.code).toBe('INSUFFICIENT_FUNDS');
    expect(isCustomerFailure(s.failure!.code)).toBe(true);
  });

  it('status by our id is unknown with no journal entry, and with an intent but no attempt marker', async () => {
    const before = (await received()).length;
    expect((await hub2.collectionStatus(newId('pr'), 'ORANGE', 'CI')).outcome).toBe('unknown');
    const id = newId('pr');
    await journal.insertOnce({ key: `collection:${id}`, intentId: 'pi_abandoned', token: 't' });
    expect((await hub2.collectionStatus(id, 'ORANGE', 'CI')).outcome).toBe('unknown');
    // Nothing was attempted, so nothing is asked of Hub2.
    expect((await received()).length).toBe(before);
  });

  it('a lost answer on the attempt: unavailable, then the retry reads instead of attempting again', async () => {
    const slow = build({ timeoutMs: 300 });
    const req = collection('+2250700000000');
    await control('/__fake/faults', { count: 1, hangMs: 1000, path: '/payments$' });
    const lost = slow.requestCollection(req);
    await expect(lost).rejects.toBeInstanceOf(OperatorUnavailableError);
    await expect(lost).rejects.not.toBeInstanceOf(OperatorNotTakenError);
    const retried = await hub2.requestCollection(req);
    expect(['pending', 'completed']).toContain(retried.outcome);
    expect((await until(() => hub2.collectionStatus(req.transactionId, 'ORANGE', 'CI'), final)).outcome).toBe(
      'completed',
    );
    const intents = (await fakeState()).intents.filter((i) => i.purchaseReference === req.transactionId);
    expect(intents).toHaveLength(1);
    expect(intents[0]!.payments).toHaveLength(1);
  });

  it('a lost answer on the intent: the second intent is used once and the first is left without an attempt', async () => {
    const slow = build({ timeoutMs: 300 });
    const req = collection('+2250700000000');
    await control('/__fake/faults', { count: 1, hangMs: 1000, path: '^/payment-intents$' });
    await expect(slow.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    await hub2.requestCollection(req);
    expect((await until(() => hub2.collectionStatus(req.transactionId, 'ORANGE', 'CI'), final)).outcome).toBe(
      'completed',
    );
    await new Promise((r) => setTimeout(r, 1000));
    const intents = (await fakeState()).intents.filter((i) => i.purchaseReference === req.transactionId);
    expect(intents.map((i) => i.payments.length).sort()).toEqual([0, 1]);
  });

  it('an attempt sent before and not seen at Hub2 is never sent again: the answer is unavailable', async () => {
    const req = collection('+2250700000000');
    await control('/__fake/faults', { count: 1, status: 500, path: '/payments$' });
    await expect(hub2.requestCollection(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    // A 500 proves nothing either way: the marker stays and the retry only reads.
    await expect(hub2.requestCollection(req)).rejects.toThrow(/never sent twice/);
    expect((await hub2.collectionStatus(req.transactionId, 'ORANGE', 'CI')).outcome).toBe('unknown');
  });

  it('five processes sending one payin and one payout at once: one attempt, one transfer', async () => {
    // Each its own connector, as a retry, a second replica or a workflow taking over would be; the
    // journal's insert-once keys in the real store decide which one sends.
    const processes = Array.from({ length: 5 }, () => build());
    const payin = collection('+2250700000000');
    const payout = disbursement('+2250700000000');
    const answers = await Promise.allSettled(
      processes.flatMap((p) => [p.requestCollection(payin), p.disburse(payout)]),
    );
    // Those that found another's marker answer "unavailable" (retry later), never another send.
    for (const a of answers)
      if (a.status === 'rejected') expect(a.reason).toBeInstanceOf(OperatorUnavailableError);
    expect(answers.some((a) => a.status === 'fulfilled')).toBe(true);
    expect(
      (await until(() => hub2.collectionStatus(payin.transactionId, 'ORANGE', 'CI'), final)).outcome,
    ).toBe('completed');
    await new Promise((r) => setTimeout(r, 500));
    const state = await fakeState();
    const intents = state.intents.filter((i) => i.purchaseReference === payin.transactionId);
    expect(intents.reduce((n, i) => n + i.payments.length, 0)).toBe(1);
    expect(state.transfers.filter((t) => t.reference === payout.transactionId)).toHaveLength(1);
  });

  it('a connection refused is not taken, and leaves nothing in the journal', async () => {
    const closed = build({ baseUrl: await closedPort() });
    const req = collection('+2250700000000');
    await expect(closed.requestCollection(req)).rejects.toBeInstanceOf(OperatorNotTakenError);
    expect(await journal.find(`collection:${req.transactionId}`)).toBeNull();
    // A transfer's marker goes too: the same id can be sent once Hub2 is reachable.
    const payout = disbursement('+2250700000000');
    await expect(closed.disburse(payout)).rejects.toBeInstanceOf(OperatorNotTakenError);
    expect(await journal.find(`disbursement:${payout.transactionId}`)).toBeNull();
    expect((await hub2.disburse(payout)).outcome).toBe('pending');
  });
});

describe('hub2 connector: payouts (transfers)', () => {
  it('pending, then completed; the transfer carries our id as its reference', async () => {
    const req = disbursement('+2250700000000');
    expect((await hub2.disburse(req)).outcome).toBe('pending');
    const s = await until(() => hub2.disbursementStatus(req.transactionId, 'ORANGE', 'CI'), final);
    expect(s.outcome).toBe('completed');
    expect(s.operatorReference).toMatch(/^tr_/);
    const cb = await waitForCallback(req.transactionId);
    expect(await hub2.verifyCallback(cb)).toMatchObject({ kind: 'disbursement', id: req.transactionId });
  });

  it('failed with Hub2’s failure cause mapped', async () => {
    const req = disbursement('+2250100000011', { operator: 'MOOV', amount: 1000 });
    const s = await hub2.disburse(req);
    expect(s).toMatchObject({ outcome: 'failed', failure: { code: 'INVALID_MSISDN' } });
  });

  it('unknown reference → unknown', async () => {
    expect((await hub2.disbursementStatus(newId('pr'), 'ORANGE', 'CI')).outcome).toBe('unknown');
  });

  it('a lost answer on the transfer: the retry reads; exactly one transfer', async () => {
    const slow = build({ timeoutMs: 300 });
    const req = disbursement('+2250700000000');
    await control('/__fake/faults', { count: 1, hangMs: 1000, path: '^/transfers$' });
    await expect(slow.disburse(req)).rejects.toBeInstanceOf(OperatorUnavailableError);
    expect(['pending', 'completed']).toContain((await hub2.disburse(req)).outcome);
    expect(
      (await until(() => hub2.disbursementStatus(req.transactionId, 'ORANGE', 'CI'), final)).outcome,
    ).toBe('completed');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await fakeState()).transfers.filter((t) => t.reference === req.transactionId)).toHaveLength(1);
  });

  it('pending payout: cancel is a status read that confirms nothing', async () => {
    const req = disbursement('+2250700000022');
    await hub2.disburse(req);
    expect((await hub2.cancel('disbursement', req.transactionId, 'ORANGE', 'CI')).outcome).toBe('pending');
  });
});

describe('hub2 connector: refunds (a transfer to the payer)', () => {
  it('refunds a completed payin by a transfer to its payer’s number, with the refund id as reference', async () => {
    const payin = collection('+2250700000033');
    await hub2.requestCollection(payin);
    expect(
      (await until(() => hub2.collectionStatus(payin.transactionId, 'ORANGE', 'CI'), final)).outcome,
    ).toBe('completed');
    const refund: RefundRequest = {
      refundId: newId('rf'),
      transactionId: payin.transactionId,
      operator: 'ORANGE',
      country: 'CI',
      amount: 1000,
      currency: 'XOF',
      sandboxScenario: null,
    };
    // Not known yet: retried, nothing sent.
    await expect(hub2.refund(refund)).rejects.toBeInstanceOf(OperatorUnavailableError);
    payers.set(refund.refundId, '+2250700000033');
    expect((await hub2.refund(refund)).outcome).toBe('pending');
    expect((await until(() => hub2.refundStatus(refund.refundId, 'ORANGE', 'CI'), final)).outcome).toBe(
      'completed',
    );
    const transfers = (await fakeState()).transfers.filter((t) => t.reference === refund.refundId);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.destination).toMatchObject({ msisdn: '+2250700000033', provider: 'orange' });
    const cb = await waitForCallback(refund.refundId);
    expect(await hub2.verifyCallback(cb)).toMatchObject({ kind: 'refund', id: refund.refundId });
    // Retried after the answer: read, never sent again.
    expect((await hub2.refund(refund)).outcome).toBe('completed');
  });

  it('a payin Hub2 did not collect is not refunded', async () => {
    const refund: RefundRequest = {
      refundId: newId('rf'),
      transactionId: newId('pr'),
      operator: 'ORANGE',
      country: 'CI',
      amount: 1000,
      currency: 'XOF',
      sandboxScenario: null,
    };
    payers.set(refund.refundId, '+2250700000033');
    await expect(hub2.refund(refund)).rejects.toBeInstanceOf(OperatorRejectedError);
  });
});

describe('hub2 connector: webhooks (Hub2-Signature)', () => {
  const body = (ref: string) =>
    Buffer.from(
      JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { purchaseReference: ref } }),
    );
  const incoming = (raw: Buffer, signature: string | undefined): IncomingCallback => ({
    method: 'POST',
    path: '/provider-callbacks/hub2',
    headers: { 'content-type': 'application/json', 'hub2-signature': signature },
    rawBody: raw,
  });

  it('good (s1), bad (another secret, a changed body, none), and during a rotation (s0)', async () => {
    const id = newId('pr');
    const raw = body(id);
    expect(await hub2.verifyCallback(incoming(raw, `s1=${signHub2(SECRET, raw.toString())}`))).toMatchObject({
      kind: 'collection',
      id,
    });
    expect(await hub2.verifyCallback(incoming(raw, `s1=${signHub2('another', raw.toString())}`))).toBeNull();
    const changed = body(newId('pr'));
    expect(await hub2.verifyCallback(incoming(changed, `s1=${signHub2(SECRET, raw.toString())}`))).toBeNull();
    expect(await hub2.verifyCallback(incoming(raw, undefined))).toBeNull();
    expect(await hub2.verifyCallback(incoming(raw, 's1=zz'))).toBeNull();
    // A rotation at Hub2: s1 with the new secret, s0 with ours (the old one) until we update.
    const rotated = `s1=${signHub2('the-new-secret', raw.toString())},s0=${signHub2(SECRET, raw.toString())}`;
    expect(await hub2.verifyCallback(incoming(raw, rotated))).toMatchObject({ id });
    // Without a configured secret, every webhook is refused.
    const unsigned = buildHub2Connector(
      { HUB2_BASE_URL: fake.url, HUB2_API_KEY: API_KEY, HUB2_MERCHANT_ID: MERCHANT },
      { timeoutMs: 1000, journal },
    )!;
    expect(await unsigned.verifyCallback(incoming(raw, `s1=${signHub2(SECRET, raw.toString())}`))).toBeNull();
    // Signed, but not about one of our ids.
    const foreign = Buffer.from(
      JSON.stringify({ type: 'payment_intent.succeeded', data: { purchaseReference: 'x' } }),
    );
    expect(
      await hub2.verifyCallback(incoming(foreign, `s1=${signHub2(SECRET, foreign.toString())}`)),
    ).toBeNull();
  });
});

describe('hub2 connector: errors', () => {
  it('5xx and 429 are unavailable', async () => {
    await control('/__fake/faults', { count: 1, status: 503 });
    await expect(hub2.disbursementStatus(newId('pr'), 'ORANGE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    await control('/__fake/faults', { count: 1, status: 429 });
    await expect(hub2.disbursementStatus(newId('pr'), 'ORANGE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
  });

  it('a wrong key (401) is unavailable, ours to fix; the transfer it refused can be sent once fixed', async () => {
    const wrong = build({ apiKey: 'hub2_wrong' });
    const req = disbursement('+2250700000000');
    const refused = wrong.disburse(req);
    await expect(refused).rejects.toBeInstanceOf(OperatorUnavailableError);
    await expect(refused).rejects.not.toBeInstanceOf(OperatorRejectedError);
    await expect(wrong.disbursementStatus(req.transactionId, 'ORANGE', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    // Hub2 refused the key before doing anything: the journal's marker went with it.
    expect((await hub2.disburse(req)).outcome).toBe('pending');
    expect((await fakeState()).transfers.filter((t) => t.reference === req.transactionId)).toHaveLength(1);
  });

  it('a request Hub2 refuses (400) is rejected; error messages name the endpoint, never the number', async () => {
    const req = collection('+2250700000000');
    await control('/__fake/faults', { count: 1, status: 400, path: '/payments$' });
    const err = await hub2.requestCollection(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperatorRejectedError);
    expect((err as Error).message).toBe('hub2 POST /payment-intents/:id/payments: HTTP 400 Bad Request');
    expect(JSON.stringify(err)).not.toContain('0700000000');
  });
});

// Issue 43 §4: the connector sends only what Hub2 documents per endpoint
// (src/operators/connectors/hub2/wire.ts); the fake refuses the rest and keeps what it refused.
describe('hub2 connector: only the documented fields, per endpoint (conformance)', () => {
  it('the rule: an unknown field, a bad reference or an undocumented endpoint is refused', () => {
    const t = {
      reference: 'pr_1',
      amount: 1000,
      currency: 'XOF',
      description: 'Payout',
      destination: { type: 'mobile_money', country: 'CI', msisdn: '+2250700000001', provider: 'orange' },
    };
    expect(undocumented('POST', '/transfers', t)).toBeNull();
    expect(undocumented('POST', '/transfers', { ...t, callbackUrl: 'x' })).toMatch(/callbackUrl/);
    expect(undocumented('POST', '/transfers', { ...t, reference: 'pr/1' })).toMatch(/reference/);
    expect(undocumented('POST', '/refunds', {})).toMatch(/not a documented endpoint/);
  });

  // Last in the file: what every test above made the connector send.
  it('every request this file made is one Hub2 documents, and none was a second attempt or transfer', async () => {
    expect(await (await fetch(`${fake.url}/__fake/undocumented`)).json()).toEqual([]);
    expect(await (await fetch(`${fake.url}/__fake/defects`)).json()).toEqual([]);
  });
});
