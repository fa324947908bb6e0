import type { Connection, Model } from 'mongoose';
import { newId } from '../domain/ids';
import { merchantOfScope, modeOfApiKey, modeOfScope, scopeOf, type Mode } from '../domain/modes';
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
  type MerchantSettings,
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
  migrateToKeyedIds,
} from './store';

export interface MerchantServiceOptions {
  /**
   * What this database is recorded as at init when given (`live` in production, `test` elsewhere:
   * see deployment.ts). It no longer chooses which keys are issued: every merchant has both a test
   * and a live pair, and a key's prefix says its mode (src/domain/modes.ts).
   */
  keyMode?: KeyMode;
  /**
   * How long a lookup of an active key, or of a merchant's status, is reused in this process. A
   * key revoked or a merchant suspended from another process (the CLI) keeps working here for at
   * most this long; from this process, the change applies at once. 0 disables the cache.
   */
  authCacheTtlMs?: number;
  /**
   * How long "no such key" (or "revoked", which is final) is remembered, so that a caller
   * repeating an unknown key costs no database read. Key ids are random and only ever inserted,
   * so a key issued later cannot be one remembered here. 0 disables it.
   */
  negativeCacheTtlMs?: number;
}

/** One credential lookup, kept whatever secret was presented (the secret is compared per call). */
interface CachedKey {
  /** null: no such key, or revoked. */
  credential: { merchantId: string; secretHash: string } | null;
  readAt: number;
  expiresAt: number;
}

/** One read of a merchant: its status (authentication) and settings (new transactions). */
interface CachedMerchant {
  active: boolean;
  settings: MerchantSettings | null;
  readAt: number;
}

/** Whether an open connection may go on (see stillAllowed). */
export type AccessCheck = 'allowed' | 'key_revoked' | 'merchant_suspended';

const maxCachedKeys = 10_000;
/** lastUsedAt is a hint for operators, so each process writes it at most once a minute per key. */
const lastUsedResolutionMs = 60_000;
/** Compared against when the key is unknown, so that an unknown key costs the same as a wrong secret. */
const dummyHash = hashSecret('no such key');

/** Keeps at most maxCachedKeys entries, dropping the oldest (Maps iterate in insertion order). */
function putBounded<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= maxCachedKeys) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

