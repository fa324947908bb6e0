import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKey } from '../../persistence/insert-once';

// Secrets handed to a browser or a mailbox (session cookies, invitation and reset links): 32 random
// bytes, stored as their SHA-256 only, so a copy of the database opens no session and no link.

export const newToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Constant-time comparison of two strings (a CSRF token against the session's). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

interface UseDoc {
  _id: string;
  usedAt: Date;
}
const useSchema = new Schema<UseDoc>(
  { _id: { type: String, required: true }, usedAt: { type: Date, required: true } },
  { versionKey: false, collection: 'dashboard_token_uses' },
);

/**
 * Single use of a link: FerretDB updates are read-then-replace, so "mark used if unused" is not
 * atomic. Inserting a document under the token's `_id` is: of two accepts racing, one insert wins.
 */
export class TokenUses {
  constructor(private readonly model: Model<UseDoc>) {}

  static on(conn: Connection): TokenUses {
    return new TokenUses(
      (conn.models.DashboardTokenUse as Model<UseDoc> | undefined) ??
        conn.model<UseDoc>('DashboardTokenUse', useSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async used(key: string): Promise<boolean> {
    return (await this.model.exists({ _id: key })) !== null;
  }

  /** How many of these keys are used (one query). */
  async countUsed(keys: string[]): Promise<number> {
    return keys.length === 0 ? 0 : this.model.countDocuments({ _id: { $in: keys } });
  }

  /** True for the one caller that consumed it; false when it was already used. */
  async consume(key: string, now = new Date()): Promise<boolean> {
    try {
      await this.model.create({ _id: key, usedAt: now });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
}
