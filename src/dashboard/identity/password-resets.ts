import { Schema, type Connection, type Model } from 'mongoose';
import { hashToken, newToken, type TokenUses } from './tokens';

// Password-reset links: single-use, one hour. Stored as the token's SHA-256; used once through the
// token uses' unique insert (tokens.ts), like invitations.

export const RESET_TTL_MS = 3_600_000;

export interface ResetRecord {
  _id: string;
  memberId: string;
  createdAt: Date;
  expiresAt: Date;
}

const resetSchema = new Schema<ResetRecord>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'dashboard_password_resets' },
);

export class PasswordResetStore {
  constructor(
    private readonly model: Model<ResetRecord>,
    private readonly uses: TokenUses,
  ) {}

  static on(conn: Connection, uses: TokenUses): PasswordResetStore {
    return new PasswordResetStore(
      (conn.models.DashboardPasswordReset as Model<ResetRecord> | undefined) ??
        conn.model<ResetRecord>('DashboardPasswordReset', resetSchema),
      uses,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async create(memberId: string, now = new Date()): Promise<string> {
    const token = newToken();
    await this.model.create({
      _id: hashToken(token),
      memberId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESET_TTL_MS),
    });
    return token;
  }

  /** The member id the link resets, once: null when unknown, expired or already used. */
  async consume(token: string, now = new Date()): Promise<string | null> {
    const reset = await this.model.findById(hashToken(token)).lean<ResetRecord>();
    if (!reset || reset.expiresAt.getTime() <= now.getTime()) return null;
    return (await this.uses.consume(`reset:${reset._id}`)) ? reset.memberId : null;
  }
}
