import { Schema, type Connection, type Model } from 'mongoose';
import type { Currency } from '../domain/money';
import type { FieldError, ProblemCode } from '../contract/problems';
import type { Text } from '../contract/i18n';
import type { BatchItemInput } from '../contract/schemas/payout-batch';
import { insertOnce } from './insert-once';

// Bulk payouts. A batch is one document under `_id` = its id (which its idempotency key names), read
// and written by `_id` only. It keeps the items as sent, so that whoever finishes it (the request,
// its retry, or the batch's workflow after a crash) decides from the same input. An atomic batch's
// decision is a document of its own (`payout_batch_decisions`, `_id` = the batch id), inserted once:
// several attempts may run at once, and FerretDB's conditional updates are not atomic, so the unique
// `_id` is what lets exactly one of them decide.

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
  /**
   * Atomic only: a copy of the decision, for readers. The decision itself is the batch's document in
   * `payout_batch_decisions` (decide()); batches decided before it existed have only this copy.
   */
  decision: 'accepted' | 'refused' | null;
  /**
   * Atomic only: the holds as earlier versions recorded them. No longer written nor read: the holds
   * are the ledger's movements under the batch (`batch:<id>:hold:<account>`).
   */
  held: BatchHold[];
  results: StoredItemResult[] | null;
  createdAt: Date;
  /** When every accepted item was final (and `payout.batch.completed` was recorded). */
  completedAt: Date | null;
}

/** An atomic batch's decision, taken once: the first attempt to insert it decides for every other. */
export interface BatchDecision {
  batchId: string;
  decision: 'accepted' | 'refused';
  /** Refused: every item's result, as the deciding attempt found them (the others answer these). */
  results: StoredItemResult[] | null;
  decidedAt: Date;
}

type DecisionDoc = BatchDecision & { _id: string };
const decisionSchema = new Schema<DecisionDoc>(
  {
    _id: { type: String, required: true },
    batchId: { type: String, required: true },
    decision: { type: String, required: true },
    results: { type: Schema.Types.Mixed, default: null },
    decidedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'payout_batch_decisions' },
);

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
  constructor(
    private readonly batches: Model<BatchDoc>,
    private readonly decisions: Model<DecisionDoc>,
  ) {}

  static on(conn: Connection): PayoutBatchStore {
    return new PayoutBatchStore(
      (conn.models.PayoutBatch as Model<BatchDoc> | undefined) ??
        conn.model<BatchDoc>('PayoutBatch', batchSchema),
      (conn.models.PayoutBatchDecision as Model<DecisionDoc> | undefined) ??
        conn.model<DecisionDoc>('PayoutBatchDecision', decisionSchema),
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.batches.init(), this.decisions.init()]);
  }

  /**
   * Decides an atomic batch, once: inserts this decision unless one is stored, and answers the
   * stored one either way (the caller follows it, whatever it proposed). The batch's own copy is
   * written after, for readers.
   */
  async decide(proposed: BatchDecision): Promise<BatchDecision> {
    const { created, value } = await insertOnce(
      () => this.decisions.create({ _id: proposed.batchId, ...proposed }),
      () => this.findDecision(proposed.batchId),
      proposed,
    );
    if (created) await this.update(proposed.batchId, { decision: proposed.decision });
    return value;
  }

  /**
   * The batch's decision, or null while undecided. A batch decided before decisions had their own
   * document has only its copy: that one is made the decision (once, like any other).
   */
  async decisionOf(batch: PayoutBatch): Promise<BatchDecision | null> {
    const found = await this.findDecision(batch.id);
    if (found || !batch.decision) return found;
    return this.decide({
      batchId: batch.id,
      decision: batch.decision,
      results: batch.decision === 'refused' ? batch.results : null,
      decidedAt: new Date(),
    });
  }

  private async findDecision(batchId: string): Promise<BatchDecision | null> {
    return this.decisions.findOne({ _id: batchId }, { _id: 0 }).lean<BatchDecision>().exec();
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
   * Writes what processing learnt, for readers. Several attempts may write at once (FerretDB may
   * then keep either write): what they write follows the one decision and the keyed payouts, so
   * either is right; nothing that decides anything is read back from these fields.
   */
  async update(
    id: string,
    change: Partial<Pick<PayoutBatch, 'state' | 'decision' | 'held' | 'results' | 'completedAt'>>,
  ): Promise<void> {
    await this.batches.updateOne({ _id: id }, { $set: change }).exec();
  }
}
