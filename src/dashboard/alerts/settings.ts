import { Schema, type Connection, type Model } from 'mongoose';
import type { AlertSettingsShape } from '../data/shapes';

// The alerts' settings of one mode of a merchant (its scope: test and live balances differ), set
// by an owner or admin on the Team page. One document per scope, `_id` the scope, replaced whole;
// no document: no threshold and no mail (docs/decisions/dashboard/alerts.md).

export type AlertSettings = AlertSettingsShape;

interface SettingsDoc extends AlertSettings {
  _id: string;
  updatedAt: Date;
  updatedBy: string;
}

const schema = new Schema<SettingsDoc>(
  {
    _id: { type: String, required: true },
    balanceBelow: { type: Schema.Types.Mixed, required: true },
    email: { type: Boolean, required: true },
    updatedAt: { type: Date, required: true },
    updatedBy: { type: String, required: true },
  },
  { versionKey: false, minimize: false, collection: 'dashboard_alert_settings' },
);

export const defaultAlertSettings = (): AlertSettings => ({
  balanceBelow: { XOF: null, XAF: null },
  email: false,
});

const shaped = (doc: SettingsDoc): AlertSettings => ({
  balanceBelow: { XOF: doc.balanceBelow.XOF ?? null, XAF: doc.balanceBelow.XAF ?? null },
  email: doc.email,
});

export class AlertSettingsStore {
  constructor(private readonly model: Model<SettingsDoc>) {}

  static on(conn: Connection): AlertSettingsStore {
    return new AlertSettingsStore(
      (conn.models.DashboardAlertSettings as Model<SettingsDoc> | undefined) ??
        conn.model<SettingsDoc>('DashboardAlertSettings', schema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async of(scope: string): Promise<AlertSettings> {
    const doc = await this.model.findById(scope).lean<SettingsDoc>();
    return doc ? shaped(doc) : defaultAlertSettings();
  }

  /** The whole document is replaced: one page sets every field at once, the last save wins. */
  async set(scope: string, settings: AlertSettings, memberId: string): Promise<void> {
    await this.model.replaceOne(
      { _id: scope },
      { ...settings, updatedAt: new Date(), updatedBy: memberId },
      { upsert: true },
    );
  }

  /** The scopes whose alerts are mailed, with their settings (the mail sweep's list; small). */
  async mailed(): Promise<Array<{ scope: string; settings: AlertSettings }>> {
    const docs = await this.model.find({ email: true }).lean<SettingsDoc[]>();
    return docs.map((d) => ({ scope: d._id, settings: shaped(d) }));
  }
}
