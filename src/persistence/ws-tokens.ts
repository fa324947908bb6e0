import { createHash, randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

// Short-lived, single-use tokens that open a WebSocket from a browser (which cannot send a Basic
// header with the upgrade). Stored hashed in MongoDB, so any API process accepts them.

interface WsTokenDoc {
  tokenHash: string;
  merchantId: string;
  expiresAt: Date;
}

const tokenSchema = new Schema<WsTokenDoc>(
  {
    tokenHash: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class WsTokenStore {
  constructor(
    private readonly model: Model<WsTokenDoc>,
    private readonly ttlMs = 60_000,
  ) {}

  static on(conn: Connection, ttlMs?: number): WsTokenStore {
    return new WsTokenStore(
      (conn.models.WsToken as Model<WsTokenDoc> | undefined) ??
        conn.model<WsTokenDoc>('WsToken', tokenSchema),
      ttlMs,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async issue(merchantId: string): Promise<{ token: string; expiresAt: Date }> {
    const token = `wst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + this.ttlMs);
    // No TTL index on FerretDB: expired tokens are swept here, on the back of an issue.
    await this.model.deleteMany({ expiresAt: { $lt: new Date() } }).exec();
    await this.model.create({ tokenHash: hash(token), merchantId, expiresAt });
    return { token, expiresAt };
  }

  /** The token's merchant if it is valid; it cannot be used again. */
  async consume(token: string): Promise<string | null> {
    const doc = await this.model
      .findOneAndDelete({ tokenHash: hash(token) })
      .lean<WsTokenDoc>()
      .exec();
    return doc && doc.expiresAt.getTime() > Date.now() ? doc.merchantId : null;
  }
}
