import { Schema, type Connection, type Model } from 'mongoose';
import type { Mode } from '../../domain/modes';
import { hashToken, newToken } from '../identity/tokens';

// Dashboard sessions, server-side (docs/decisions/dashboard/server-side-sessions.md). The cookie
// holds 32 random bytes; the store keeps their SHA-256 as `_id`, so reading one is an `_id` read.
// A new session is created at every sign-in and nothing issued before it is ever accepted (no
// fixation). A session ends on sign-out, after IDLE_MS without a request, after LIFETIME_MS in all,
// and when its member's epoch moves (role change, password reset or change) or the member is
// removed; the member may end one or all of theirs (docs/decisions/dashboard/password-change-and-sessions.md).

export const SESSION_COOKIE = 'dashboard_session';
export const IDLE_MS = 30 * 60_000;
export const LIFETIME_MS = 12 * 3_600_000;
/** `lastSeenAt` is written at most this often: a page's burst of requests costs one write. */
const TOUCH_EVERY_MS = 60_000;
/** Ended sessions are deleted at a sign-in, at most this often per process. */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface SessionRecord {
  _id: string;
  memberId: string;
  merchantId: string;
  mode: Mode;
  csrfToken: string;
  /** The member's sessionEpoch when it was opened. */
  epoch: number;
  /** The browser's User-Agent at sign-in (256 characters at most), for the member's list. */
  userAgent?: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** When a TOTP code was last checked again (POST /auth/step-up): live keys need it recent. */
  steppedUpAt?: Date | null;
}

const sessionSchema = new Schema<SessionRecord>(
  {
    _id: { type: String, required: true },
    /** Indexed: a member's own list, and sign out everywhere. */
    memberId: { type: String, required: true, index: true },
    merchantId: { type: String, required: true },
    mode: { type: String, required: true },
    csrfToken: { type: String, required: true },
    epoch: { type: Number, required: true },
    userAgent: { type: String, default: '' },
    createdAt: { type: Date, required: true },
    lastSeenAt: { type: Date, required: true, index: true },
    expiresAt: { type: Date, required: true, index: true },
    steppedUpAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'dashboard_sessions' },
);

export class SessionStore {
  constructor(
    private readonly model: Model<SessionRecord>,
    private readonly idleMs = IDLE_MS,
    private readonly lifetimeMs = LIFETIME_MS,
  ) {}

  static on(conn: Connection, opts: { idleMs?: number; lifetimeMs?: number } = {}): SessionStore {
    return new SessionStore(
      (conn.models.DashboardSession as Model<SessionRecord> | undefined) ??
        conn.model<SessionRecord>('DashboardSession', sessionSchema),
      opts.idleMs,
      opts.lifetimeMs,
    );
  }

  private lastSweep = 0;

  async init(): Promise<void> {
    await this.model.init();
  }

  /**
   * Deletes the sessions that ended without a sign-out (idle or past their lifetime): a session
   * is refused once ended whether or not it is deleted, so this only keeps the collection small.
   * FerretDB has no TTL index; at most one sweep per SWEEP_EVERY_MS per process.
   */
  async sweepEnded(now = new Date()): Promise<number> {
    this.lastSweep = now.getTime();
    const res = await this.model.deleteMany({
      $or: [{ expiresAt: { $lte: now } }, { lastSeenAt: { $lte: new Date(now.getTime() - this.idleMs) } }],
    });
    return res.deletedCount;
  }

  /** A new session for a member who just proved who they are: its cookie token, shown once. */
  async open(
    member: { id: string; merchantId: string },
    epoch: number,
    now = new Date(),
    userAgent = '',
  ): Promise<string> {
    const token = newToken();
    await this.model.create({
      userAgent: userAgent.slice(0, 256),
      _id: hashToken(token),
      memberId: member.id,
      merchantId: member.merchantId,
      mode: 'test',
      csrfToken: newToken(),
      epoch,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.lifetimeMs),
    });
    if (Date.now() - this.lastSweep >= SWEEP_EVERY_MS) await this.sweepEnded();
    return token;
  }

  /** The live session a cookie token names, its idle clock moved on; null (and deleted) when ended. */
  async resume(token: string, now = new Date()): Promise<SessionRecord | null> {
    const id = hashToken(token);
    const session = await this.model.findById(id).lean<SessionRecord>();
    if (!session) return null;
    const t = now.getTime();
    if (t >= session.expiresAt.getTime() || t - session.lastSeenAt.getTime() >= this.idleMs) {
      await this.end(id);
      return null;
    }
    if (t - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      await this.model.updateOne({ _id: id }, { $set: { lastSeenAt: now } });
      session.lastSeenAt = now;
    }
    return session;
  }

  async setMode(id: string, mode: Mode): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { mode } });
  }

  /** A second factor checked now (the code's step is consumed by the caller). */
  async steppedUp(id: string, at = new Date()): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { steppedUpAt: at } });
  }

  async end(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id });
  }

  /** The member's sessions still alive under `epoch`, newest first (the member's own list). */
  async ofMember(memberId: string, epoch: number, now = new Date()): Promise<SessionRecord[]> {
    const t = now.getTime();
    const list = await this.model.find({ memberId }).lean<SessionRecord[]>();
    return list
      .filter(
        (s) => s.epoch === epoch && t < s.expiresAt.getTime() && t - s.lastSeenAt.getTime() < this.idleMs,
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  /** Ends every session of the member but `keep` (if given): sign out everywhere. */
  async endAllOf(memberId: string, keep?: string): Promise<number> {
    const res = await this.model.deleteMany({ memberId, ...(keep ? { _id: { $ne: keep } } : {}) });
    return res.deletedCount;
  }
}

/** The id a member's list shows for a session: derived from its stored id, never its token. */
export const publicSessionId = (id: string): string => `ses_${hashToken(`list:${id}`).slice(0, 24)}`;

const browsers: readonly [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrome\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const systems: readonly [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Firefox on Windows": a short reading of a User-Agent, for the list of one's sessions. */
export function deviceOf(userAgent: string): string {
  const browser = browsers.find(([re]) => re.test(userAgent))?.[1];
  const os = systems.find(([re]) => re.test(userAgent))?.[1];
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? (userAgent.trim().slice(0, 40) || 'Unknown device');
}

/** The session token from a Cookie header, or null. */
export function sessionTokenOf(cookieHeader: string | undefined): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
    }
  }
  return null;
}
