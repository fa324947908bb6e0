import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { CallbackReceiptStore, type SignedCallback } from '../../src/persistence/callback-receipts';

// The receipts behind the replay guard of the callback door, on FerretDB: one first receipt per
// signed callback across processes, and receipts whose signature is no longer accepted pruned by
// their `_id` prefix.
describe('callback receipts', () => {
  let mongo: Connection;
  beforeAll(async () => {
    mongo = await connectTestMongo();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  const nowSec = Math.floor(Date.now() / 1000);
  const cb = (body: string, timestamp = nowSec, signer = 'MTN'): SignedCallback => ({
    signer,
    content: Buffer.from(`${timestamp}.${body}`),
    acceptedUntil: timestamp + 300,
  });

  it('takes the first receipt once, even from concurrent API processes', async () => {
    const a = CallbackReceiptStore.on(mongo);
    const b = CallbackReceiptStore.on(mongo);
    await a.init();
    const same = cb('{"kind":"collection","id":"pr_1"}');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).firstReceipt(same)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    // Another timestamp, body or signer is another callback.
    expect(await a.firstReceipt(cb('{"kind":"collection","id":"pr_1"}', nowSec + 1))).toBe(true);
    expect(await a.firstReceipt(cb('{"kind":"collection","id":"pr_2"}'))).toBe(true);
    expect(await a.firstReceipt(cb('{"kind":"collection","id":"pr_1"}', nowSec, 'ORANGE'))).toBe(true);
  });

  it('forgets a receipt whose delivery failed, so the retry gets through', async () => {
    const store = CallbackReceiptStore.on(mongo);
    const one = cb('{"kind":"collection","id":"pr_forget"}');
    expect(await store.firstReceipt(one)).toBe(true);
    expect(await store.firstReceipt(one)).toBe(false);
    await store.forget(one);
    expect(await store.firstReceipt(one)).toBe(true);
  });

  it('prunes receipts whose signature window has passed and keeps the others', async () => {
    const store = CallbackReceiptStore.on(mongo);
    const old = cb('{"kind":"collection","id":"pr_old"}', nowSec - 300 - 180);
    const recent = cb('{"kind":"collection","id":"pr_recent"}', nowSec - 240);
    await store.firstReceipt(old);
    await store.firstReceipt(recent);
    await store.prune(new Date(nowSec * 1000));
    const ids = (await mongo.collection('operator_callback_receipts').find({}).toArray()).map((d) => d._id);
    expect(ids).not.toContain(CallbackReceiptStore.idOf(old));
    expect(ids).toContain(CallbackReceiptStore.idOf(recent));
    // A pruned one was outside the window anyway: the signature check refuses it before the store.
  });
});
