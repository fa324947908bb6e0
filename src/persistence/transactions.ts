import { Schema, type Connection, type Model } from 'mongoose';
import type { Transaction } from '../domain/transaction';

// Payins and payouts. One document per transaction; the workflow is its only writer after creation.
const transactionSchema = new Schema<Transaction>(
  {
    id: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    kind: { type: String, required: true },
    reference: { type: String, required: true },
    flow: { type: String, required: true },
    status: { type: String, required: true },
    confirmationRequired: { type: Boolean, required: true },
    confirmationStatus: { type: String, required: true },
    paymentUrl: { type: String, default: null },
    customer: { name: { type: String, default: '' }, phoneNumber: { type: String, required: true } },
    country: { type: String, required: true },
    provider: { type: String, default: null },
    currency: { type: String, required: true },
    amount: { type: Number, required: true },
    fee: { type: Number, required: true },
    chargedAmount: { type: Number, required: true },
    payFee: { type: Boolean, required: true },
    sandboxScenario: { type: String, default: null },
    failure: { type: Schema.Types.Mixed, default: null },
    action: {
      type: new Schema({ successUrl: String, failureUrl: String }, { _id: false }),
      default: undefined,
    },
    payout: { type: Schema.Types.Mixed, default: undefined },
    workflowId: { type: String, required: true },
    idempotencyKey: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);
// A merchant's reference identifies one payin and one payout at most: the unique index is what
// makes a duplicate impossible under concurrency (FerretDB has no transactions).
transactionSchema.index({ merchantId: 1, kind: 1, reference: 1 }, { unique: true });

export type TransactionModel = Model<Transaction>;

export function transactionModel(conn: Connection): TransactionModel {
  return (
    (conn.models.Transaction as TransactionModel | undefined) ??
    conn.model<Transaction>('Transaction', transactionSchema)
  );
}

export class TransactionStore {
  constructor(private readonly model: TransactionModel) {}

  static on(conn: Connection): TransactionStore {
    return new TransactionStore(transactionModel(conn));
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Inserts; answers the stored one when this merchant already used the reference for this kind. */
  async insertOrGet(tx: Transaction): Promise<{ created: boolean; transaction: Transaction }> {
    try {
      await this.model.create(tx);
      return { created: true, transaction: tx };
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const existing = await this.find(tx.merchantId, tx.kind, tx.reference);
      if (!existing) throw err;
      return { created: false, transaction: existing };
    }
  }

  async find(merchantId: string, kind: Transaction['kind'], reference: string): Promise<Transaction | null> {
    return this.model.findOne({ merchantId, kind, reference }, { _id: 0 }).lean<Transaction>().exec();
  }

  async findById(id: string): Promise<Transaction | null> {
    return this.model.findOne({ id }, { _id: 0 }).lean<Transaction>().exec();
  }

  /** Removes a transaction nothing happened to yet (a payout whose debit was refused). */
  async removeUnstarted(id: string): Promise<void> {
    await this.model.deleteOne({ id, status: 'pending' }).exec();
  }

  /** Idempotent: setting the same fields twice leaves the same document. */
  async update(id: string, fields: Partial<Transaction>): Promise<void> {
    await this.model.updateOne({ id }, { $set: { ...fields, updatedAt: new Date() } }).exec();
  }
}
