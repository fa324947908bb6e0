import type { Connection } from 'mongoose';

// Payins reconciliation corrected, by `_id` = the payin's id. Written before the credit and marked
// notified once `payin.corrected` went out: a run stopped anywhere in between (a crash, the event
// store down) leaves an open correction that the next run finishes, although by then the payin
// already reads success and credited (which alone would look like nothing to do).

export const CORRECTIONS_COLLECTION = 'reconciliation_corrections';

interface CorrectionDoc {
  _id: string;
  operator: string;
  date: string;
  startedAt: Date;
  notifiedAt: Date | null;
}

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

export class CorrectionLog {
  constructor(private readonly conn: Connection) {}

  static on(conn: Connection): CorrectionLog {
    return new CorrectionLog(conn);
  }

  private get docs() {
    return this.conn.collection<CorrectionDoc>(CORRECTIONS_COLLECTION);
  }

  /** Opens the correction of a payin (once: a second open keeps the first). */
  async open(payinId: string, found: { operator: string; date: string }): Promise<void> {
    try {
      await this.docs.insertOne({ _id: payinId, ...found, startedAt: new Date(), notifiedAt: null });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** True when a correction of this payin was opened and its merchant not yet told. */
  async awaitsNotice(payinId: string): Promise<boolean> {
    const doc = await this.docs.findOne({ _id: payinId });
    return doc !== null && doc.notifiedAt === null;
  }

  async notified(payinId: string): Promise<void> {
    await this.docs.updateOne({ _id: payinId }, { $set: { notifiedAt: new Date() } });
  }
}
