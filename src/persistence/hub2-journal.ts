import { Schema, type Connection, type Model } from 'mongoose';
import type { Hub2Journal, Hub2JournalEntry } from '../operators/connectors/hub2/connector';
import { insertOnce } from './insert-once';
import { retryOnWriteConflict } from './write-conflict';

// The Hub2 connector's journal (src/operators/connectors/hub2/connector.ts): Hub2 documents no
// idempotency key, so what makes a retry safe is kept here, one document per key under a unique
// `_id` (insert-once decides between two processes). It holds Hub2's ids and the intent's token,
// never a phone number. Entries stay: they are what proves, later, that a request was sent.

interface JournalDoc {
  /** `collection:<id>`, `collection:<id>:attempt`, `disbursement:<id>`, `refund:<id>`. */
  _id: string;
  intentId?: string;
  token?: string;
  createdAt: Date;
}

const journalSchema = new Schema<JournalDoc>(
  {
    _id: { type: String, required: true },
    intentId: { type: String },
    token: { type: String },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'hub2_journal' },
);

const entryOf = (doc: JournalDoc): Hub2JournalEntry => ({
  key: doc._id,
  ...(doc.intentId ? { intentId: doc.intentId } : {}),
  ...(doc.token ? { token: doc.token } : {}),
});

export class Hub2JournalStore implements Hub2Journal {
  constructor(private readonly model: Model<JournalDoc>) {}

  static on(conn: Connection): Hub2JournalStore {
    return new Hub2JournalStore(
      (conn.models.Hub2Journal as Model<JournalDoc> | undefined) ??
        conn.model<JournalDoc>('Hub2Journal', journalSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async insertOnce(entry: Hub2JournalEntry): Promise<{ created: boolean; entry: Hub2JournalEntry }> {
    const { created, value } = await insertOnce(
      () =>
        this.model.create({
          _id: entry.key,
          ...(entry.intentId ? { intentId: entry.intentId } : {}),
          ...(entry.token ? { token: entry.token } : {}),
          createdAt: new Date(),
        }),
      () => this.find(entry.key),
      entry,
    );
    return { created, entry: value };
  }

  async find(key: string): Promise<Hub2JournalEntry | null> {
    const doc = await this.model.findById(key).lean<JournalDoc>().exec();
    return doc ? entryOf(doc) : null;
  }

  async remove(key: string): Promise<void> {
    await retryOnWriteConflict(() => this.model.deleteOne({ _id: key }).exec());
  }
}
