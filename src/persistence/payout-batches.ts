import { Schema, type Connection, type Model } from 'mongoose';
import type { Currency } from '../domain/money';
import type { FieldError, ProblemCode } from '../contract/problems';
import type { Text } from '../contract/i18n';
import type { BatchItemInput } from '../contract/schemas/payout-batch';
import { insertOnce } from './insert-once';

// Bulk payouts. A batch is one document under `_id` = its id (which its idempotency key names), read
// and written by `_id` only. It keeps the items as sent, so that whoever finishes it (the request,
// its retry, or the batch's workflow after a crash) decides from the same input.

export interface BatchItemProblem {
  code: ProblemCode;
  detail?: Text;
  errors?: FieldError[];
}

export interface StoredItemResult {
  index: number;
  reference: string | null;
  result: 'accepted' | 'refused';
  /** Accepted: the payout (`pr_…`). */
  transactionId: string | null;
  problem: BatchItemProblem | null;
}

/** An item as stored: valid (its parsed request), or refused before anything (its problem). */
export type BatchItem = { input: BatchItemInput } | { reference: string | null; problem: BatchItemProblem };

/** What an atomic batch placed on hold, per account debited. */
export interface BatchHold {
  accountId: string;
  currency: Currency;
  /** Minor units: the sum of the items' chargedAmount. */
  amount: number;
}

export interface PayoutBatch {
  id: string;
  merchantId: string;
  idempotencyKey: string;
  /** The creating request's fingerprint: its items' payouts keep `<it>#<index>`. */
  requestFingerprint: string | null;
  atomic: boolean;
  /** The items, checked when the batch was made: each valid one as sent, or why it is refused. */
  items: BatchItem[];
  /** `open` while items are being created; `done` once every item has its result. */
  state: 'open' | 'done';
  /** Atomic only: whether the holds covered the whole batch (written before anything moves on). */
  decision: 'accepted' | 'refused' | null;
  /** Atomic only: the holds applied so far. */
  held: BatchHold[];
  results: StoredItemResult[] | null;
  createdAt: Date;
  /** When every accepted item was final (and `payout.batch.completed` was recorded). */
  completedAt: Date | null;
}

type BatchDoc = PayoutBatch & { _id: string };
const batchSchema = new Schema<BatchDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    merchantId: { type: String, required: true },
    idempotencyKey: { type: String, required: true },
    requestFingerprint: { type: String, default: null },
    atomic: { type: Boolean, required: true },
    items: { type: Schema.Types.Mixed, required: true },
    state: { type: String, required: true },
    decision: { type: String, default: null },
    held: { type: Schema.Types.Mixed, default: [] },
    results: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    completedAt: { type: Date, default: null },
  },
  { versionKey: false, minimize: false, collection: 'payout_batches' },
);

export class PayoutBatchStore {
  constructor(private readonly batches: Model<BatchDoc>) {}

  static on(conn: Connection): PayoutBatchStore {
    return new PayoutBatchStore(
      (conn.models.PayoutBatch as Model<BatchDoc> | undefined) ??
        conn.model<BatchDoc>('PayoutBatch', batchSchema),
    );
  }

  async init(): Promise<void> {
    await this.batches.init();
  }

  /** Inserts once: the same id (a retried request) answers the stored one. */
  async insertOrGet(batch: PayoutBatch): Promise<{ created: boolean; batch: PayoutBatch }> {
    const { created, value } = await insertOnce(
      () => this.batches.create({ _id: batch.id, ...batch }),
      () => this.findById(batch.id),
      batch,
    );
    return { created, batch: value };
  }

  async findById(id: string): Promise<PayoutBatch | null> {
    return this.batches.findOne({ _id: id }, { _id: 0 }).lean<PayoutBatch>().exec();
  }

  /** A merchant's batch; another merchant's is not found. */
  async find(merchantId: string, id: string): Promise<PayoutBatch | null> {
    const batch = await this.findById(id);
    return batch?.merchantId === merchantId ? batch : null;
  }

  /**
   * Writes what processing learnt. One writer at a time per batch (the request holds its idempotency
   * claim; the workflow takes over only long after), so a whole-document write loses nothing.
   */
  async update(
    id: string,
    change: Partial<Pick<PayoutBatch, 'state' | 'decision' | 'held' | 'results' | 'completedAt'>>,
  ): Promise<void> {
    await this.batches.updateOne({ _id: id }, { $set: change }).exec();
  }
}
