import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { TransactionStore } from '../../src/persistence/transactions';
import { RefundStore } from '../../src/persistence/refunds';
import { TransactionSearch } from '../../src/services/transaction-search';
import { transactionSearchQuery } from '../../src/contract/schemas/transaction-search';
import type { Transaction } from '../../src/domain/transaction';
import { chainKey } from '../../src/persistence/read-chains';
import { streamOf } from '../../src/persistence/transaction-index';
import { connectTestMongo } from '../helpers/stack';
import { storedDirectPayin } from '../helpers/payin-input';

// Issue 28 §4, GET /v1/transactions: list positions need not follow creation. A session payin joins
// its provider's list when the customer confirms (up to 30 minutes after its creation), and a retry
// after a crash stores its record under another createdAt than the attempt that joined the lists.
// A time window must still find each exactly once, on the real FerretDB.
describe('transaction search windows', () => {
  let mongo: Connection;
  let store: TransactionStore;
  let search: TransactionSearch;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    store = TransactionStore.on(mongo);
    const refunds = RefundStore.on(mongo);
    await Promise.all([store.init(), refunds.init()]);
    search = new TransactionSearch({ transactions: store, refunds });
  });
  afterAll(async () => {
    await mongo?.close();
  });

  const payin = (
    merchantId: string,
    reference: string,
    createdAt: Date,
    over: Partial<Transaction> = {},
  ) => ({
    ...storedDirectPayin({
      id: `pr_${randomUUID().slice(0, 12)}`,
      merchantId,
      reference,
      workflowId: `w-${reference}`,
    }),
    createdAt,
    updatedAt: createdAt,
    ...over,
  });

  /** Every page of the query, as a client follows `nextCursor`. */
  async function all(merchantId: string, query: Record<string, unknown>): Promise<string[]> {
    const q = transactionSearchQuery.parse({ limit: 3, ...query });
    const ids: string[] = [];
    let cursor: { s: number; q: string } | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = await search.search(merchantId, q, cursor);
      ids.push(...page.items.map((f) => (f.tx ? f.tx.id : f.refund.id)));
      if (!page.next) return ids;
      cursor = { s: page.next, q: page.queryKey };
    }
    throw new Error('did not end');
  }

  it('finds a session payin in its window after it joined its provider list at confirmation', async () => {
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const t = Date.UTC(2026, 5, 1, 10);
    // The session is created with no provider: it joins the lists of everything, its type, its country.
    const session = payin(merchantId, 'session', new Date(t), { provider: null as never });
    await store.insertOrGet(session);
    // Thirty minutes of other payins on the provider the customer then chooses.
    for (let i = 1; i <= 12; i++)
      await store.insertOrGet(payin(merchantId, `p${i}`, new Date(t + i * 150_000)));
    await store.applyState(session.id, 1, { provider: 'MTN_CI' });

    const at = new Date(t).toISOString();
    const just = new Date(t + 1).toISOString();
    expect(await all(merchantId, { provider: 'MTN_CI', from: at, to: just })).toEqual([session.id]);
    const firstHalf = await all(merchantId, {
      provider: 'MTN_CI',
      from: at,
      to: new Date(t + 900_000).toISOString(),
    });
    expect(firstHalf.sort()).toHaveLength(6);
    expect(firstHalf).toContain(session.id);
  });

  it('lists a transaction stored by a retry under its own createdAt, once', async () => {
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const t = Date.UTC(2026, 5, 2, 10);
    // A first attempt claimed the reference and joined the lists, then died before storing it.
    const first = payin(merchantId, 'crashed', new Date(t));
    await store.index.add(first);
    await mongo
      .collection('transaction_refs')
      .insertOne({ _id: `${merchantId}|payin|crashed` as never, id: first.id });
    const others = [];
    for (let i = 1; i <= 5; i++)
      others.push(await store.insertOrGet(payin(merchantId, `o${i}`, new Date(t + i * 60_000))));
    // The retry, an hour later, completes the claim with its own createdAt.
    const retried = await store.insertOrGet(payin(merchantId, 'crashed', new Date(t + 3_600_000)));
    expect(retried).toMatchObject({ created: true, transaction: { id: first.id } });

    const hour = new Date(t + 3_600_000).toISOString();
    expect(await all(merchantId, { from: hour })).toEqual([first.id]);
    expect(await all(merchantId, { to: new Date(t + 60_000).toISOString() })).toEqual([]);
    // Everything: each once.
    const everything = await all(merchantId, {});
    expect(everything.sort()).toEqual([first.id, ...others.map((o) => o.transaction.id)].sort());
  });

  it('keeps searching across a lost list entry; the sweep lists the transaction again', async () => {
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const t = Date.UTC(2026, 5, 3, 10);
    const stored = [];
    for (let i = 0; i < 4; i++)
      stored.push((await store.insertOrGet(payin(merchantId, `h${i}`, new Date(t + i)))).transaction);
    await mongo
      .collection('transaction_index')
      .deleteOne({ _id: chainKey(streamOf(merchantId, { by: 'all' }), 2) as never });
    expect(await all(merchantId, {})).toEqual([stored[3]!.id, stored[2]!.id, stored[0]!.id]);
    const repaired = await store.index.repairHoles(
      async (m) => (await store.findById(m.id))?.createdAt ?? null,
    );
    expect(repaired).toEqual({ holes: 1, reappended: 1, marked: 0 });
    expect(await all(merchantId, {})).toEqual([stored[1]!.id, stored[3]!.id, stored[2]!.id, stored[0]!.id]);
    expect(
      await all(merchantId, { from: new Date(t + 1).toISOString(), to: new Date(t + 2).toISOString() }),
    ).toEqual([stored[1]!.id]);
  });
});
