import type { Connection } from 'mongoose';
import { TransactionStore } from '../../src/persistence/transactions';
import type { Transaction } from '../../src/domain/transaction';
import { connectTestMongo } from '../helpers/stack';
import { storedDirectPayin } from '../helpers/payin-input';

// The transaction store against the real FerretDB: references claimed by a unique _id, point reads.
describe('transaction store', () => {
  let mongo: Connection;
  let store: TransactionStore;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    store = TransactionStore.on(mongo);
    await store.init();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  const draft = (id: string, reference: string): Transaction =>
    storedDirectPayin({ id, merchantId: 'mer_store', reference, workflowId: `payin:mer_store:${reference}` });

  it('stores once per reference, even when 20 inserts race', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.insertOrGet(draft(`pr_race${i}`, 'race'))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
    expect(await mongo.collection('transactions').countDocuments({ reference: 'race' })).toBe(1);
    expect((await store.find('mer_store', 'payin', 'race'))?.id).toBe(results[0]!.transaction.id);
  });

  it('completes a reference claimed by a process that died before writing the transaction', async () => {
    await mongo
      .collection('transaction_refs')
      .insertOne({ _id: 'mer_store|payin|orphan' as never, id: 'pr_claimed' });
    const first = await store.insertOrGet(draft('pr_other', 'orphan'));
    expect(first).toMatchObject({ created: true, transaction: { id: 'pr_claimed' } });
    const again = await store.insertOrGet(draft('pr_third', 'orphan'));
    expect(again).toMatchObject({ created: false, transaction: { id: 'pr_claimed' } });
  });

  it('reads and updates by id, and removes only what never started', async () => {
    await store.insertOrGet({ ...draft('pr_pending', 'pending-one'), status: 'pending' });
    await store.update('pr_pending', { confirmationStatus: 'pending' });
    expect((await store.findById('pr_pending'))?.confirmationStatus).toBe('pending');
    await store.removeUnstarted('pr_pending');
    expect(await store.findById('pr_pending')).toBeNull();
    // The reference is free again.
    expect((await store.insertOrGet(draft('pr_next', 'pending-one'))).created).toBe(true);
    await store.removeUnstarted('pr_next'); // processing: kept
    expect(await store.findById('pr_next')).not.toBeNull();
  });

  // FerretDB 1.24.2 as provisioned (scripts/provision): its SQLite plan for an `_id` lookup uses the
  // `_id` index. Unpatched it scans the whole table, and every read slows as transactions accumulate.
  it('finds a transaction by _id through the _id index, not a scan', async () => {
    await store.insertOrGet(draft('pr_indexed', 'indexed'));
    const plan = await mongo
      .collection('transactions')
      .find({ _id: 'pr_indexed' as never })
      .explain();
    expect(JSON.stringify(plan.queryPlanner)).toMatch(/SEARCH \S+ USING INDEX \S+__id_/);
  });
});
