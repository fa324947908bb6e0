import type { Connection } from 'mongoose';
import { newId } from '../domain/ids';
import {
  hashSecret,
  looksLikeApiKey,
  newApiKey,
  newSecret,
  secretMatches,
  type KeyMode,
} from './credentials';
import {
  ApiKeyNotFoundError,
  MerchantNotFoundError,
  merchantNameSchema,
  merchantSettingsSchema,
  type ApiCredential,
  type IssuedCredentials,
  type Merchant,
} from './merchant';
import {
  deploymentModel,
  readDeploymentMode,
  recordDeploymentMode,
  type DeploymentMode,
  type DeploymentModel,
} from './deployment';
import {
  credentialModel,
  keyUsageModel,
  merchantModel,
  type CredentialModel,
  type KeyUsageModel,
  type MerchantModel,
} from './store';

export interface MerchantServiceOptions {
  /**
   * `live` keys in production, `test` keys elsewhere (sandbox). Given explicitly (by the service
   * and the CLI), it also records the database's deployment mode at init (see deployment.ts).
   */
  keyMode?: KeyMode;
  /**
   * How long a successful lookup is reused in this process. A key revoked or a merchant
   * suspended from another process (the CLI) keeps working here for at most this long;
   * from this process, the change applies at once. 0 disables the cache.
   */
  authCacheTtlMs?: number;
}

interface CachedLookup {
  merchantId: string;
  secretHash: string;
  expiresAt: number;
}

const maxCachedKeys = 10_000;
/** lastUsedAt is a hint for operators, so each process writes it at most once a minute per key. */
const lastUsedResolutionMs = 60_000;
/** Compared against when the key is unknown, so that an unknown key costs the same as a wrong secret. */
const dummyHash = hashSecret('no such key');

export class MerchantService {
  private readonly cache = new Map<string, CachedLookup>();
  /** When this process last wrote each key's usage. */
  private readonly usageWrittenAt = new Map<string, number>();
  private readonly keyMode: KeyMode;
  private readonly cacheTtlMs: number;
  private readonly recordsDeployment: boolean;

  constructor(
    private readonly merchants: MerchantModel,
    private readonly credentials: CredentialModel,
    private readonly usage: KeyUsageModel,
    private readonly deployment: DeploymentModel,
    options: MerchantServiceOptions = {},
  ) {
    this.keyMode = options.keyMode ?? 'test';
    this.recordsDeployment = options.keyMode !== undefined;
    this.cacheTtlMs = options.authCacheTtlMs ?? 0;
  }

  static on(conn: Connection, options: MerchantServiceOptions = {}): MerchantService {
    return new MerchantService(
      merchantModel(conn),
      credentialModel(conn),
      keyUsageModel(conn),
      deploymentModel(conn),
      options,
    );
  }

  async init(): Promise<void> {
    await this.merchants.init();
    await this.credentials.init();
    await this.usage.init();
    if (this.recordsDeployment)
      await recordDeploymentMode(this.deployment, this.keyMode === 'live' ? 'live' : 'sandbox');
  }

  /** Whether this database holds live or sandbox money (null: no service or CLI recorded it yet). */
  async deploymentMode(): Promise<DeploymentMode | null> {
    return readDeploymentMode(this.deployment);
  }

  /** A new active merchant with its first credential pair. */
  async createMerchant(name: string): Promise<IssuedCredentials> {
    const now = new Date();
    const merchant: Merchant = {
      id: newId('mer'),
      name: merchantNameSchema.parse(name),
      status: 'active',
      settings: merchantSettingsSchema.parse({}),
      createdAt: now,
      updatedAt: now,
    };
    await this.merchants.create(merchant);
    // Not atomic with the insert above (no transactions on FerretDB): a crash here leaves a
    // merchant without keys, which `keys rotate` repairs; never a key without its merchant.
    return this.issue(merchant.id);
  }

  async listMerchants(): Promise<Merchant[]> {
    return this.merchants.find({}, { _id: 0 }).sort({ createdAt: 1, id: 1 }).lean<Merchant[]>().exec();
  }

  async getMerchant(merchantId: string): Promise<Merchant | null> {
    return this.merchants.findOne({ id: merchantId }, { _id: 0 }).lean<Merchant>().exec();
  }

  /** Active and revoked pairs of a merchant, without their hashes. */
  async listKeys(merchantId: string): Promise<Omit<ApiCredential, 'secretHash'>[]> {
    await this.requireMerchant(merchantId);
    const keys = await this.credentials
      .find({ merchantId }, { _id: 0, secretHash: 0 })
      .sort({ createdAt: 1, apiKey: 1 })
      .lean<Omit<ApiCredential, 'secretHash'>[]>()
      .exec();
    const usage = await Promise.all(
      keys.map((k) => this.usage.findById(k.apiKey).lean<{ lastUsedAt: Date }>().exec()),
    );
    // Credentials written before usage moved out may still carry their own lastUsedAt.
    return keys.map((k, i) => ({ ...k, lastUsedAt: usage[i]?.lastUsedAt ?? k.lastUsedAt ?? null }));
  }

