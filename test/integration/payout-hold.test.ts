import { randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import { eventually } from '../helpers/http';
import { replacementWorker } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';
import { buildActivityDeps } from '../../src/main/wiring';
import { ProviderHealth, type HealthState } from '../../src/operators/health';
import { payoutSourceRefs } from '../../src/ledger/postings';
import { modeOfScope, type Mode } from '../../src/domain/modes';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';

// Payouts held for their provider and cancelled (docs/payouts.md, "Held for the provider"), through
// HTTP, the worker, the simulator and FerretDB: a payout to a closed or delayed provider is debited
// and waits `pending`, unsent; it is sent once the provider recovers; until then
// POST …/payout/{reference}/cancel returns the money exactly once; once sent it is 409.
const MIN = 60_000;

/** The worker's provider health (src/operators/health), driven by its ops override. */
let health: ProviderHealth;
/** Forces MTN CI payouts of `mode` into `state` (the ops override), or back to the measure (null). */
async function provider(mode: Mode, state: HealthState | null): Promise<void> {
  if (state) await health.setOverride(mode, 'MTN_CI', 'payout', state, 3_600_000, 'payout-hold test');
  else await health.clearOverride(mode, 'MTN_CI', 'payout');
}
/** Every stateOf the worker made, as `mode:operator:country:operation`. */
const asked: string[] = [];

describe('payouts held for their provider, and cancelled', () => {
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const { stack, merchant, api } = useStack({
    config: { PAYOUT_EXPIRY: '10m' },
    // No sticky queue: the stack's own worker is replaced by one that reads the provider's health.
    worker: { maxCachedWorkflows: 0 },
    fund: 1_000_000,
    beforeStop: async () => {
      worker?.shutdown();
      await running;
    },
  });
  let ledger: Ledger;

  beforeAll(async () => {
    ledger = Ledger.on(stack.mongo);
    stack.worker.shutdown();
    await eventually(
      async () => stack.worker.getState(),
      (s) => s === 'STOPPED' || s === 'FAILED',
    );
    health = new ProviderHealth(stack.mongo, {
      windowMs: 10 * MIN,
      minAttempts: 5,
      cacheMs: 0,
      routed: () => true,
    });
    const reader = {
      stateOf: (...args: Parameters<ProviderHealth['stateOf']>) => {
        asked.push(args.join(':'));
        return health.stateOf(...args);
      },
    };
    const deps = await buildActivityDeps({ mongo: stack.mongo, config: stack.config });
    worker = await replacementWorker(stack, { ...deps, providerHealth: reader });
    running = worker.run();
  });
  let mode: Mode;
  beforeEach(() => {
    // Test keys: the merchant's test scope. Overrides are set per test, cleared after it.
    mode = modeOfScope(merchant.merchantId);
    asked.length = 0;
  });
  afterEach(async () => {
    for (const m of ['test', 'live'] as const) await provider(m, null);
  });
  // After every test: each account's balance is the sum of its entries.
  afterEach(async () => {
    for (const account of await ledger.listAccounts(merchant.merchantId)) {
      const v = await ledger.verify(account.id);
      expect(v.balance).toBe(v.sumOfEntries);
    }
  });

  const balance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const legsOf = (sourceRef: string) =>
    stack.mongo.db!.collection('ledger_entries').countDocuments({ sourceRef });
  const read = (path: string, done: (b: any) => boolean) =>
    eventually(
      () => api.get(path),
      (r) => r.status === 200 && done(r.body),
    );
  const eventsOf = async (reference: string) => {
    const res = await api.get(`/v1/events?reference=${reference}&limit=50`);
    return (res.body.data as { type: string; data: { status: string } }[])
      .reverse()
      .map((e) => `${e.type}:${e.data.status}`);
  };
  const directPayout = (reference: string, scenario?: string) =>
    api.post('/v1/direct/payout', {
      reference,
      ...(scenario ? { sandboxScenario: scenario } : {}),
      customerName: 'Awa Koné',
      payout: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });

  it('closed provider: accepted and debited, held pending and unsent; cancel returns the money exactly once', async () => {
    await provider(mode, 'closed');
    const before = await balance();
    const reference = `po-${randomUUID()}`;
    const created = await directPayout(reference);
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    expect(await balance()).toBe(before - 10_100);
    // The worker asked the health of this payout's mode (its record's scope), operator, country and operation.
    await eventually(
      async () => asked,
      (a) => a.includes(`${mode}:MTN:CI:payout`),
    );
    // Held: a few minutes on, still pending, never sent (no `processing`), still debited.
    await stack.env.sleep(5 * MIN);
    expect((await api.get(`/v1/direct/payout/${reference}`)).body.status).toBe('pending');
    expect(await eventsOf(reference)).toEqual([]);

    const cancelled = await api.post(`/v1/direct/payout/${reference}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(transactionRecord.parse(cancelled.body)).toMatchObject({
      reference,
      status: 'reversed',
      failure: { code: 'CANCELLED', provider: 'MTN_CI' },
    });
    expect(await balance()).toBe(before);
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(2);

    // Asked again (another key): the same cancelled payout, no second credit.
    const again = await api.post(`/v1/direct/payout/${reference}/cancel`, {});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'reversed', failure: { code: 'CANCELLED' } });
    expect(await balance()).toBe(before);
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(2);
    expect(
      await eventually(
        () => eventsOf(reference),
        (e) => e.length > 0,
      ),
    ).toEqual(['payout.updated:reversed']);
    // Each cancel serves its own flow; an unknown reference is 404.
    expect((await api.post(`/v1/payout/${reference}/cancel`, {})).body.code).toBe('PAYOUT_NOT_FOUND');
    const unknown = await api.post(`/v1/direct/payout/po-${randomUUID()}/cancel`, {});
    expect([unknown.status, unknown.body.code]).toEqual([404, 'PAYOUT_NOT_FOUND']);
  });

  it('delayed provider: held, then sent once it recovers and completed; then cancel is 409 (fr)', async () => {
    await provider(mode, 'delayed');
    const before = await balance();
    const reference = `po-${randomUUID()}`;
    const created = await api.post('/v1/payout', {
      reference,
      amount: 10_000,
      msisdn: '+2250500000001',
      country: 'CI',
      customerName: 'Awa Koné',
    });
    expect(created.status).toBe(201);
    await stack.env.sleep(10 * MIN); // longer than PAYOUT_EXPIRY: held time does not count
    expect((await api.get(`/v1/payout/${reference}`)).body.status).toBe('pending');

    await provider(mode, null); // the override cleared: the measure says operational
    await stack.env.sleep(11 * MIN); // past the longest wait between two checks (10 min)
    const done = await read(`/v1/payout/${reference}`, (b) => b.status === 'completed');
    expect(done.body.failure).toBeNull();
    expect(await balance()).toBe(before - 10_100);

    const refused = await api.post(`/v1/payout/${reference}/cancel`, {}, { 'accept-language': 'fr' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'PAYOUT_NOT_CANCELLABLE',
      title: 'Paiement sortant non annulable',
    });
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(0);
  });

  it('operational provider: sent at once; a cancel once it is with the operator is 409, nothing credited', async () => {
    const before = await balance();
    const reference = `po-${randomUUID()}`;
    const created = await directPayout(reference, 'pending');
    expect(created.status).toBe(201);
    await read(`/v1/direct/payout/${reference}`, (b) => b.status === 'processed');

    const refused = await api.post(`/v1/direct/payout/${reference}/cancel`, {});
    expect([refused.status, refused.body.code]).toEqual([409, 'PAYOUT_NOT_CANCELLABLE']);
    expect((await api.get(`/v1/direct/payout/${reference}`)).body.status).toBe('processed');
    expect(await balance()).toBe(before - 10_100);
    expect(await legsOf(payoutSourceRefs(created.body.id).reversal)).toBe(0);
  });
});
