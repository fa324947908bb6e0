import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { KeyRing } from '../security/key-ring';
import { retryOnWriteConflict } from './write-conflict';

// Orange OTPs, kept out of Temporal history: the API stores the customer's OTP here and hands the
// workflow only its id; the activity that asks the operator reads it by id. One document per OTP,
// sealed with DATA_ENCRYPTION_KEYS under its own id as AAD (a sealed value copied onto another id
// does not open), with a short lifetime.
//
// FerretDB has no TTL index, so deletion is ours: the payin workflow deletes the OTP once the
// operator acknowledged the request, when the payin's collection ends, or when a timer of the OTP's
// lifetime fires (docs/payins.md, "OTP handling"). An OTP past `expiresAt` reads as absent even
// before its deletion, and every `put` sweeps expired ones (a document a crashed API process left
// behind, never referenced by any workflow). Reads are `_id` lookups.

interface OtpDoc {
  /** `otp_<random>`: fresh per request, never derived from the payin. */
  _id: string;
  /** `KeyRing.sealString(otp, aad = _id)`. */
  sealed: string;
  expiresAt: Date;
}

const otpSchema = new Schema<OtpDoc>(
  {
    _id: { type: String, required: true },
    sealed: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'otps' },
);

export const isOtpId = (id: string): boolean => /^otp_[0-9a-f]{32}$/.test(id);

export class OtpStore {
  constructor(
    private readonly model: Model<OtpDoc>,
    private readonly keys: KeyRing,
    /** OTP_LIFETIME. */
    readonly lifetimeMs: number,
  ) {}

  static on(conn: Connection, keys: KeyRing, lifetimeMs: number): OtpStore {
    const model = (conn.models.Otp as Model<OtpDoc> | undefined) ?? conn.model<OtpDoc>('Otp', otpSchema);
    return new OtpStore(model, keys, lifetimeMs);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Stores the OTP sealed, for `lifetimeMs`; returns the id that stands for it from here on. */
  async put(otp: string, now = new Date()): Promise<{ id: string; expiresAt: Date }> {
    await this.sweep(now);
    const id = `otp_${randomBytes(16).toString('hex')}`;
    const expiresAt = new Date(now.getTime() + this.lifetimeMs);
    await retryOnWriteConflict(() =>
      this.model.create({ _id: id, sealed: this.keys.sealString(otp, id), expiresAt }),
    );
    return { id, expiresAt };
  }

  /**
   * The OTP, or null when it is gone (used, forgotten, expired). It stays until `forget`: the activity
   * that asks the operator may run again (same operator id) after a timeout, and must send it again.
   */
  async read(id: string, now = new Date()): Promise<string | null> {
    if (!isOtpId(id)) return null;
    const doc = await this.model.findById(id).lean<OtpDoc>().exec();
    if (!doc || doc.expiresAt.getTime() <= now.getTime()) return null;
    return this.keys.openString(doc.sealed, id);
  }

  /** Deletes the OTP; forgetting one that is gone is a no-op. */
  async forget(id: string): Promise<void> {
    await retryOnWriteConflict(() => this.model.deleteOne({ _id: id }).exec());
  }

  /**
   * Expired OTPs that no workflow will delete (a crash between storing one and starting its
   * workflow). The collection only holds OTPs of the last few minutes: a scan of it stays small.
   */
  private async sweep(now: Date): Promise<void> {
    await this.model
      .deleteMany({ expiresAt: { $lt: now } })
      .exec()
      .catch(() => undefined);
  }
}
