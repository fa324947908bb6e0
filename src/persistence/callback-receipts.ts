import { createHash } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

// Operator callbacks already received, so that a replay of the same signed callback within its
// signature window is dropped. Shared by every API process: "first" rests on a unique insert of
// the callback's hash as `_id` (FerretDB enforces unique `_id`s; a find-then-insert would race).
//
// FerretDB has no TTL index: a receipt's `_id` starts with the minute of its signed timestamp, so
// the receipts whose window has passed are the `_id`s below a prefix, and are pruned by one
// delete at most once a minute per process, off the request path. The collection only ever holds
// the last few minutes of callbacks, so that delete stays small.

interface ReceiptDoc {
  /** `<minute of the signed timestamp, 10 digits>.<sha256 of operator, timestamp and body>`. */
  _id: string;
  receivedAt: Date;
}

const receiptSchema = new Schema<ReceiptDoc>(
  {
    _id: { type: String, required: true },
    receivedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'operator_callback_receipts' },
);

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;
const minuteKey = (unixSec: number) => String(Math.floor(unixSec / 60)).padStart(10, '0');

/** What identifies one signed callback: what its signature covers (timestamp and body), per operator. */
export interface SignedCallback {
  operator: string;
  /** The signature's timestamp, unix seconds. */
  timestamp: number;
  body: Buffer;
}

export class CallbackReceiptStore {
  private lastPruneMs = 0;

  constructor(
    private readonly model: Model<ReceiptDoc>,
    /** How long after its timestamp a callback is still accepted (plus the clock margin below). */
    private readonly windowSec: number,
    private readonly onPruneError: (err: unknown) => void = () => {},
  ) {}

  static on(
    conn: Connection,
    windowSec: number,
    onPruneError?: (err: unknown) => void,
  ): CallbackReceiptStore {
    return new CallbackReceiptStore(
      (conn.models.OperatorCallbackReceipt as Model<ReceiptDoc> | undefined) ??
        conn.model<ReceiptDoc>('OperatorCallbackReceipt', receiptSchema),
      windowSec,
      onPruneError,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  static idOf(cb: SignedCallback): string {
    const digest = createHash('sha256')
      .update(`${cb.operator}\n${cb.timestamp}\n`)
      .update(cb.body)
      .digest('hex');
    return `${minuteKey(cb.timestamp)}.${digest}`;
  }

  /** True the first time this signed callback is seen (by any process); false for a replay. */
  async firstReceipt(cb: SignedCallback, now = new Date()): Promise<boolean> {
    this.pruneSoon(now);
    try {
      await this.model.create({ _id: CallbackReceiptStore.idOf(cb), receivedAt: now });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Undoes a receipt whose delivery failed, so the operator's retry of the same callback gets through. */
  async forget(cb: SignedCallback): Promise<void> {
    await this.model.deleteOne({ _id: CallbackReceiptStore.idOf(cb) }).exec();
  }

  /**
   * Deletes the receipts of callbacks whose signature can no longer be accepted: timestamps more
   * than the window (and a minute of clock margin between processes) in the past.
   */
  async prune(now = new Date()): Promise<void> {
    const horizonSec = Math.floor(now.getTime() / 1000) - this.windowSec - 60;
    await this.model.deleteMany({ _id: { $lt: minuteKey(horizonSec) } }).exec();
  }

  private pruneSoon(now: Date): void {
    if (now.getTime() - this.lastPruneMs < 60_000) return;
    this.lastPruneMs = now.getTime();
    this.prune(now).catch(this.onPruneError);
  }
}
