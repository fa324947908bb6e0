import type { Connection } from 'mongoose';
import { chainKey } from '../../src/persistence/read-chains';
import { streamOf, type IndexList } from '../../src/persistence/transaction-index';
import { storedDirectPayin } from './payin-input';

// A merchant's history written in bulk, in the shape the stores write it (records, the entries of
// their lists of everything, type and provider, reference keys, head hints): what would take hours
// through the API. For the dashboard's home figures (bench/dashboard-home.ts and its test).

export interface SeededRecord {
  id: string;
  kind: 'payin' | 'payout';
  status: 'success' | 'completed' | 'failed' | 'pending';
  amount: number;
  provider: string;
  createdAt: Date;
}

const PROVIDERS = ['MTN_CI', 'ORANGE_CI', 'MOOV_CI', 'WAVE_CI'];

/**
 * `count` transactions of `merchantId` evenly spread from `from` to `to` (ms), in time order: one
 * in five a payout, one in fifty failed, the last `pending` still pending. Ids carry `tag`, which
 * must be unique per call on a database (references are `ref-<n>`, unique per merchant).
 */
export async function seedHistory(
  conn: Connection,
  p: { merchantId: string; count: number; from: number; to: number; tag: string; pending: number },
): Promise<SeededRecord[]> {
  const db = conn.db!;
  const txs = db.collection<{ _id: string }>('transactions');
  const entries = db.collection<{ _id: string }>('transaction_index');
  const refs = db.collection<{ _id: string; id: string }>('transaction_refs');
  const heads = new Map<string, number>();
  const step = (p.to - p.from) / p.count;
  const seeded: SeededRecord[] = [];
  for (let i = 0; i < p.count; i += 1000) {
    const n = Math.min(1000, p.count - i);
    const docs = [];
    const listed: { _id: string }[] = [];
    for (let k = 0; k < n; k++) {
      const seq = i + k;
      const kind = seq % 5 === 0 ? 'payout' : 'payin';
      const id = `${kind === 'payout' ? 'pr' : 'pi'}_${p.tag}${String(seq).padStart(10, '0')}`;
      const provider = PROVIDERS[seq % 4]!;
      const createdAt = new Date(p.from + seq * step);
      const status =
        seq >= p.count - p.pending
          ? 'pending'
          : seq % 50 === 0
            ? 'failed'
            : kind === 'payin'
              ? 'success'
              : 'completed';
      const amount = 1000 + (seq % 50) * 100;
      seeded.push({ id, kind, status, amount, provider, createdAt });
      docs.push({
        ...storedDirectPayin({
          id,
          merchantId: p.merchantId,
          reference: `ref-${seq}`,
          workflowId: `${kind}:${id}`,
        }),
        _id: id,
        kind,
        provider,
        status,
        amount,
        refundIds: [],
        createdAt,
        updatedAt: createdAt,
      });
      const lists: IndexList[] = [
        { by: 'all' },
        { by: 'type', value: kind },
        { by: 'provider', value: provider },
      ];
      for (const list of lists) {
        const stream = streamOf(p.merchantId, list);
        const at = (heads.get(stream) ?? 0) + 1;
        heads.set(stream, at);
        listed.push({
          _id: chainKey(stream, at),
          stream,
          seq: at,
          member: `${kind}:${id}`,
          at: createdAt,
          max: createdAt,
          doc: { kind, id, ref: `ref-${seq}`, p4: String(1000 + (seq % 9000)) },
        } as { _id: string });
      }
    }
    await txs.insertMany(docs, { ordered: false });
    await entries.insertMany(listed, { ordered: false });
    await refs.insertMany(
      docs.map((d) => ({ _id: `${p.merchantId}|${d.kind}|${d.reference}`, id: d.id })),
      { ordered: false },
    );
  }
  const hints = db.collection<{ _id: string; seq: number }>('transaction_index_heads');
  for (const [stream, seq] of heads) await hints.replaceOne({ _id: stream }, { seq }, { upsert: true });
  return seeded;
}
