import { Schema, type Connection, type Model } from 'mongoose';
import type { Refund, RefundStatus, RefundTransactionStatus } from '../domain/refund';
import type { Failure, Transaction } from '../domain/transaction';

// Refunds of payins. The payin's workflow decides and serialises them; this collection is what the
// API reads. The unique (merchantId, payinId, externalReference) index backs the workflow's own
// duplicate check, so two refunds with one externalReference cannot both exist whatever happens.
// The refund's id is its `_id`: reads and updates by id name `_id` alone, the only filter FerretDB
// 1.24's SQLite backend pushes down.
type RefundDoc = Refund & { _id: string };
const refundSchema = new Schema<RefundDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    transactionRef: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    payinId: { type: String, required: true },
    payinReference: { type: String, required: true },
    externalReference: { type: String, required: true },
    reason: { type: String, required: true },
    amount: { type: Number, required: true },
    fee: { type: Number, required: true },
    currency: { type: String, required: true },
    refundType: { type: String, required: true },
    status: { type: String, required: true },
    transactionStatus: { type: String, required: true },
    processedAt: { type: Date, default: null },
    customerMsisdn: { type: String, required: true },
    customerName: { type: String, default: '' },
    sandboxScenario: { type: String, default: null },
    failure: { type: Schema.Types.Mixed, default: null },
    idempotencyKey: { type: String, default: null },
    apiKey: { type: String, default: null },
    workflowId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'refunds' },
);
refundSchema.index({ merchantId: 1, payinId: 1, externalReference: 1 }, { unique: true });
refundSchema.index({ payinId: 1, createdAt: 1 });

export type RefundModel = Model<RefundDoc>;

export interface RefundProgress {
  status: RefundStatus;
  transactionStatus?: RefundTransactionStatus;
  processedAt?: Date | null;
  failure?: Failure | null;
}

export class RefundStore {
  constructor(private readonly model: RefundModel) {}

  static on(conn: Connection): RefundStore {
    const model =
      (conn.models.Refund as RefundModel | undefined) ?? conn.model<RefundDoc>('Refund', refundSchema);
    return new RefundStore(model);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Inserts once: a retried insert of the same refund id answers the stored one. */
  async insertOrGet(refund: Refund): Promise<Refund> {
    try {
      await this.model.create({ _id: refund.id, ...refund });
      return refund;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const existing = await this.findById(refund.id);
      if (!existing) throw err; // another refund holds this externalReference: never merged
      return existing;
    }
  }

  async findById(id: string): Promise<Refund | null> {
    return this.model.findOne({ _id: id }, { _id: 0 }).lean<Refund>().exec();
  }

  /** A merchant's refund by its rf_ reference; another merchant's is not found. */
  async find(merchantId: string, id: string): Promise<Refund | null> {
    const refund = await this.findById(id);
    return refund?.merchantId === merchantId ? refund : null;
  }

  async findByExternalReference(
    merchantId: string,
    payinId: string,
    externalReference: string,
  ): Promise<Refund | null> {
    return this.model.findOne({ merchantId, payinId, externalReference }, { _id: 0 }).lean<Refund>().exec();
  }

  /**
   * The payin's refunds, oldest first. By `_id` from the list the payin keeps (`refundIds`); a payin
   * stored before that list existed and never refunded since has none, and only then are the
   * refunds searched (a scan on FerretDB 1.24, growing with refunds).
   */
  async ofPayin(payin: Pick<Transaction, 'id' | 'merchantId' | 'refundIds'>): Promise<Refund[]> {
    if (!payin.refundIds) return this.searchOfPayin(payin.merchantId, payin.id);
    const found = await Promise.all(payin.refundIds.map((id) => this.find(payin.merchantId, id)));
    return found
      .filter((r): r is Refund => r !== null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  async searchOfPayin(merchantId: string, payinId: string): Promise<Refund[]> {
    return this.model
      .find({ merchantId, payinId }, { _id: 0 })
      .sort({ createdAt: 1, id: 1 })
      .lean<Refund[]>()
      .exec();
  }

  /** Idempotent: the refund's workflow is its only writer, and setting the same fields twice is harmless. */
  async update(id: string, progress: RefundProgress): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { ...progress, updatedAt: new Date() } }).exec();
  }
}
