import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { retryOnWriteConflict } from './write-conflict';
import type { KeyRing } from '../security/key-ring';

// One record per (merchant, X-Idempotency-Key), stored under `_id` = `<merchantId>|<key>`. The
// unique `_id` is the lock: FerretDB has no atomic conditional update, so whoever inserts the record
// owns the request; everyone else reads it. Every operation on a POST's path names the record by
// `_id` alone, the only filter FerretDB 1.24's SQLite backend pushes down.

/** Keys are kept this long at least (the interface asks for 24 hours). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRecord {
  /** `<merchantId>|<key>`. */
  _id: string;
  merchantId: string;
  key: string;
  /** sha256 of method, path and canonical body: what "the same request" means. */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** Random per claim: a stale claim is removed by this token, never a newer claim of the same key. */
  claimId: string;
  /**
   * Until when nobody may take the claim over. Its owner renews it while the request runs, so a
   * lock that passes means the owning process died (or stalled for the whole lock).
   */
  lockedUntil: Date;
  status: number | null;
  contentType: string | null;
  /** The answer; sealed (see `bodySealed`) when it carries a secret. */
  body: string | null;
  /** The stored body is sealed with DATA_ENCRYPTION_KEYS (the record's `_id` as associated data). */
  bodySealed?: boolean;
  createdAt: Date;
  expiresAt: Date;
}

const recordSchema = new Schema<IdempotencyRecord>(
  {
    _id: { type: String, required: true },
    merchantId: { type: String, required: true },
    key: { type: String, required: true },
    fingerprint: { type: String, required: true },
    state: { type: String, required: true },
    claimId: { type: String, required: true },
    lockedUntil: { type: Date, required: true },
    status: { type: Number, default: null },
    contentType: { type: String, default: null },
    body: { type: String, default: null },
    bodySealed: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, autoIndex: false },
);
// What the `_id` says, kept for operators' queries by merchant.
recordSchema.index({ merchantId: 1, key: 1 }, { unique: true });

const recordId = (merchantId: string, key: string) => `${merchantId}|${key}`;

export type IdempotencyModel = Model<IdempotencyRecord>;

function idempotencyModel(conn: Connection): IdempotencyModel {
  return (
    (conn.models.IdempotencyKey as IdempotencyModel | undefined) ??
    conn.model<IdempotencyRecord>('IdempotencyKey', recordSchema, 'idempotency_keys')
  );
}

/** Whose claim a completion or release is about: its id, and until when nobody may take it over. */
export interface Claim {
  claimId: string;
  lockedUntil: Date;
}

/** A claim within this much of its lock's end is checked before being completed or released. */
const LOCK_MARGIN_MS = 1_000;

export type ClaimResult =
  ({ outcome: 'claimed' } & Claim) | { outcome: 'existing'; record: IdempotencyRecord };

/**
 * Answers that carry a secret: a webhook signing secret (creation, rotation) or a WebSocket token.
 * Their replay must give the same answer (the client may have lost the first, and the secret is
 * shown nowhere else), but no secret may sit in clear in the database: such a body is stored
 * sealed and opened on replay, as Stripe replays a creation's secret.
 */
const carriesSecret = /\b(?:whsec|wst)_/;
/** Without a key ring a secret is not kept at all: the replay shows it was issued, not its value. */
const withheld = (body: string) => body.replace(/\b(?:whsec|wst)_[A-Za-z0-9+/=_-]*/g, '[issued; not kept]');

export class IdempotencyStore {
  constructor(
    readonly model: IdempotencyModel,
    private readonly retentionMs = IDEMPOTENCY_RETENTION_MS,
    /** DATA_ENCRYPTION_KEYS: seals answers that carry a secret. */
    private readonly keys?: KeyRing,
  ) {}

  static on(conn: Connection, keys?: KeyRing): IdempotencyStore {
    return new IdempotencyStore(idempotencyModel(conn), IDEMPOTENCY_RETENTION_MS, keys);
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
    // A TTL index for real MongoDB. FerretDB refuses the option ("not implemented"), so there a plain
    // index serves the sweep. Nothing relies on the TTL: expired records are ignored on read and
    // removed by sweepExpired().
    try {
      await this.model.collection.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    } catch (err) {
      const e = err as { code?: number; codeName?: string; message?: string };
      const unsupported =
        e.code === 238 || e.codeName === 'NotImplemented' || /not implemented/i.test(e.message ?? '');
      if (!unsupported) throw err;
      await this.model.collection.createIndex({ expiresAt: 1 });
    }
  }

