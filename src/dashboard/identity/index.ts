import type { Connection } from 'mongoose';
import type { KeyRing } from '../../security/key-ring';
import { AuditLog } from '../access/audit-log';
import { SessionStore } from '../access/sessions';
import { InvitationStore } from './invitations';
import { MailOutbox, type Mailer } from './mailer';
import { MemberStore } from './members';
import { PasswordResetStore } from './password-resets';
import { TokenUses } from './tokens';
import { RecoveryCodes, looksLikeRecoveryCode } from './recovery-codes';
import { MerchantSettingsStore } from './merchant-settings';
import { totpStep } from './totp';
import type { MemberRecord } from './members';

export { MemberStore, EmailTakenError, normalizeEmail, memberView, type MemberRecord } from './members';
export { InvitationStore, INVITATION_TTL_MS, type InvitationRecord } from './invitations';
export { PasswordResetStore, RESET_TTL_MS } from './password-resets';
export { MailOutbox, type Mail, type Mailer } from './mailer';
export { RecoveryCodes, RECOVERY_CODE_COUNT } from './recovery-codes';
export { MerchantSettingsStore, type MerchantSettings } from './merchant-settings';

/** The dashboard's stores on one connection: who may sign in, their sessions, links, mail, audit. */
export class DashboardIdentity {
  constructor(
    readonly members: MemberStore,
    readonly invitations: InvitationStore,
    readonly resets: PasswordResetStore,
    readonly sessions: SessionStore,
    readonly audit: AuditLog,
    readonly outbox: MailOutbox,
    readonly mailer: Mailer,
    readonly settings: MerchantSettingsStore,
    readonly recoveryCodes: RecoveryCodes,
  ) {}

  static on(conn: Connection, keys: KeyRing, mailer?: Mailer): DashboardIdentity {
    const uses = TokenUses.on(conn);
    const outbox = MailOutbox.on(conn);
    const identity = new DashboardIdentity(
      MemberStore.on(conn, keys),
      InvitationStore.on(conn, uses),
      PasswordResetStore.on(conn, uses),
      SessionStore.on(conn),
      AuditLog.on(conn),
      outbox,
      mailer ?? outbox,
      MerchantSettingsStore.on(conn),
      new RecoveryCodes(uses),
    );
    identity.uses = uses;
    return identity;
  }

  private uses: TokenUses | null = null;

  /** True once per member and TOTP step: a code seen on the wire cannot sign in a second time. */
  async consumeTotpStep(memberId: string, step: number): Promise<boolean> {
    return this.uses ? this.uses.consume(`totp:${memberId}:${step}`) : true;
  }

  /**
   * The second factor typed at sign-in: a TOTP code (its step consumed) or a recovery code (used
   * up); null when neither is valid. `secret` is the member's opened TOTP secret.
   */
  async secondFactor(
    member: MemberRecord,
    secret: string,
    typed: string,
  ): Promise<'totp' | 'recovery' | null> {
    if (looksLikeRecoveryCode(typed))
      return (await this.recoveryCodes.consume(member, typed)) ? 'recovery' : null;
    const step = totpStep(secret, typed);
    return step !== null && (await this.consumeTotpStep(member._id, step)) ? 'totp' : null;
  }

  async init(): Promise<void> {
    await Promise.all([
      this.members.init(),
      this.invitations.init(),
      this.resets.init(),
      this.sessions.init(),
      this.audit.init(),
      this.outbox.init(),
      this.settings.init(),
      this.uses?.init(),
    ]);
  }
}

/** The link an invitation's token opens (the page's route), from the public base URL. */
export const invitationLink = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/dashboard/invitations/${token}`;
export const resetLink = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/dashboard/reset-password/${token}`;