  async suspendMerchant(merchantId: string): Promise<Merchant> {
    return this.setStatus(merchantId, 'suspended');
  }

  async reactivateMerchant(merchantId: string): Promise<Merchant> {
    return this.setStatus(merchantId, 'active');
  }

  /** Issues a new pair; the previous ones stay valid until revoked, so clients can switch over. */
  async rotateKeys(merchantId: string): Promise<IssuedCredentials> {
    await this.requireMerchant(merchantId);
    return this.issue(merchantId);
  }

  /** Idempotent: revoking a revoked key changes nothing. */
  async revokeKey(apiKey: string): Promise<ApiCredential> {
    const now = new Date();
    await this.credentials.updateOne(
      { apiKey, status: 'active' },
      { $set: { status: 'revoked', revokedAt: now } },
    );
    this.cache.delete(apiKey);
    const stored = await this.credentials.findOne({ apiKey }, { _id: 0 }).lean<ApiCredential>().exec();
    if (!stored) throw new ApiKeyNotFoundError(apiKey);
    return stored;
  }

  /**
   * The merchant calling with this pair, or null for an unknown key, a wrong secret, a revoked
   * key or a suspended merchant (the caller cannot tell which: all are a plain 401).
   */
  async authenticate(apiKey: string, apiClient: string): Promise<string | null> {
    if (!looksLikeApiKey(apiKey)) {
      secretMatches(apiClient, dummyHash);
      return null;
    }
    const now = Date.now();
    const cached = this.cache.get(apiKey);
    if (cached && cached.expiresAt > now) {
      return secretMatches(apiClient, cached.secretHash) ? cached.merchantId : null;
    }
    this.cache.delete(apiKey);

    const credential = await this.credentials
      .findOne({ apiKey, status: 'active' }, { _id: 0 })
      .lean<ApiCredential>()
      .exec();
    if (!secretMatches(apiClient, credential?.secretHash ?? dummyHash) || !credential) return null;
    const merchant = await this.merchants
      .findOne({ id: credential.merchantId, status: 'active' }, { _id: 0, id: 1 })
      .lean<Pick<Merchant, 'id'>>()
      .exec();
    if (!merchant) return null;

    if (this.cacheTtlMs > 0) this.remember(apiKey, credential, now);
    await this.recordUsage(apiKey, now);
    return merchant.id;
  }

  /**
   * Usage goes to its own document, written by `_id` only, never to the credential (see store.ts).
   * A failed write is only a stale hint, so it never fails the authentication.
   */
  private async recordUsage(apiKey: string, now: number): Promise<void> {
    const last = this.usageWrittenAt.get(apiKey);
    if (last !== undefined && now - last <= lastUsedResolutionMs) return;
    if (this.usageWrittenAt.size >= maxCachedKeys) {
      const oldest = this.usageWrittenAt.keys().next().value;
      if (oldest !== undefined) this.usageWrittenAt.delete(oldest);
    }
    this.usageWrittenAt.delete(apiKey);
    this.usageWrittenAt.set(apiKey, now);
    // Two processes may upsert the same new _id at once: one gets a duplicate key, which is fine.
    await this.usage
      .replaceOne({ _id: apiKey }, { lastUsedAt: new Date(now) }, { upsert: true })
      .exec()
      .catch(() => undefined);
  }

  private remember(apiKey: string, credential: ApiCredential, now: number): void {
    if (this.cache.size >= maxCachedKeys) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(apiKey, {
      merchantId: credential.merchantId,
      secretHash: credential.secretHash,
      expiresAt: now + this.cacheTtlMs,
    });
  }

  private async issue(merchantId: string): Promise<IssuedCredentials> {
    const apiKey = newApiKey(this.keyMode);
    const apiClient = newSecret(this.keyMode);
    await this.credentials.create({
      apiKey,
      merchantId,
      secretHash: hashSecret(apiClient),
      status: 'active',
      createdAt: new Date(),
      revokedAt: null,
    });
    return { merchantId, apiKey, apiClient };
  }

  private async requireMerchant(merchantId: string): Promise<Merchant> {
    const merchant = await this.getMerchant(merchantId);
    if (!merchant) throw new MerchantNotFoundError(merchantId);
    return merchant;
  }

  private async setStatus(merchantId: string, status: Merchant['status']): Promise<Merchant> {
    // updateOne then read: FerretDB's findAndModify does not support projections.
    const { matchedCount } = await this.merchants
      .updateOne({ id: merchantId }, { $set: { status, updatedAt: new Date() } })
      .exec();
    if (matchedCount === 0) throw new MerchantNotFoundError(merchantId);
    const updated = await this.getMerchant(merchantId);
    if (!updated) throw new MerchantNotFoundError(merchantId);
    // Forget every cached key of this merchant, so the change applies at once in this process.
    for (const [key, entry] of this.cache) if (entry.merchantId === merchantId) this.cache.delete(key);
    return updated;
  }
}