export class MerchantService {
  private readonly keys = new Map<string, CachedKey>();
  /** By merchant id: a request authenticates and then creates from the same read. */
  private readonly merchantRead = new Map<string, CachedMerchant>();
  /** When this process last wrote each key's usage. */
  private readonly usageWrittenAt = new Map<string, number>();
  private readonly keyMode: KeyMode;
  private readonly cacheTtlMs: number;
  private readonly negativeTtlMs: number;
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
    this.negativeTtlMs = options.negativeCacheTtlMs ?? 0;
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
    // Documents of older versions (ObjectId `_id`) move to their key, so logins are `_id` lookups.
    await migrateToKeyedIds(this.merchants as unknown as Model<never>, 'id');
    await migrateToKeyedIds(this.credentials as unknown as Model<never>, 'apiKey');
    if (this.recordsDeployment)
      await recordDeploymentMode(this.deployment, this.keyMode === 'live' ? 'live' : 'sandbox');
  }

  /** Whether this database holds live or sandbox money (null: no service or CLI recorded it yet). */
  async deploymentMode(): Promise<DeploymentMode | null> {
    return readDeploymentMode(this.deployment);
  }

  /**
   * A new active merchant with its first credential pair in each mode: the test pair at the top
   * (what callers used before modes existed), the live pair under `live`.
   */
  async createMerchant(name: string): Promise<IssuedCredentials & { live: IssuedCredentials }> {
    const now = new Date();
    const merchant: Merchant = {
      id: newId('mer'),
      name: merchantNameSchema.parse(name),
      status: 'active',
      settings: merchantSettingsSchema.parse({}),
      createdAt: now,
      updatedAt: now,
    };
    await this.merchants.create({ _id: merchant.id, ...merchant });
    // Not atomic with the insert above (no transactions on FerretDB): a crash here leaves a
    // merchant without keys, which `keys rotate` repairs; never a key without its merchant.
    const test = await this.issue(merchant.id, 'test');
    return { ...test, live: await this.issue(merchant.id, 'live') };
  }

  async listMerchants(): Promise<Merchant[]> {
    return this.merchants.find({}, { _id: 0 }).sort({ createdAt: 1, id: 1 }).lean<Merchant[]>().exec();
  }

  /** The merchant, by its id or by the scope of one of its modes (settings are shared by both). */
  async getMerchant(merchantId: string): Promise<Merchant | null> {
    return this.merchants
      .findOne({ _id: merchantOfScope(merchantId) }, { _id: 0 })
      .lean<Merchant>()
      .exec();
  }

  /**
   * The settings a new transaction takes, or null for no such merchant. Every creation reads them
   * (who pays the fee, the refund window), so a read is reused for `authCacheTtlMs`, as the
   * merchant's status is: a change made in another process (the CLI) applies here within that
   * time; one made in this process applies at once.
   */
  async settingsOf(merchantId: string, now = Date.now()): Promise<MerchantSettings | null> {
    const id = merchantOfScope(merchantId);
    const cached = this.merchantRead.get(id);
    if (cached && now - cached.readAt < this.cacheTtlMs) return cached.settings;
    return (await this.readMerchant(id, now)).settings;
  }

  /** Active and revoked pairs of a merchant, without their hashes. */
  async listKeys(scopeOrId: string): Promise<(Omit<ApiCredential, 'secretHash'> & { mode: Mode })[]> {
    const merchantId = merchantOfScope(scopeOrId);
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
    return keys.map((k, i) => ({
      ...k,
      mode: modeOfApiKey(k.apiKey),
      lastUsedAt: usage[i]?.lastUsedAt ?? k.lastUsedAt ?? null,
    }));
  }

  /** Both modes: a suspended merchant's test and live keys all get 401. */
  async suspendMerchant(merchantId: string): Promise<Merchant> {
    return this.setStatus(merchantOfScope(merchantId), 'suspended');
  }

  async reactivateMerchant(merchantId: string): Promise<Merchant> {
    return this.setStatus(merchantOfScope(merchantId), 'active');
  }

  /** Changes some settings (both modes share them); new transactions take them, made ones keep theirs. */
  async configure(merchantId: string, change: Partial<MerchantSettings>): Promise<Merchant> {
    const id = merchantOfScope(merchantId);
    const current = await this.requireMerchant(id);
    const settings = merchantSettingsSchema.parse({ ...current.settings, ...change });
    await this.merchants.updateOne({ _id: id }, { $set: { settings, updatedAt: new Date() } }).exec();
    this.merchantRead.delete(id);
    return (await this.getMerchant(id)) ?? current;
  }

  /**
   * Issues a new pair of one mode (by default the mode of the scope given, test for a bare merchant
   * id); the previous ones stay valid until revoked, so clients can switch over.
   */
  async rotateKeys(scopeOrId: string, mode?: Mode): Promise<IssuedCredentials> {
    const merchantId = merchantOfScope(scopeOrId);
    await this.requireMerchant(merchantId);
    return this.issue(merchantId, mode ?? (scopeOrId === merchantId ? 'test' : modeOfScope(scopeOrId)));
  }

  /** Idempotent: revoking a revoked key changes nothing. */
  async revokeKey(apiKey: string): Promise<ApiCredential> {
    const now = new Date();
    await this.credentials.updateOne(
      { _id: apiKey, status: 'active' },
      { $set: { status: 'revoked', revokedAt: now } },
    );
    const stored = await this.credentials.findOne({ _id: apiKey }, { _id: 0 }).lean<ApiCredential>().exec();
    if (!stored) throw new ApiKeyNotFoundError(apiKey);
    // Revocation is final: this process refuses the key at once, without reading it again.
    this.rememberKey(apiKey, null, Date.now());
    return stored;
  }

  /**
   * The scope (src/domain/modes.ts: the merchant in the key's mode) calling with this pair, or null
   * for an unknown key, a wrong secret, a revoked key or a suspended merchant (the caller cannot
   * tell which: all are a plain 401). At most two `_id` lookups (the credential, the merchant),
   * each cached (see the options). Every store is keyed by the scope, so a test key never sees live
   * data and the other way round.
   */
  async authenticate(apiKey: string, apiClient: string): Promise<string | null> {
    if (!looksLikeApiKey(apiKey)) {
      secretMatches(apiClient, dummyHash);
      return null;
    }
    const now = Date.now();
    const credential = await this.lookupKey(apiKey, now, this.cacheTtlMs);
    if (!secretMatches(apiClient, credential?.secretHash ?? dummyHash) || !credential) return null;
    if (!(await this.merchantActive(credential.merchantId, now, this.cacheTtlMs))) return null;
    await this.recordUsage(apiKey, now);
    return scopeOf(credential.merchantId, modeOfApiKey(apiKey));
  }

  /**
   * Whether a connection opened by this merchant, with this key (null: a browser token whose key
   * is not known), may stay open. Lookups read within `maxAgeMs` are reused (the same cache as
   * authenticate), so a caller checking every `maxAgeMs` sees a change within twice that.
   */
  async stillAllowed(scope: string, apiKey: string | null, maxAgeMs: number): Promise<AccessCheck> {
    const now = Date.now();
    const merchantId = merchantOfScope(scope);
    if (apiKey !== null) {
      const credential = await this.lookupKey(apiKey, now, maxAgeMs);
      if (!credential || scopeOf(credential.merchantId, modeOfApiKey(apiKey)) !== scope) return 'key_revoked';
    }
    return (await this.merchantActive(merchantId, now, maxAgeMs)) ? 'allowed' : 'merchant_suspended';
  }

  /** The active credential of this key (cached), or null: unknown or revoked. */
  private async lookupKey(
    apiKey: string,
    now: number,
    maxAgeMs: number,
  ): Promise<{ merchantId: string; secretHash: string } | null> {
    const cached = this.keys.get(apiKey);
    if (cached && cached.expiresAt > now && (cached.credential === null || now - cached.readAt < maxAgeMs))
      return cached.credential;
    const doc = await this.credentials
      .findOne({ _id: apiKey }, { _id: 0, merchantId: 1, secretHash: 1, status: 1 })
      .lean<Pick<ApiCredential, 'merchantId' | 'secretHash' | 'status'>>()
      .exec();
    const credential =
      doc?.status === 'active' ? { merchantId: doc.merchantId, secretHash: doc.secretHash } : null;
    this.rememberKey(apiKey, credential, now);
    return credential;
  }

  private rememberKey(
    apiKey: string,
    credential: { merchantId: string; secretHash: string } | null,
    now: number,
  ): void {
    const ttl = credential ? this.cacheTtlMs : this.negativeTtlMs;
    if (ttl <= 0) {
      this.keys.delete(apiKey);
      return;
    }
    putBounded(this.keys, apiKey, { credential, readAt: now, expiresAt: now + ttl });
  }

  /** Whether the merchant exists and is active (cached for the positive TTL either way). */
  private async merchantActive(merchantId: string, now: number, maxAgeMs: number): Promise<boolean> {
    const cached = this.merchantRead.get(merchantId);
    if (cached && now - cached.readAt < Math.min(maxAgeMs, this.cacheTtlMs)) return cached.active;
    return (await this.readMerchant(merchantId, now)).active;
  }

  /** One `_id` lookup for the status check and the settings, kept for the positive TTL. */
  private async readMerchant(merchantId: string, now: number): Promise<CachedMerchant> {
    const doc = await this.merchants
      .findOne({ _id: merchantId }, { _id: 0, status: 1, settings: 1 })
      .lean<Pick<Merchant, 'status' | 'settings'>>()
      .exec();
    const read = {
      active: doc?.status === 'active',
      settings: doc ? (doc.settings ?? null) : null,
      readAt: now,
    };
    if (this.cacheTtlMs > 0) putBounded(this.merchantRead, merchantId, read);
    return read;
  }

  /**
   * Usage goes to its own document, written by `_id` only, never to the credential (see store.ts).
   * A failed write is only a stale hint, so it never fails the authentication.
   */
  private async recordUsage(apiKey: string, now: number): Promise<void> {
    const last = this.usageWrittenAt.get(apiKey);
    if (last !== undefined && now - last <= lastUsedResolutionMs) return;
    putBounded(this.usageWrittenAt, apiKey, now);
    // Two processes may upsert the same new _id at once: one gets a duplicate key, which is fine.
    await this.usage
      .replaceOne({ _id: apiKey }, { lastUsedAt: new Date(now) }, { upsert: true })
      .exec()
      .catch(() => undefined);
  }

  private async issue(merchantId: string, mode: Mode): Promise<IssuedCredentials> {
    const apiKey = newApiKey(mode);
    const apiClient = newSecret(mode);
    await this.credentials.create({
      _id: apiKey,
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
      .updateOne({ _id: merchantId }, { $set: { status, updatedAt: new Date() } })
      .exec();
    if (matchedCount === 0) throw new MerchantNotFoundError(merchantId);
    const updated = await this.getMerchant(merchantId);
    if (!updated) throw new MerchantNotFoundError(merchantId);
    // Forget the merchant's cached read, so the change applies at once in this process.
    this.merchantRead.delete(merchantId);
    return updated;
  }
}
