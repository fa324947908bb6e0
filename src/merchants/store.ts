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
  },
  { versionKey: false, minimize: false, collection: 'api_credentials' },
);

/**
 * When a key was last used, one small document per key (`_id` = the api_key). Kept apart from the
 * credential because FerretDB rewrites a whole document on every update: a usage write that read
 * the credential before a revoke would otherwise write `status: active` back after it.
 */
export interface KeyUsage {
  _id: string;
  lastUsedAt: Date;
}

const keyUsageSchema = new Schema<KeyUsage>(
  {
    _id: { type: String, required: true },
    lastUsedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'api_key_usage' },
);

export type MerchantModel = Model<Merchant>;
export type CredentialModel = Model<ApiCredential>;
export type KeyUsageModel = Model<KeyUsage>;

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

export function keyUsageModel(conn: Connection): KeyUsageModel {
  return (
    (conn.models.ApiKeyUsage as KeyUsageModel | undefined) ??
    conn.model<KeyUsage>('ApiKeyUsage', keyUsageSchema)
  );
}
