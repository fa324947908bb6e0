import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApiClient, eventually } from '../helpers/http';
import { replacementWorker } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';
import { buildActivityDeps } from '../../src/main/wiring';
import { createPayoutActivities } from '../../activities/payout/payout-activities';
import { TransactionStore } from '../../src/persistence/transactions';
import { accountPayoutRecord } from '../../src/contract/schemas/payout';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';
import { payoutSourceRefs } from '../../src/ledger/postings';

// Payouts through HTTP, the worker, the operator simulator and FerretDB: the direct flow and both
// standard shapes, every scenario, expiry with time skipping, the reversal of the gross amount
// exactly once (also across a worker restart), insufficient balance and concurrent payouts.
const MIN = 60_000;

describe('payouts', () => {
  // No workflow cache, so no sticky queue: the time-skipping server never moves a task off a
  // stopped worker's sticky queue, which the worker-restart test below needs.
  const { stack, merchant, api } = useStack({
    config: { PAYOUT_EXPIRY: '10m' },
    worker: { maxCachedWorkflows: 0 },
    fund: 100_000,
  });
  let ledger: Ledger;
  const merchants: TestMerchant[] = [];

  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });
  // After every test: each account's balance is the sum of its entries, and none is negative.
  afterEach(async () => {
    for (const m of [merchant, ...merchants]) {
      for (const account of await ledger.listAccounts(m.merchantId)) {
        const v = await ledger.verify(account.id);
        expect(v.balance).toBe(v.sumOfEntries);
        expect(v.balance).toBeGreaterThanOrEqual(0);
      }
    }
  });

  async function newMerchant(fundXof: number): Promise<TestMerchant> {
    const m = await createTestMerchant(stack);
    merchants.push(m);
    if (fundXof > 0) await fund((await ledger.mainAccount(m.merchantId, 'XOF')).id, fundXof);
    return m;
  }
  async function fund(accountId: string, amount: number): Promise<void> {
    const source = await ledger.systemAccount('sandbox-funding', 'XOF', 'test');
    await ledger.transfer({
      sourceRef: `fund:${randomUUID()}`,
      fromAccountId: source.id,
      toAccountId: accountId,
      amount,
      reason: 'test funding',
    });
  }
  const mainBalance = async (m: TestMerchant = merchant) =>
    (await ledger.mainAccount(m.merchantId, 'XOF')).balance;
  const ref = () => `po-${randomUUID()}`;
  const read = (path: string, done: (b: any) => boolean, client = api) =>
    eventually(
      () => client.get(path),
      (r) => r.status === 200 && done(r.body),
    );
  const eventsOf = async (reference: string) => {
    const res = await api.get(`/v1/events?reference=${reference}&limit=50`);
    return (res.body.data as { type: string; data: { status: string } }[]).reverse();
  };
  /** Entries of one movement of a payout, on any account. */
  const legsOf = async (sourceRef: string) =>
    stack.mongo.db!.collection('ledger_entries').countDocuments({ sourceRef });

  it('direct payout: debits amount + fee before answering, then completes with events', async () => {
    const before = await mainBalance();
    const reference = ref();
    const created = await api.post('/v1/direct/payout', {
      reference,
      customerName: 'Awa Koné',
      payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(created.status).toBe(201);
    expect(transactionRecord.parse(created.body)).toMatchObject({
      type: 'payout',
      reference,
      status: 'pending',
      isDirect: true,
      payFee: true,
      mobileMoney: { provider: { name: 'MTN_CI' } },
      amount: 10_000,
      fee: 100,
      chargedAmount: 10_100,
      currency: 'XOF',
      customer: { name: 'Awa Koné', phoneNumber: '+2250500000001' },
      failure: null,
    });
    // The answer reflects the debit: it is already applied.
    expect(await mainBalance()).toBe(before - 10_100);

    const done = await read(`/v1/direct/payout/${reference}`, (b) => b.status === 'completed');
    expect(done.body.mobileMoney).toEqual({ provider: { name: 'MTN_CI' } });
    expect(await mainBalance()).toBe(before - 10_100);
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(0);
    const events = await eventually(
      () => eventsOf(reference),
      (e) => e.some((x) => x.type === 'payout.completed'),
    );
    expect(events.map((e) => `${e.type}:${e.data.status}`)).toEqual([
      'payout.updated:processing',
      'payout.updated:processed',
      'payout.updated:completed',
      'payout.completed:completed',
    ]);
    // Each read endpoint serves its own flow.
    expect((await api.get(`/v1/payout/${reference}`)).body.code).toBe('PAYOUT_NOT_FOUND');
  });

  it('shape A: operator predicted from the number; a failure returns the gross amount exactly once', async () => {
    const before = await mainBalance();
    const reference = ref();
    const created = await api.post('/v1/payout', {
      reference,
      sandboxScenario: 'failed',
      amount: 25_050,
      msisdn: '+2250700000001',
      country: 'CI',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      isDirect: false,
      fee: 251,
      chargedAmount: 25_301,
    });
    expect(created.body).not.toHaveProperty('mobileMoney');
    expect(await mainBalance()).toBe(before - 25_301);

    const done = await read(`/v1/payout/${reference}`, (b) => b.status === 'reversed');
    expect(transactionRecord.parse(done.body).failure).toEqual({
      code: 'PAYEE_REJECTED',
      message: expect.any(String),
      provider: 'ORANGE_CI',
    });
    expect(await mainBalance()).toBe(before);
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(2); // one debit leg, one credit leg
    expect(await legsOf(payoutSourceRefs(created.body.id).fee)).toBe(0);
    const events = await eventually(
      () => eventsOf(reference),
      (e) => e.length === 4,
    );
    expect(events.map((e) => `${e.type}:${e.data.status}`)).toEqual([
      'payout.updated:processing',
      'payout.updated:processed',
      'payout.updated:failed',
      'payout.updated:reversed',
    ]);
  });

  it('shape B: debits the named sub-account and answers the alternative record', async () => {
    const sub = await ledger.createSubAccount(merchant.merchantId, 'XOF', `payroll-${randomUUID()}`);
    await fund(sub.id, 6_000);
    const mainBefore = await mainBalance();
    const reference = ref();
    const created = await api.post('/v1/payout', {
      reference,
      accountId: sub.id,
      amount: 5_000,
      msisdn: '+2250100000001',
      country: 'CI',
      customerName: 'Kofi Yao',
    });
    expect(created.status).toBe(201);
    const record = accountPayoutRecord.parse(created.body);
    expect(record).toMatchObject({
      type: 'payout',
      customerReference: reference,
      status: 'pending',
      phoneNumber: '+2250100000001',
      customerName: 'Kofi Yao',
      amount: 5_000,
      fee: 50,
      chargedAmount: 5_050,
      currency: 'XOF',
      confirmationRequired: false,
      confirmationStatus: 'none',
      transaction: {},
      failure: null,
    });
    expect(record.reference).toMatch(/^mtr_/);
    expect((await ledger.getAccount(sub.id))!.balance).toBe(950);

    const done = await read(`/v1/payout/${reference}`, (b) => b.status === 'completed');
    expect(accountPayoutRecord.parse(done.body)).toMatchObject({
      reference: record.reference,
      transaction: {
        status: 'completed',
        phoneNumber: '+2250100000001',
        amount: '5000.00',
        fees: '50.00',
        chargedAmount: '5050.00',
        currency: 'XOF',
        processedAt: expect.stringMatching(/Z$/),
      },
    });
    expect(await mainBalance()).toBe(mainBefore);
    // Events carry the record in its creation shape.
    const events = await eventually(
      () => eventsOf(reference),
      (e) => e.some((x) => x.type === 'payout.completed'),
    );
    for (const e of events) expect(accountPayoutRecord.safeParse(e.data).success).toBe(true);
  });

  it('shape B: a payout the operator leaves pending expires at PAYOUT_EXPIRY and is reversed', async () => {
    const sub = await ledger.createSubAccount(merchant.merchantId, 'XOF', `ops-${randomUUID()}`);
    await fund(sub.id, 2_020);
    const reference = ref();
    await api.post('/v1/payout', {
      reference,
      sandboxScenario: 'pending',
      accountId: sub.id,
      amount: 2_000,
      msisdn: '+2250500000002',
      country: 'CI',
      customerName: 'Ama',
    });
    const processed = await read(`/v1/payout/${reference}`, (b) => b.status === 'processed');
    expect(processed.body.transaction).toMatchObject({ status: 'pending', amount: '2000.00' });
    expect((await ledger.getAccount(sub.id))!.balance).toBe(0);
    await stack.env.sleep(11 * MIN);
    const done = await read(`/v1/payout/${reference}`, (b) => b.status === 'reversed');
    expect(done.body.failure).toMatchObject({ code: 'EXPIRED', provider: 'MTN_CI' });
    expect(done.body.transaction.status).toBe('failed');
    expect((await ledger.getAccount(sub.id))!.balance).toBe(2_020);
    const events = await eventually(
      () => eventsOf(reference),
      (e) => e.length === 4,
    );
    expect(events.map((e) => e.data.status)).toEqual(['processing', 'processed', 'expired', 'reversed']);
  });

  it('refuses a payout the balance does not cover: 403, no record, no workflow, no entry', async () => {
    const poor = await newMerchant(1_000);
    const client = new ApiClient(stack.baseUrl, poor.credentials, { 'accept-language': 'fr' });
    const reference = ref();
    const entriesBefore = await stack.mongo.db!.collection('ledger_entries').countDocuments();
    const res = await client.post('/v1/direct/payout', {
      reference,
      payout: { amount: 1_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' }, // + fee 10
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_BALANCE', title: 'Solde insuffisant' });
    expect((await client.get(`/v1/direct/payout/${reference}`)).status).toBe(404);
    await expect(
      stack.env.client.workflow.getHandle(`payout:${poor.merchantId}:${reference}`).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await stack.mongo.db!.collection('ledger_entries').countDocuments()).toBe(entriesBefore);
    expect(await TransactionStore.on(stack.mongo).find(poor.merchantId, 'payout', reference)).toBeNull();
    expect(await mainBalance(poor)).toBe(1_000);
    // A merchant with no account at all, and another merchant's account, are refused as well.
    const broke = await newMerchant(0);
    const brokeApi = new ApiClient(stack.baseUrl, broke.credentials);
    const none = await brokeApi.post('/v1/payout', {
      reference: ref(),
      amount: 500,
      msisdn: '+2250500000001',
      country: 'CI',
    });
    expect(none.body.code).toBe('INSUFFICIENT_BALANCE');
    const foreign = await brokeApi.post('/v1/payout', {
      reference: ref(),
      accountId: (await ledger.mainAccount(merchant.merchantId, 'XOF')).id,
      amount: 500,
      msisdn: '+2250500000001',
      country: 'CI',
      customerName: 'X',
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('validates the request and refuses a reused reference', async () => {
    const bad = await api.post('/v1/payout', {
      reference: ref(),
      accountId: 'acc_x',
      amount: 500,
      msisdn: '+2250500000001',
      country: 'CI',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'customerName', message: expect.any(String) }]);
    const mismatch = await api.post('/v1/direct/payout', {
      reference: ref(),
      payout: { amount: 500, msisdn: '+2250700000001', provider: 'MTN', country: 'CI' },
    });
    expect(mismatch.body).toMatchObject({
      code: 'MSISDN_PROVIDER_MISMATCH',
      errors: [{ path: 'payout.msisdn' }],
    });

    const reference = ref();
    const body = { reference, amount: 500, msisdn: '+2250500000001', country: 'CI' };
    const key = randomUUID();
    const first = await api.post('/v1/payout', body, { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    const replay = await api.post('/v1/payout', body, { 'x-idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    const again = await api.post('/v1/payout', body);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('DUPLICATE_REFERENCE');
    await read(`/v1/payout/${reference}`, (b) => b.status === 'completed');
    expect(await legsOf(payoutSourceRefs(first.body.id).debit)).toBe(2);
  });

  it('an operator timeout is re-sent with the same id: paid once, debited once (9904)', async () => {
    const before = await mainBalance();
    const reference = ref();
    const created = await api.post('/v1/direct/payout', {
      reference,
      payout: { amount: 3_000, msisdn: '+2250500009904', provider: 'MTN', country: 'CI' },
    });
    expect(created.status).toBe(201);
    await read(`/v1/direct/payout/${reference}`, (b) => b.status === 'completed');
    const sim = await fetch(`${stack.simulator.url}/_sandbox/transactions/disbursement/${created.body.id}`);
    expect(((await sim.json()) as { requests: number }).requests).toBeGreaterThanOrEqual(2);
    expect(await mainBalance()).toBe(before - 3_030);
  });

  it('concurrent payouts from one account never overdraw it', async () => {
    const m = await newMerchant(10 * 1_010);
    const client = new ApiClient(stack.baseUrl, m.credentials);
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        client.post('/v1/payout', {
          reference: ref(),
          amount: 1_000,
          msisdn: '+2250500000001',
          country: 'CI',
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 403)).toHaveLength(6);
    expect(await mainBalance(m)).toBe(0);
    for (const a of answers.filter((x) => x.status === 201))
      await read(`/v1/payout/${a.body.reference}`, (b) => b.status === 'completed', client);
    const refused = answers.filter((a) => a.status === 403);
    for (const a of refused) expect(a.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(
      await stack.mongo.db!.collection('transactions').countDocuments({ merchantId: m.merchantId }),
    ).toBe(10);
  });

  it('reverses exactly once when the worker is replaced mid-payout', async () => {
    const m = await newMerchant(5_050);
    const client = new ApiClient(stack.baseUrl, m.credentials);
    const reference = ref();
    const created = await client.post('/v1/payout', {
      reference,
      sandboxScenario: 'pending',
      amount: 5_000,
      msisdn: '+2250500000003',
      country: 'CI',
    });
    expect(created.status).toBe(201);
    await read(`/v1/payout/${reference}`, (b) => b.status === 'processed', client);

    // The worker dies mid-flow; a new one on the same task queue picks the payout up.
    stack.worker.shutdown();
    await eventually(
      async () => stack.worker.getState(),
      (s) => s === 'STOPPED' || s === 'FAILED',
    );
    const deps = await buildActivityDeps({ mongo: stack.mongo, config: stack.config });
    const replacement = await replacementWorker(stack, deps);
    const running = replacement.run();
    try {
      await stack.env.sleep(11 * MIN);
      const done = await read(`/v1/payout/${reference}`, (b) => b.status === 'reversed', client);
      expect(done.body.failure.code).toBe('EXPIRED');
      expect(await mainBalance(m)).toBe(5_050);
      // A replayed reversal (activity retry after a crash) writes nothing.
      const again = await createPayoutActivities(deps).reversePayout(created.body.id);
      expect(again.applied).toBe(false);
      expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(2);
      expect(await mainBalance(m)).toBe(5_050);
    } finally {
      replacement.shutdown();
      await running;
    }
  });
});
