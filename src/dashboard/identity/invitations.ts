import { Schema, type Connection, type Model } from 'mongoose';
import type { Role } from '../access/roles';
import { hashToken, newToken, type TokenUses } from './tokens';
import { normalizeEmail } from './members';

// Invitations to join a merchant's team: a single-use link valid 7 days. The link's token is kept
// as its SHA-256 (`_id`); using it inserts `invitation:<hash>` into the token uses (tokens.ts), the
// compare-and-set that lets only one of two concurrent accepts create the member.

export const INVITATION_TTL_MS = 7 * 86_400_000;

export interface InvitationRecord {
  _id: string;
  merchantId: string;
  email: string;
  role: Role;
  /** A member id, or 'operator' (the CLI). */
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

const invitationSchema = new Schema<InvitationRecord>(
  {
    _id: { type: String, required: true },
    merchantId: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, required: true },
    invitedBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false, minimize: false, collection: 'dashboard_invitations' },
);

export type InvitationState = 'pending' | 'accepted' | 'expired' | 'revoked';

export class InvitationStore {
  constructor(
    private readonly model: Model<InvitationRecord>,
    private readonly uses: TokenUses,
  ) {}

  static on(conn: Connection, uses: TokenUses): InvitationStore {
    return new InvitationStore(
      (conn.models.DashboardInvitation as Model<InvitationRecord> | undefined) ??
        conn.model<InvitationRecord>('DashboardInvitation', invitationSchema),
      uses,
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** The link's token (shown once) and the stored invitation; its id is the token's hash. */
  async create(input: {
    merchantId: string;
    email: string;
    role: Role;
    invitedBy: string;
    now?: Date;
  }): Promise<{ token: string; invitation: InvitationRecord }> {
    const now = input.now ?? new Date();
    const token = newToken();
    const invitation: InvitationRecord = {
      _id: hashToken(token),
      merchantId: input.merchantId,
      email: normalizeEmail(input.email),
      role: input.role,
      invitedBy: input.invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      revokedAt: null,
    };
    await this.model.create(invitation);
    return { token, invitation };
  }

  async byToken(token: string): Promise<InvitationRecord | null> {
    return this.model.findById(hashToken(token)).lean<InvitationRecord>();
  }

  async byId(id: string): Promise<InvitationRecord | null> {
    return this.model.findById(id).lean<InvitationRecord>();
  }

  async state(inv: InvitationRecord, now = new Date()): Promise<InvitationState> {
    if (inv.revokedAt) return 'revoked';
    if (await this.uses.used(`invitation:${inv._id}`)) return 'accepted';
    if (inv.expiresAt.getTime() <= now.getTime()) return 'expired';
    return 'pending';
  }

  /** True for the one caller that used it. */
  consume(inv: InvitationRecord): Promise<boolean> {
    return this.uses.consume(`invitation:${inv._id}`);
  }

  async revoke(inv: InvitationRecord): Promise<void> {
    await this.model.updateOne({ _id: inv._id }, { $set: { revokedAt: new Date() } });
  }

  /** A merchant's invitations, newest first (an owner's page, not a hot path). */
  async ofMerchant(merchantId: string): Promise<InvitationRecord[]> {
    const list = await this.model.find({ merchantId }).lean<InvitationRecord[]>();
    return list.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
}