  /**
   * Inserts an in-progress claim, or answers the record that already holds the key. A record past
   * its retention is treated as absent: it is removed (by its own claimId) and the claim retried.
   */
  async claim(merchantId: string, key: string, fingerprint: string, lockMs: number): Promise<ClaimResult> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = new Date();
      const claimId = randomUUID();
      const lockedUntil = new Date(now.getTime() + lockMs);
      try {
        // The first write of every POST: a SQLite write conflict here is retried, not answered 503.
        await retryOnWriteConflict(() =>
          this.model.create({
            _id: recordId(merchantId, key),
            merchantId,
            key,
            fingerprint,
            state: 'in_progress',
            claimId,
            lockedUntil,
            status: null,
            contentType: null,
            body: null,
            createdAt: now,
            expiresAt: new Date(now.getTime() + this.retentionMs),
          }),
        );
        return { outcome: 'claimed', claimId, lockedUntil };
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
      }
      const existing = await this.find(merchantId, key);
      // Released between our insert and our read: claim again.
      if (!existing) continue;
      if (existing.expiresAt.getTime() <= now.getTime()) {
        await this.remove(merchantId, key, { claimId: existing.claimId, lockedUntil: new Date(0) });
        continue;
      }
      return { outcome: 'existing', record: existing };
    }
    throw new Error(`idempotency key ${key}: could not claim or read it`);
  }

  /**
   * Takes over a claim whose lock expired (its process died): removes exactly that claim, then
   * competes for the key again; the unique index lets one contender win.
   */
  async takeOver(stale: IdempotencyRecord, fingerprint: string, lockMs: number): Promise<ClaimResult> {
    await this.remove(stale.merchantId, stale.key, { claimId: stale.claimId, lockedUntil: new Date(0) });
    return this.claim(stale.merchantId, stale.key, fingerprint, lockMs);
  }

  /** The record, its body opened if it was stored sealed. */
  async find(merchantId: string, key: string): Promise<IdempotencyRecord | null> {
    const record = await this.model
      .findOne({ _id: recordId(merchantId, key) })
      .lean<IdempotencyRecord>()
      .exec();
    if (!record?.bodySealed || record.body === null) return record;
    if (!this.keys) throw new Error(`idempotency record ${record._id}: sealed, and no key ring to open it`);
    return { ...record, body: this.keys.openString(record.body, record._id), bodySealed: false };
  }

  /**
   * Moves the lock of a claim still running `lockMs` on from now, so no retry takes it over while
   * its process lives (the middleware calls this every third of the lock). Answers the renewed
   * claim, or null when it is no longer this claim (taken over after this process stalled).
   */
  async renew(merchantId: string, key: string, claim: Claim, lockMs: number): Promise<Claim | null> {
    const _id = recordId(merchantId, key);
    const record = await this.model.findOne({ _id }).lean<IdempotencyRecord>().exec();
    if (record?.claimId !== claim.claimId || record.state !== 'in_progress') return null;
    const lockedUntil = new Date(Date.now() + lockMs);
    await this.model.updateOne({ _id }, { $set: { lockedUntil } }).exec();
    return { claimId: claim.claimId, lockedUntil };
  }

  /** Stores the response of the request that owns the claim. */
  async complete(
    merchantId: string,
    key: string,
    claim: Claim,
    response: { status: number; contentType: string | null; body: string },
  ): Promise<void> {
    if (!(await this.stillOwned(merchantId, key, claim))) return;
    const _id = recordId(merchantId, key);
    let stored = { ...response, bodySealed: false };
    if (carriesSecret.test(response.body))
      stored = this.keys
        ? { ...response, body: this.keys.sealString(response.body, _id), bodySealed: true }
        : { ...response, body: withheld(response.body), bodySealed: false };
    await this.model.updateOne({ _id }, { $set: { state: 'completed', ...stored } }).exec();
  }

  /** Gives the key back (the request had no lasting effect, or failed and may be retried). */
  async release(merchantId: string, key: string, claim: Claim): Promise<void> {
    await this.remove(merchantId, key, claim);
  }

  /** Removes exactly this claim, never a newer claim of the same key. */
  private async remove(merchantId: string, key: string, claim: Claim): Promise<void> {
    if (!(await this.stillOwned(merchantId, key, claim))) return;
    await this.model.deleteOne({ _id: recordId(merchantId, key) }).exec();
  }

  /**
   * Whether the record is still this claim. While its lock runs nobody may take it over, so it is
   * (no read needed: the common case costs one write); near or past the lock's end it is read.
   * The read and the write that follows are not atomic (FerretDB has no conditional update that
   * is): a takeover in between is the same window the filtered update had there.
   */
  private async stillOwned(merchantId: string, key: string, claim: Claim): Promise<boolean> {
    if (claim.lockedUntil.getTime() - LOCK_MARGIN_MS > Date.now()) return true;
    return (await this.find(merchantId, key))?.claimId === claim.claimId;
  }

  /** Deletes records past their retention; answers how many. */
  async sweepExpired(now = new Date()): Promise<number> {
    const res = await this.model.deleteMany({ expiresAt: { $lte: now } }).exec();
    return res.deletedCount;
  }
}
