import { createHash, randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

// Short-lived, single-use tokens that open a WebSocket from a browser (which cannot send a Basic
// header with the upgrade). Stored hashed in MongoDB, so any API process accepts them.
//
// Single use rests on a unique insert: FerretDB's find-and-delete is a read then a delete, so
// concurrent consumers could all read the token before any deletes it. Consuming inserts the
// token's hash as the `_id` of a `ws_tokens_used` document; only one insert of an `_id` succeeds.

interface WsTokenDoc {
  /** The token's SHA-256, so the lookup is an `_id` lookup. */
  _id: string;
  /** The same hash: the field (and its unique index) predate the `_id` key. */
  tokenHash: string;
  merchantId: string;
  /** The api_key that issued it, so that revoking the key closes the stream it opened. */
  apiKey?: string | null;
  expiresAt: Date;
}

interface UsedTokenDoc {
  _id: string;
  /** Kept until the token would have expired anyway, then swept. */
  expiresAt: Date;
}

const tokenSchema = new Schema<WsTokenDoc>(
  {
    _id: { type: String, required: true },
    tokenHash: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    apiKey: { type: String, default: null },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

const usedSchema = new Schema<UsedTokenDoc>(
  {
    _id: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'ws_tokens_used' },
);

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

export class WsTokenStore {
  constructor(
    private readonly model: Model<WsTokenDoc>,
    private readonly used: Model<UsedTokenDoc>,
    private readonly ttlMs = 60_000,
  ) {}

  static on(conn: Connection, ttlMs?: number): WsTokenStore {
    return new WsTokenStore(
      (conn.models.WsToken as Model<WsTokenDoc> | undefined) ??
        conn.model<WsTokenDoc>('WsToken', tokenSchema),
      (conn.models.WsTokenUsed as Model<UsedTokenDoc> | undefined) ??
        conn.model<UsedTokenDoc>('WsTokenUsed', usedSchema),
      ttlMs,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
    await this.used.init();
  }

  async issue(merchantId: string, apiKey?: string): Promise<{ token: string; expiresAt: Date }> {
    const token = `wst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + this.ttlMs);
    this.sweepExpired();
    const tokenHash = hash(token);
    await this.model.create({ _id: tokenHash, tokenHash, merchantId, apiKey: apiKey ?? null, expiresAt });
    return { token, expiresAt };
  }

  private lastSweep = 0;

  /**
   * No TTL index on FerretDB: expired tokens and their use markers are swept on the back of an
   * issue, at most once a minute per process and not awaited, so the scan is never on the request's
   * path. A marker is swept only after its token expired, so the token cannot be used again.
   */
  private sweepExpired(): void {
    if (Date.now() - this.lastSweep < this.ttlMs) return;
    this.lastSweep = Date.now();
    const now = new Date();
    void Promise.all([
      this.model.deleteMany({ expiresAt: { $lt: now } }).exec(),
      this.used.deleteMany({ expiresAt: { $lt: now } }).exec(),
    ]).catch(() => undefined);
  }

  /** The token's merchant if it is valid; it cannot be used again. */
  async consume(token: string): Promise<string | null> {
    return (await this.consumeGrant(token))?.merchantId ?? null;
  }

  /** The token's merchant and issuing key (null for tokens issued before keys were recorded). */
  async consumeGrant(token: string): Promise<{ merchantId: string; apiKey: string | null } | null> {
    const id = hash(token);
    const doc = await this.model.findById(id).lean<WsTokenDoc>().exec();
    if (!doc || doc.expiresAt.getTime() <= Date.now()) return null;
    try {
      await this.used.create({ _id: id, expiresAt: doc.expiresAt });
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
    // Tidying only: the marker above is what refuses a second use.
    await this.model
      .deleteOne({ _id: id })
      .exec()
      .catch(() => undefined);
    return { merchantId: doc.merchantId, apiKey: doc.apiKey ?? null };
  }
}
