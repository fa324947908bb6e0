import { Schema, type Connection, type Model } from 'mongoose';
import type { ApiCredential, Merchant } from './merchant';

// Merchants and their credentials, in two collections. The unique indexes on the merchant id and
// on the api_key are what keep them unique (FerretDB has no transactions to lean on).

const merchantSchema = new Schema<Merchant>(
  {
    id: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    status: { type: String, required: true },
    settings: { refundWindowDays: { type: Number, required: true } },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'merchants' },
);

const credentialSchema = new Schema<ApiCredential>(
  {
    apiKey: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true, index: true },
    secretHash: { type: String, required: true },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
  },
  { versionKey: false, minimize: false, collection: 'api_credentials' },
);

export type MerchantModel = Model<Merchant>;
export type CredentialModel = Model<ApiCredential>;

export function merchantModel(conn: Connection): MerchantModel {
  return (
    (conn.models.Merchant as MerchantModel | undefined) ?? conn.model<Merchant>('Merchant', merchantSchema)
  );
}

export function credentialModel(conn: Connection): CredentialModel {
  return (
    (conn.models.ApiCredential as CredentialModel | undefined) ??
    conn.model<ApiCredential>('ApiCredential', credentialSchema)
  );
}
