import autocannon from 'autocannon';
import type { Connection } from 'mongoose';
import { basic } from '../../test/helpers/http';
import { round, sizes } from '../common';

// Phase 4: status reads, first with 1,000 stored transactions, then with BENCH_STORED of them.

/**
 * Tops the merchant's stored transactions up to `total` with copies of a real payin record (the
 * reads only need documents of the real shape; running that many workflows would take hours),
 * stored as TransactionStore stores them: `_id` = id, and a `transaction_refs` entry per reference
 * (without it a read of a copy is a 404, and the figure measures nothing).
 */
export async function storeSynthetic(
  mongo: Connection,
  merchantId: string,
  total: number,
  known: string[],
  templateReference: string,
): Promise<void> {
  const col = mongo.db!.collection<{ _id: string }>('transactions');
  const refs = mongo.db!.collection<{ _id: string; id: string }>('transaction_refs');
  const template = await col.findOne({ merchantId, reference: templateReference });
  if (!template) throw new Error('no template payin');
  const { _id: _ignored, ...fields } = template;
  let count = await col.countDocuments({});
  const batch = 1_000;
  while (count < total) {
    const n = Math.min(batch, total - count);
    const docs = Array.from({ length: n }, (_, k) => {
      const reference = `stored-${count + k}`;
      const id = `pr_stored${count + k}`;
      known.push(reference);
      return {
        ...fields,
        _id: id,
        id,
        reference,
        workflowId: `payin:${merchantId}:${reference}`,
        idempotencyKey: null,
      };
    });
    await col.insertMany(docs, { ordered: false });
    await refs.insertMany(
      docs.map((d) => ({ _id: `${merchantId}|payin|${d.reference}`, id: d.id })),
      { ordered: false },
    );
    count += n;
  }
}

export async function readBench(
  url: string,
  credentials: { apiKey: string; apiClient: string },
  refs: string[],
) {
  const result = await autocannon({
    url,
    connections: sizes.concurrency,
    duration: sizes.readSeconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: `/v1/payin/${refs[Math.floor(Math.random() * refs.length)]}`,
          headers: { authorization: basic(credentials) },
        }),
      },
    ],
  });
  return {
    stored: refs.length,
    requests: result.requests.total,
    non2xx: result.non2xx,
    perSecond: round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}
