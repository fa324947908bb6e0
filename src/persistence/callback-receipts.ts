import { createHash } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

// Callbacks already received, from either door (a provider's connector or the sandbox simulator's
// HMAC), so that a replay of the same signed callback is acknowledged without a second signal.
// Shared by every API process: "first" rests on a unique insert of a hash of what was signed as
// `_id` (FerretDB enforces unique `_id`s; a find-then-insert would race).
//
// FerretDB has no TTL index: a receipt's `_id` starts with the minute after which its signature is
// refused anyway, so the receipts no longer needed are the `_id`s below a prefix, and are pruned by
// one delete at most once a minute per process, off the request path. The collection only ever
// holds the callbacks whose signatures could still be accepted, so that delete stays small.

interface ReceiptDoc {
  /** `<minute the signature stops being accepted, 10 digits>.<sha256 of signer and signed content>`. */
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

/**
 * What identifies one signed callback: what its signature covers, exactly, per signer. Not the
 * transaction it names: a provider sends the same transaction again with a new status, and that
 * is another callback.
 */
export interface SignedCallback {
  /** Who signed it: the operator code (simulator HMAC) or the connector's name (`pawapay`, …). */
  signer: string;
  /** The bytes the signature covers (the simulator: `<timestamp>.<body>`; pawaPay: the signature base). */
  content: string | Buffer;
  /** Unix seconds after which the signature is refused anyway: the receipt may go then. */
  acceptedUntil: number;
}

export class CallbackReceiptStore {
  private lastPruneMs = 0;

  constructor(
    private readonly model: Model<ReceiptDoc>,
    private readonly onPruneError: (err: unknown) => void = () => {},
  ) {}

  static on(conn: Connection, onPruneError?: (err: unknown) => void): CallbackReceiptStore {
    return new CallbackReceiptStore(
      (conn.models.OperatorCallbackReceipt as Model<ReceiptDoc> | undefined) ??
        conn.model<ReceiptDoc>('OperatorCallbackReceipt', receiptSchema),
      onPruneError,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  static idOf(cb: SignedCallback): string {
    const digest = createHash('sha256').update(`${cb.signer}\n`).update(cb.content).digest('hex');
    return `${minuteKey(cb.acceptedUntil)}.${digest}`;
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

  /** Undoes a receipt whose delivery failed, so the provider's retry of the same callback gets through. */
  async forget(cb: SignedCallback): Promise<void> {
    await this.model.deleteOne({ _id: CallbackReceiptStore.idOf(cb) }).exec();
  }

  /**
   * Deletes the receipts of callbacks whose signature can no longer be accepted, with a minute of
   * clock margin between processes.
   */
  async prune(now = new Date()): Promise<void> {
    const horizonSec = Math.floor(now.getTime() / 1000) - 60;
    await this.model.deleteMany({ _id: { $lt: minuteKey(horizonSec) } }).exec();
  }

  private pruneSoon(now: Date): void {
    if (now.getTime() - this.lastPruneMs < 60_000) return;
    this.lastPruneMs = now.getTime();
    this.prune(now).catch(this.onPruneError);
  }
}
