import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';
import { fundFromSandbox } from '../../src/ledger/postings';
import { payoutBatchRecord } from '../../src/contract/schemas/payout-batch';
import { PayoutBatchStore, type BatchItem } from '../../src/persistence/payout-batches';
import { TransactionStore } from '../../src/persistence/transactions';
import { WorkflowStartLog } from '../../src/persistence/workflow-starts';
import { PayoutBatchService } from '../../src/services/payout-batch-service';
import { PayoutService } from '../../src/services/payout-service';
import { resolveFeeSchedule } from '../../src/domain/fees';

// Bulk payouts through HTTP on the real servers: independent items paid or refused one by one,
// atomic batches all or none (the balance untouched when refused), a retry answering the same batch
// without paying twice, the summary and `payout.batch.completed` once every item is final.

describe('bulk payouts', () => {
  const { stack, merchant, api } = useStack({ merchantPerTest: true });
  let ledger: Ledger;
  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });
  const fund = (amount: number) =>
    fundFromSandbox(ledger, {
      merchantId: merchant.merchantId,
      currency: 'XOF',
      amount,
      reason: 'test funding',
    });
  const balance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const ref = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;
  const item = (reference: string, amount: number, extra: Record<string, unknown> = {}) => ({
    reference,
    amount,
    msisdn: '+2250700000002',
    country: 'CI',
    sandboxScenario: 'completed',
    ...extra,
  });
  const completed = (id: string) =>
    eventually(
      () => api.get(`/v1/payouts/bulk/${id}`),
      (r) => r.body.status === 'completed',
      90_000,
    );

  it('independent items: each accepted or refused with its own problem; a retry pays nothing twice', async () => {
    await fund(10_000);
    const first = ref('b1');
    const body = {
      items: [
        item(first, 1000, { metadata: { line: '1' } }),
        item(ref('bad'), -5),
        item(first, 1000),
        item(ref('big'), 1_000_000),
        item(ref('b2'), 2000),
      ],
    };
    const key = randomUUID();
    const res = await api.post('/v1/payouts/bulk', body, { 'x-idempotency-key': key });
    expect(res.status).toBe(201);
    const batch = payoutBatchRecord.parse(res.body);
    expect(batch.items.map((i) => i.result)).toEqual([
      'accepted',
      'refused',
      'refused',
      'refused',
      'accepted',
    ]);
    expect(batch.items[1]!.problem).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(batch.items[1]!.problem!.errors!.map((e) => e.path)).toEqual(['amount']);
    expect(batch.items[2]!.problem).toMatchObject({ code: 'DUPLICATE_REFERENCE' });
    expect(batch.items[3]!.problem).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(batch.items[0]!.payout).toMatchObject({ reference: first, metadata: { line: '1' } });
    expect(batch.summary).toMatchObject({ items: 5, accepted: 2, refused: 3 });
    const charged = batch.summary.totals[0]!.chargedAmount;
    expect(batch.summary.totals[0]).toMatchObject({ currency: 'XOF', count: 2, amount: 3000 });
    expect(await balance()).toBe(10_000 - charged);

    // Each item is a normal payout, readable by its reference.
    expect((await api.get(`/v1/payout/${first}`)).body).toMatchObject({ reference: first, type: 'payout' });

    // The same request again: the stored answer, nothing debited twice.
    const again = await api.post('/v1/payouts/bulk', body, { 'x-idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(batch.id);
    expect(await balance()).toBe(10_000 - charged);

    const done = await completed(batch.id);
    expect(done.body.summary.byStatus).toEqual({ completed: 2 });
    expect(done.body.summary.totals[0].completedAmount).toBe(3000);
    const events = await eventually(
      () => api.get('/v1/events?type=payout.batch.completed'),
      (r) => r.body.data.length > 0,
    );
    expect(events.body.data[0].data).toMatchObject({ id: batch.id, status: 'completed' });
  });

  it('atomic: refused whole when the balance does not cover every item; nothing is debited', async () => {
    await fund(2_500);
    const refs = [ref('a1'), ref('a2'), ref('a3')];
    const res = await api.post('/v1/payouts/bulk', {
      atomic: true,
      items: refs.map((r) => item(r, 1000)),
    });
    expect(res.status).toBe(201);
    expect(res.body.items.map((i: { result: string }) => i.result)).toEqual([
      'refused',
      'refused',
      'refused',
    ]);
    expect(res.body.items[0].problem.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance()).toBe(2_500);
    for (const r of refs) expect((await api.get(`/v1/payout/${r}`)).status).toBe(404);
  });

  it('atomic: one invalid item refuses all, the valid ones with BATCH_REFUSED (in French too)', async () => {
    await fund(10_000);
    const res = await api.post(
      '/v1/payouts/bulk',
      { atomic: true, items: [item(ref('ok'), 1000), item(ref('bad'), 1000, { country: 'XX' })] },
      { 'accept-language': 'fr' },
    );
    expect(res.status).toBe(201);
    expect(res.body.items[0].problem).toMatchObject({ code: 'BATCH_REFUSED', title: 'Lot refusé' });
    expect(res.body.items[1].problem.code).toBe('VALIDATION_ERROR');
    expect(await balance()).toBe(10_000);
    // The batch remembers the problem in every language.
    expect((await api.get(`/v1/payouts/bulk/${res.body.id}`)).body.items[0].problem.title).toBe(
      'Batch refused',
    );
  });

  it('atomic: covered, every item paid from the hold; a failed item comes back to the account', async () => {
    await fund(10_000);
    const res = await api.post('/v1/payouts/bulk', {
      atomic: true,
      items: [
        item(ref('p1'), 1000),
        item(ref('p2'), 1500),
        item(ref('p3'), 500, { sandboxScenario: 'failed' }),
      ],
    });
    expect(res.status).toBe(201);
    const batch = payoutBatchRecord.parse(res.body);
    expect(batch.items.every((i) => i.result === 'accepted')).toBe(true);
    const charged = batch.summary.totals[0]!.chargedAmount;
    // The hold leaves nothing behind: the account paid exactly what its items charge.
    expect(await balance()).toBe(10_000 - charged);
    const done = await completed(batch.id);
    expect(done.body.summary.byStatus).toMatchObject({ completed: 2 });
    const failedRef = done.body.items[2].reference as string;
    const failed = await eventually(
      () => api.get(`/v1/payout/${failedRef}`),
      (r) => r.body.status === 'reversed',
    );
    expect(await balance()).toBe(10_000 - charged + (failed.body.chargedAmount as number));
  });

  it('a batch left half-done (a crash) is finished once: holds, items and release keyed', async () => {
    await fund(10_000);
    const batches = PayoutBatchStore.on(stack.mongo);
    const transactions = TransactionStore.on(stack.mongo);
    const service = new PayoutBatchService({
      batches,
      transactions,
      ledger,
      payouts: new PayoutService({
        transactions,
        starts: WorkflowStartLog.on(stack.mongo),
        ledger,
        temporal: stack.env.client,
        taskQueue: stack.taskQueue,
        payoutExpiryMs: stack.config.PAYOUT_EXPIRY,
        feeSchedule: resolveFeeSchedule(stack.config.FEE_SCHEDULE),
      }),
    });
    const id = `pb_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    // As the request left it after placing the hold: atomic, decided, no item paid yet.
    await batches.insertOrGet({
      id,
      merchantId: merchant.merchantId,
      idempotencyKey: randomUUID(),
      requestFingerprint: null,
      atomic: true,
      items: [item(ref('c1'), 1000), item(ref('c2'), 2000)].map(
        (i) => ({ input: { shape: 'A', ...i } }) as BatchItem,
      ),
      state: 'open',
      decision: null,
      held: [],
      results: null,
      createdAt: new Date(),
      completedAt: null,
    });
    const [once, twice] = [await service.process(id), await service.process(id)];
    expect(once.results!.map((r) => r.result)).toEqual(['accepted', 'accepted']);
    expect(twice.results).toEqual(once.results);
    // Run again from "decided, items being paid": nothing more is held, paid or released.
    await batches.update(id, { state: 'open' });
    const third = await service.process(id);
    expect(third.results).toEqual(once.results);
    const txs = await Promise.all(once.results!.map((r) => transactions.findById(r.transactionId!)));
    const charged = txs.reduce((sum, tx) => sum + tx!.chargedAmount, 0);
    expect(await balance()).toBe(10_000 - charged);
  });

  it('limits and tenants: 1 to 100 items; another merchant cannot read the batch', async () => {
    const tooMany = await api.post('/v1/payouts/bulk', {
      items: Array.from({ length: 101 }, (_, i) => item(`r${i}`, 1000)),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('items');
    expect((await api.post('/v1/payouts/bulk', { items: [] })).status).toBe(400);
    expect((await api.post('/v1/payouts/bulk', { items: ['x'] })).body.errors[0].path).toBe('items.0');
    // Keys a database cannot hold are refused with the item, never stored.
    const odd = await api.post('/v1/payouts/bulk', { items: [{ $where: '1', 'a.b': 2, reference: 'x' }] });
    expect(odd.status).toBe(201);
    expect(odd.body.items[0].problem.errors.map((e: { path: string }) => e.path)).toContain('$where');

    await fund(5_000);
    const mine = await api.post('/v1/payouts/bulk', { items: [item(ref('t'), 1000)] });
    const other = await createTestMerchant(stack);
    const otherApi = new ApiClient(stack.baseUrl, other.credentials);
    const read = await otherApi.get(`/v1/payouts/bulk/${mine.body.id}`);
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('BATCH_NOT_FOUND');
  });
});
