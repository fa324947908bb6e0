import { Schema, type Connection, type Model } from 'mongoose';

// A merchant's dashboard settings, set by an owner: today one, whether every member needs TOTP
// (docs/decisions/dashboard/require-totp-for-all-members.md). One document per merchant, `_id` =
// the merchant id (an `_id` read, what FerretDB pushes down); no document: the defaults.

export interface MerchantSettings {
  /** Every member must set up TOTP: until then, they may only do that. */
  requireTotp: boolean;
}

interface SettingsDoc extends MerchantSettings {
  _id: string;
  updatedAt: Date;
  updatedBy: string;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    _id: { type: String, required: true },
    requireTotp: { type: Boolean, required: true },
    updatedAt: { type: Date, required: true },
    updatedBy: { type: String, required: true },
  },
  { versionKey: false, collection: 'dashboard_merchant_settings' },
);

export const defaultMerchantSettings: MerchantSettings = { requireTotp: false };

export class MerchantSettingsStore {
  constructor(private readonly model: Model<SettingsDoc>) {}

  static on(conn: Connection): MerchantSettingsStore {
    return new MerchantSettingsStore(
      (conn.models.DashboardMerchantSettings as Model<SettingsDoc> | undefined) ??
        conn.model<SettingsDoc>('DashboardMerchantSettings', settingsSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async of(merchantId: string): Promise<MerchantSettings> {
    const doc = await this.model.findById(merchantId).lean<SettingsDoc>();
    return doc ? { requireTotp: doc.requireTotp } : { ...defaultMerchantSettings };
  }

  /** The whole document is replaced (one setting, one writer at a time: an owner's page). */
  async set(merchantId: string, settings: MerchantSettings, memberId: string): Promise<void> {
    await this.model.replaceOne(
      { _id: merchantId },
      { requireTotp: settings.requireTotp, updatedAt: new Date(), updatedBy: memberId },
      { upsert: true },
    );
  }
}
