import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKey } from '../../persistence/insert-once';

// Mail the dashboard sends (invitations, password resets, a password changed, alerts). No SMTP yet
// (docs/decisions/dashboard/mail-outbox-before-smtp.md): messages go to the `dashboard_mail`
// collection, where an operator (or a relay added later) reads them, and tests find their links.
// Nothing here logs an address or a link.

export interface Mail {
  to: string;
  kind: 'invitation' | 'password-reset' | 'password-changed' | 'alert';
  subject: string;
  text: string;
  /** Sent once under this id: a second send of it is dropped (the alerts' mail sweep, retried). */
  id?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export interface StoredMail extends Mail {
  _id: string;
  createdAt: Date;
}

const mailSchema = new Schema<StoredMail>(
  {
    _id: { type: String, required: true },
    to: { type: String, required: true },
    kind: { type: String, required: true },
    subject: { type: String, required: true },
    text: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'dashboard_mail' },
);

export class MailOutbox implements Mailer {
  constructor(private readonly model: Model<StoredMail>) {}

  static on(conn: Connection): MailOutbox {
    return new MailOutbox(
      (conn.models.DashboardMail as Model<StoredMail> | undefined) ??
        conn.model<StoredMail>('DashboardMail', mailSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async send(mail: Mail): Promise<void> {
    const { id, ...message } = mail;
    try {
      await this.model.create({
        ...message,
        _id: id ?? `mail_${randomBytes(12).toString('hex')}`,
        createdAt: new Date(),
      });
    } catch (err) {
      if (id === undefined || !isDuplicateKey(err)) throw err;
    }
  }

  /** The messages sent to an address, newest first (tests; an operator's look-up). */
  async to(address: string): Promise<StoredMail[]> {
    const list = await this.model.find({ to: address.trim().toLowerCase() }).lean<StoredMail[]>();
    return list.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
}
