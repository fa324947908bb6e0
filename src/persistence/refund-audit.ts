import { Schema, type Connection, type Model } from 'mongoose';
import { newId } from '../domain/ids';

// The audit trail of refund actions (the interface: "refund actions are logged"): who asked, when,
// for what, with which idempotency key, and what came of it. Append-only: nothing updates or
// deletes an entry. Entries written by the refund's workflow carry a unique key, so an activity
// retry logs its step once; requests are logged each time they are made.

export type RefundAuditAction =
  'refund.requested' | 'refund.debited' | 'refund.completed' | 'refund.failed' | 'refund.reversed';

export interface RefundAuditEntry {
  id: string;
  at: Date;
  action: RefundAuditAction;
  /** `merchant` for API calls (with apiKey), `system` for the workflow's own steps. */
  actor: 'merchant' | 'system';
  merchantId: string;
  apiKey: string | null;
  idempotencyKey: string | null;
  payinReference: string;
  refundId: string | null;
  externalReference: string | null;
  /** Minor units asked or moved; null when the request named none. */
  amount: number | null;
  /** `accepted`, or the problem code the request was refused with. */
  outcome: string;
  /** Unique per workflow step, so a retried step is logged once; null for requests. */
  stepKey: string | null;
}

const auditSchema = new Schema<RefundAuditEntry>(
  {
    id: { type: String, required: true, unique: true },
    at: { type: Date, required: true },
    action: { type: String, required: true },
    actor: { type: String, required: true },
    merchantId: { type: String, required: true },
    apiKey: { type: String, default: null },
    idempotencyKey: { type: String, default: null },
    payinReference: { type: String, required: true },
    refundId: { type: String, default: null },
    externalReference: { type: String, default: null },
    amount: { type: Number, default: null },
    outcome: { type: String, required: true },
    stepKey: { type: String, default: null },
  },
  { versionKey: false, minimize: false, collection: 'refund_audit' },
);
auditSchema.index({ merchantId: 1, payinReference: 1, at: 1 });
// Unique on a field most entries leave null: FerretDB has no partial index, so requests get a
// unique stepKey of their own (their id) instead of null.
auditSchema.index({ stepKey: 1 }, { unique: true });

export type RefundAuditInput = Omit<RefundAuditEntry, 'id' | 'at' | 'stepKey'> & { stepKey?: string };

export class RefundAuditLog {
  constructor(private readonly model: Model<RefundAuditEntry>) {}

  static on(conn: Connection): RefundAuditLog {
    const model =
      (conn.models.RefundAudit as Model<RefundAuditEntry> | undefined) ??
      conn.model<RefundAuditEntry>('RefundAudit', auditSchema);
    return new RefundAuditLog(model);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async append(input: RefundAuditInput): Promise<void> {
    const id = newId('aud');
    try {
      await this.model.create({ ...input, id, at: new Date(), stepKey: input.stepKey ?? id });
    } catch (err) {
      // The same workflow step logged by an earlier attempt: once is enough.
      if ((err as { code?: number }).code !== 11000 || !input.stepKey) throw err;
    }
  }

  async list(merchantId: string, payinReference: string): Promise<RefundAuditEntry[]> {
    return this.model
      .find({ merchantId, payinReference }, { _id: 0 })
      .sort({ at: 1 })
      .lean<RefundAuditEntry[]>()
      .exec();
  }
}
