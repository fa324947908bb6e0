import { createHash } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { hashToken, newToken, type TokenUses } from './tokens';

// Password-reset links: single-use, one hour. Stored as the token's SHA-256; used once through the
// token uses' unique insert (tokens.ts), like invitations. A link is bound to the password it was
// asked under (a fingerprint of the member's password hash, salted, so it changes at every new
// password): completing any link, or changing the password, leaves every other link dead, without
// a write to the links (docs/decisions/dashboard/password-change-and-sessions.md).

export const RESET_TTL_MS = 3_600_000;

export interface ResetRecord {
  _id: string;
  memberId: string;
  /** passwordFingerprint() of the member's password hash when the link was asked for. */
  passwordFingerprint: string;
  createdAt: Date;
  expiresAt: Date;
}

const resetSchema = new Schema<ResetRecord>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    passwordFingerprint: { type: String, required: true },
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

  async create(member: { _id: string; passwordHash: string }, now = new Date()): Promise<string> {
    const token = newToken();
    await this.model.create({
      _id: hashToken(token),
      memberId: member._id,
      passwordFingerprint: passwordFingerprint(member.passwordHash),
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESET_TTL_MS),
    });
    return token;
  }

  /**
   * The member the link resets, once: null when unknown, expired, used, or asked for under a
   * password the member no longer has. Of two links (or a link and a password change) racing, one
   * wins: each consumes the single use of the member's current password (`passwordChange`).
   */
  async consume<M extends { _id: string; passwordHash: string }>(
    token: string,
    memberOf: (memberId: string) => Promise<M | null>,
    now = new Date(),
  ): Promise<M | null> {
    const reset = await this.model.findById(hashToken(token)).lean<ResetRecord>();
    if (!reset || reset.expiresAt.getTime() <= now.getTime()) return null;
    const member = await memberOf(reset.memberId);
    if (!member || passwordFingerprint(member.passwordHash) !== reset.passwordFingerprint) return null;
    if (!(await this.uses.consume(`reset:${reset._id}`))) return null;
    return (await this.passwordChange(member)) ? member : null;
  }

  /**
   * True for the one change of the member's current password (a reset or a change): an insert under
   * `password:<member>:<fingerprint>`, so two changes from the same password cannot both pass.
   */
  passwordChange(member: { _id: string; passwordHash: string }): Promise<boolean> {
    return this.uses.consume(`password:${member._id}:${passwordFingerprint(member.passwordHash)}`);
  }
}

/** A short digest of a password hash (itself salted): changes whenever the password does. */
export const passwordFingerprint = (passwordHash: string): string =>
  createHash('sha256').update(`reset:${passwordHash}`, 'utf8').digest('hex').slice(0, 32);
