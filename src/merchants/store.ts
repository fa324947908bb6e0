import { Schema, type Connection, type Model } from 'mongoose';
import type { ApiCredential, Merchant } from './merchant';

// Merchants and their credentials, in two collections, each keyed by its own id: a merchant's `_id`
// is its id (`mer_…`), a credential's `_id` its api_key. Every authentication is then two `_id`
// lookups, the only filter FerretDB pushes down (any other filter decodes the whole collection),
// and `_id` is what keeps them unique (FerretDB has no transactions to lean on). The `id` and
// `apiKey` fields stay in the documents for readers of the raw collections; documents written
// before (ObjectId `_id`) are moved to their key at start (migrateToKeyedIds).

type MerchantDoc = Merchant & { _id: string };
type CredentialDoc = Omit<ApiCredential, 'lastUsedAt'> & { _id: string };

const merchantSchema = new Schema<MerchantDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    name: { type: String, required: true },
    status: { type: String, required: true },
    settings: { refundWindowDays: { type: Number, required: true }, payFee: { type: Boolean } },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'merchants' },
);

const credentialSchema = new Schema<CredentialDoc>(
  {
    _id: { type: String, required: true },
    apiKey: { type: String, required: true },
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

export type MerchantModel = Model<MerchantDoc>;
export type CredentialModel = Model<CredentialDoc>;
export type KeyUsageModel = Model<KeyUsage>;

export function merchantModel(conn: Connection): MerchantModel {
  return (
    (conn.models.Merchant as MerchantModel | undefined) ?? conn.model<MerchantDoc>('Merchant', merchantSchema)
  );
}

export function credentialModel(conn: Connection): CredentialModel {
  return (
    (conn.models.ApiCredential as CredentialModel | undefined) ??
    conn.model<CredentialDoc>('ApiCredential', credentialSchema)
  );
}

export function keyUsageModel(conn: Connection): KeyUsageModel {
  return (
    (conn.models.ApiKeyUsage as KeyUsageModel | undefined) ??
    conn.model<KeyUsage>('ApiKeyUsage', keyUsageSchema)
  );
}

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Moves documents written with an ObjectId `_id` to `_id` = their `keyField` (idempotent, safe to
 * run from several processes at once, and after a crash half-way: the copy is inserted before the
 * original is deleted, and a copy already there counts as done). The unique index on `keyField`
 * that older versions created is dropped first (it would refuse the copy); `_id` now keeps the
 * key unique. A full read of the collection, once per start, never on a request path.
 */
export async function migrateToKeyedIds(model: Model<never>, keyField: string): Promise<number> {
  const collection = model.collection;
  const legacy = (await collection.find({}).toArray()).filter((d) => typeof d._id !== 'string');
  if (legacy.length === 0) return 0;
  const indexes = await collection.indexes();
  for (const index of indexes)
    if (index.unique && index.name && Object.keys(index.key).join() === keyField)
      await collection.dropIndex(index.name);
  for (const doc of legacy) {
    const key = (doc as Record<string, unknown>)[keyField];
    if (typeof key !== 'string') continue;
    const { _id: oldId, ...rest } = doc;
    try {
      await collection.insertOne({ ...rest, _id: key as never });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    await collection.deleteOne({ _id: oldId });
  }
  return legacy.length;
}
