import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { KeyRing } from '../../security/key-ring';
import { isDuplicateKey } from '../../persistence/insert-once';
import type { Role } from '../access/roles';
import type { DashboardMember } from '../access/guard';

// The dashboard's team members. One merchant per member, and an address belongs to one team
// (docs/decisions/dashboard/one-merchant-per-member.md): sign-in asks for the address alone and
// finds its member through `dashboard_member_emails`, `_id` = the address (FerretDB pushes down
// `_id` filters only). TOTP secrets are sealed with DATA_ENCRYPTION_KEYS, the member id as aad.

export interface MemberRecord {
  _id: string;
  merchantId: string;
  /** Lower-cased. */
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  /** Sealed; null until enabled. */
  totpSecret: string | null;
  /** Sealed; set by setup, moved to totpSecret by the first valid code. */
  totpPending: string | null;
  /** SHA-256 of the TOTP recovery codes (recovery-codes.ts), each single use; [] without TOTP. */
  recoveryCodes: string[];
  failedSignIns: number;
  lockedUntil: Date | null;
  /** Raised at every role change and password reset or change: sessions opened under an older epoch end. */
  sessionEpoch: number;
  createdAt: Date;
  updatedAt: Date;
}

const memberSchema = new Schema<MemberRecord>(
  {
    _id: { type: String, required: true },
    merchantId: { type: String, required: true },
    email: { type: String, required: true },
    name: { type: String, required: true },
    role: { type: String, required: true },
    passwordHash: { type: String, required: true },
    totpSecret: { type: String, default: null },
    totpPending: { type: String, default: null },
    recoveryCodes: { type: [String], default: [] },
    failedSignIns: { type: Number, default: 0 },
    lockedUntil: { type: Date, default: null },
    sessionEpoch: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'dashboard_members' },
);
memberSchema.index({ merchantId: 1, email: 1 }, { unique: true });

interface EmailDoc {
  _id: string;
  memberId: string;
  merchantId: string;
}
const emailSchema = new Schema<EmailDoc>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    merchantId: { type: String, required: true },
  },
  { versionKey: false, collection: 'dashboard_member_emails' },
);

export class EmailTakenError extends Error {
  constructor() {
    super('this address already belongs to a dashboard team');
  }
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export class MemberStore {
  constructor(
    private readonly members: Model<MemberRecord>,
    private readonly emails: Model<EmailDoc>,
    private readonly keys: KeyRing,
  ) {}

  static on(conn: Connection, keys: KeyRing): MemberStore {
    return new MemberStore(
      (conn.models.DashboardMember as Model<MemberRecord> | undefined) ??
        conn.model<MemberRecord>('DashboardMember', memberSchema),
      (conn.models.DashboardMemberEmail as Model<EmailDoc> | undefined) ??
        conn.model<EmailDoc>('DashboardMemberEmail', emailSchema),
      keys,
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.members.init(), this.emails.init()]);
  }

  async get(id: string): Promise<MemberRecord | null> {
    return this.members.findById(id).lean<MemberRecord>();
  }

  async byEmail(email: string): Promise<MemberRecord | null> {
    const entry = await this.emails.findById(normalizeEmail(email)).lean<EmailDoc>();
    if (!entry) return null;
    const member = await this.get(entry.memberId);
    // A directory entry whose member is gone (removed, or a creation cut short) is no member.
    return member && member.email === entry._id ? member : null;
  }

  /** Whether the address is free to join a team (its directory entry is absent or stale). */
  async emailFree(email: string): Promise<boolean> {
    return (await this.byEmail(email)) === null;
  }

  /** Team listing (not a hot path: an owner's page). */
  async ofMerchant(merchantId: string): Promise<MemberRecord[]> {
    const list = await this.members.find({ merchantId }).lean<MemberRecord[]>();
    return list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async create(input: {
    merchantId: string;
    email: string;
    name: string;
    role: Role;
    passwordHash: string;
  }): Promise<MemberRecord> {
    const now = new Date();
    const email = normalizeEmail(input.email);
    const id = `mem_${randomBytes(12).toString('hex')}`;
    // The directory entry is the claim on the address: unique `_id`, so two creations cannot both win.
    try {
      await this.emails.create({ _id: email, memberId: id, merchantId: input.merchantId });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const stale = await this.emails.findById(email).lean<EmailDoc>();
      if (!stale || (await this.get(stale.memberId))) throw new EmailTakenError();
      await this.emails.replaceOne({ _id: email }, { memberId: id, merchantId: input.merchantId });
    }
    const record: MemberRecord = {
      _id: id,
      merchantId: input.merchantId,
      email,
      name: input.name,
      role: input.role,
      passwordHash: input.passwordHash,
      totpSecret: null,
      totpPending: null,
      recoveryCodes: [],
      failedSignIns: 0,
      lockedUntil: null,
      sessionEpoch: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.members.create(record);
    return record;
  }

  private async set(id: string, fields: Partial<MemberRecord>): Promise<void> {
    await this.members.updateOne({ _id: id }, { $set: { ...fields, updatedAt: new Date() } });
  }

  async setRole(member: MemberRecord, role: Role): Promise<void> {
    await this.set(member._id, { role, sessionEpoch: member.sessionEpoch + 1 });
  }

  async setPassword(member: MemberRecord, passwordHash: string): Promise<void> {
    await this.set(member._id, {
      passwordHash,
      sessionEpoch: member.sessionEpoch + 1,
      failedSignIns: 0,
      lockedUntil: null,
    });
  }

  async remove(member: MemberRecord): Promise<void> {
    await this.members.deleteOne({ _id: member._id });
    await this.emails.deleteOne({ _id: member.email, memberId: member._id });
  }

  /** A failed sign-in: after `maxFailures` in a row the account is locked for `lockMs`. */
  async failedSignIn(member: MemberRecord, maxFailures: number, lockMs: number): Promise<void> {
    const failures = member.failedSignIns + 1;
    await this.set(member._id, {
      failedSignIns: failures >= maxFailures ? 0 : failures,
      ...(failures >= maxFailures ? { lockedUntil: new Date(Date.now() + lockMs) } : {}),
    });
  }

  async signedIn(member: MemberRecord): Promise<void> {
    if (member.failedSignIns !== 0 || member.lockedUntil !== null)
      await this.set(member._id, { failedSignIns: 0, lockedUntil: null });
  }

  async setPendingTotp(member: MemberRecord, secret: string): Promise<void> {
    await this.set(member._id, { totpPending: this.keys.sealString(secret, member._id) });
  }

  /** TOTP on, with the hashes of its first recovery codes. */
  async enableTotp(member: MemberRecord, secret: string, recoveryCodes: string[]): Promise<void> {
    await this.set(member._id, {
      totpSecret: this.keys.sealString(secret, member._id),
      totpPending: null,
      recoveryCodes,
    });
  }

  /** A new set of recovery codes (their hashes): the previous set is void. */
  async setRecoveryCodes(member: MemberRecord, recoveryCodes: string[]): Promise<void> {
    await this.set(member._id, { recoveryCodes });
  }

  totpSecretOf(member: MemberRecord): string | null {
    return member.totpSecret ? this.keys.openString(member.totpSecret, member._id) : null;
  }

  pendingTotpOf(member: MemberRecord): string | null {
    return member.totpPending ? this.keys.openString(member.totpPending, member._id) : null;
  }
}

/** The member as the request sees it (req.member). */
export function memberView(m: MemberRecord): DashboardMember {
  return {
    id: m._id,
    email: m.email,
    name: m.name,
    role: m.role,
    merchantId: m.merchantId,
    totpEnabled: m.totpSecret !== null,
  };
}
