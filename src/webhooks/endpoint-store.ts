import { Schema, type Connection, type Model } from 'mongoose';
import { newId } from '../domain/ids';
import type { EventType } from '../events/catalogue';
import { isSealedString, type KeyRing } from '../security/key-ring';
import { newSigningSecret } from './signing';

// A merchant's webhook endpoints and their signing secrets. Signing needs the secrets themselves
// (HMAC), so they are stored sealed with DATA_ENCRYPTION_KEYS (AES-256-GCM, the endpoint id as
// associated data: a sealed secret copied onto another endpoint does not open) and opened when
// read. In memory `secret` is the clear `whsec_…`; only this file sees the stored form.

export interface SigningSecret {
  secret: string;
  createdAt: Date;
  /** Set when a rotation superseded it: it keeps signing until then. */
  expiresAt: Date | null;
}

export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  url: string;
  /** Empty: every event type. */
  eventTypes: EventType[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  secrets: SigningSecret[];
  createdAt: Date;
  updatedAt: Date;
}

type EndpointDoc = WebhookEndpoint & { slot: string | null };

const endpointSchema = new Schema<EndpointDoc>(
  {
    id: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true, index: true },
    url: { type: String, required: true },
    eventTypes: { type: [String], default: [] },
    description: { type: String, default: null },
    status: { type: String, required: true },
    disabledReason: { type: String, default: null },
    /** Each `secret` sealed (`v1.<kid>.…`); clear `whsec_…` only before the start-up migration. */
    secrets: { type: Schema.Types.Mixed, required: true },
    /** The slot document this endpoint holds (`<merchantId>:<n>`); null: created before slots. */
    slot: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);

/** Endpoint slots: `_id` = `<merchantId>:<n>`, n < the bound; the unique `_id` makes the bound strict. */
interface SlotDoc {
  _id: string;
  endpointId: string;
  claimedAt: Date;
}
const slotSchema = new Schema<SlotDoc>(
  {
    _id: { type: String, required: true },
    endpointId: { type: String, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_endpoint_slots' },
);

const ABANDONED_SLOT_MS = 60_000;

export class TooManyEndpointsError extends Error {
  constructor(readonly max: number) {
    super(`at most ${max} webhook endpoints per merchant`);
  }
}

export class EndpointStore {
  constructor(
    private readonly model: Model<EndpointDoc>,
    private readonly keys: KeyRing,
    private readonly slots?: Model<SlotDoc>,
  ) {}

  static on(conn: Connection, keys: KeyRing): EndpointStore {
    return new EndpointStore(
      (conn.models.WebhookEndpoint as Model<EndpointDoc> | undefined) ??
        conn.model<EndpointDoc>('WebhookEndpoint', endpointSchema),
      keys,
      (conn.models.WebhookEndpointSlot as Model<SlotDoc> | undefined) ??
        conn.model<SlotDoc>('WebhookEndpointSlot', slotSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
    await this.slots?.init();
    await this.sealStoredSecrets();
  }

  private seal(endpointId: string, secrets: SigningSecret[]): SigningSecret[] {
    return secrets.map((s) => ({ ...s, secret: this.keys.sealString(s.secret, endpointId) }));
  }

  /** The stored form opened; a secret stored before sealing (clear `whsec_…`) is read as is. */
  private opened(doc: WebhookEndpoint | null): WebhookEndpoint | null {
    if (!doc) return null;
    return {
      ...doc,
      secrets: doc.secrets.map((s) => ({
        ...s,
        secret: isSealedString(s.secret) ? this.keys.openString(s.secret, doc.id) : s.secret,
      })),
    };
  }

  /**
   * Migration at start: seals the secrets stored in clear before sealing existed, and reseals those
   * sealed under a key that is no longer the ring's first (so a retired key can be dropped once
   * every process restarted). Each endpoint is read again just before its write, and skipped if its
   * secrets changed meanwhile (a rotation): FerretDB has no conditional update, so the window is that
   * read-to-write gap only. Runs on every start; with nothing to do it only reads.
   */
  async sealStoredSecrets(): Promise<number> {
    const stale = (s: SigningSecret) =>
      !isSealedString(s.secret) || s.secret.split('.')[1] !== this.keys.current;
    const docs = await this.model
      .find({}, { _id: 1, id: 1, secrets: 1 })
      .lean<(Pick<WebhookEndpoint, 'id' | 'secrets'> & { _id: unknown })[]>()
      .exec();
    let sealed = 0;
    for (const doc of docs) {
      if (!doc.secrets.some(stale)) continue;
      const fresh = await this.model.findById(doc._id).lean<WebhookEndpoint>().exec();
      if (!fresh || JSON.stringify(fresh.secrets) !== JSON.stringify(doc.secrets)) continue;
      const secrets = this.seal(doc.id, this.opened(fresh)!.secrets);
      await this.model.updateOne({ _id: doc._id }, { $set: { secrets } }).exec();
      sealed++;
    }
    return sealed;
  }

  /**
   * Creates an endpoint in one of the merchant's `max` slots, or throws TooManyEndpointsError. A
   * slot is a document whose `_id` names it: of two concurrent creations only one inserts a slot,
   * so the bound holds without an atomic count. Endpoints from before slots existed count too.
   */
  async create(
    merchantId: string,
    fields: { url: string; eventTypes: EventType[]; description: string | null },
    max = Number.POSITIVE_INFINITY,
  ): Promise<WebhookEndpoint> {
    const now = new Date();
    const endpoint: WebhookEndpoint = {
      id: newId('we'),
      merchantId,
      ...fields,
      status: 'enabled',
      disabledReason: null,
      secrets: [{ secret: newSigningSecret(), createdAt: now, expiresAt: null }],
      createdAt: now,
      updatedAt: now,
    };
    const slot = Number.isFinite(max) ? await this.claimSlot(merchantId, endpoint.id, max) : null;
    try {
      await this.model.create({ ...endpoint, slot, secrets: this.seal(endpoint.id, endpoint.secrets) });
    } catch (err) {
      if (slot !== null) await this.slots?.deleteOne({ _id: slot }).exec();
      throw err;
    }
    return endpoint;
  }

  private async claimSlot(merchantId: string, endpointId: string, max: number): Promise<string> {
    if (!this.slots) throw new Error('endpoint slots are not configured');
    const existing = await this.model.find({ merchantId }, { _id: 0, id: 1, slot: 1 }).lean().exec();
    // Endpoints created before slots: they hold no slot document but count against the bound.
    const unslotted = existing.filter((e) => !(e as { slot?: string | null }).slot).length;
    for (let n = 0; n < max - unslotted; n++) {
      try {
        const _id = `${merchantId}:${n}`;
        await this.slots.create({ _id, endpointId, claimedAt: new Date() });
        return _id;
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        // Taken. A slot whose endpoint never appeared (its process died between the two inserts)
        // is freed once older than a creation can take; a younger one may be a creation under way.
        const holder = await this.slots.findById(`${merchantId}:${n}`).lean<SlotDoc>().exec();
        if (
          holder &&
          Date.now() - new Date(holder.claimedAt).getTime() > ABANDONED_SLOT_MS &&
          !existing.some((e) => e.id === holder.endpointId) &&
          !(await this.exists(holder.endpointId))
        )
          await this.slots.deleteOne({ _id: holder._id }).exec();
      }
    }
    throw new TooManyEndpointsError(max);
  }

  private async exists(endpointId: string): Promise<boolean> {
    return (await this.model.countDocuments({ id: endpointId }).exec()) > 0;
  }

  async list(merchantId: string): Promise<WebhookEndpoint[]> {
    const docs = await this.model
      .find({ merchantId }, { _id: 0, slot: 0 })
      .sort({ createdAt: 1 })
      .lean<WebhookEndpoint[]>()
      .exec();
    return docs.map((d) => this.opened(d)!);
  }

  async get(merchantId: string, id: string): Promise<WebhookEndpoint | null> {
    return this.opened(
      await this.model.findOne({ merchantId, id }, { _id: 0, slot: 0 }).lean<WebhookEndpoint>().exec(),
    );
  }

  async remove(merchantId: string, id: string): Promise<boolean> {
    const doc = await this.model
      .findOne({ merchantId, id }, { slot: 1 })
      .lean<{ slot?: string | null }>()
      .exec();
    const r = await this.model.deleteOne({ merchantId, id }).exec();
    if (doc?.slot) await this.slots?.deleteOne({ _id: doc.slot, endpointId: id }).exec();
    return r.deletedCount > 0;
  }

  /** Enabled endpoints that want this event type. */
  async subscribedTo(merchantId: string, type: EventType): Promise<WebhookEndpoint[]> {
    const all = await this.model
      .find({ merchantId, status: 'enabled' }, { _id: 0, slot: 0 })
      .lean<WebhookEndpoint[]>()
      .exec();
    return all
      .filter((e) => e.eventTypes.length === 0 || e.eventTypes.includes(type))
      .map((e) => this.opened(e)!);
  }

  /**
   * A new secret signs from now on; the previous ones keep signing for `overlapMs`, so receivers
   * can switch without rejecting a delivery.
   */
  async rotateSecret(merchantId: string, id: string, overlapMs: number): Promise<WebhookEndpoint | null> {
    const endpoint = await this.get(merchantId, id);
    if (!endpoint) return null;
    const now = new Date();
    const until = new Date(now.getTime() + overlapMs);
    const kept = activeSecrets(endpoint, now).map((s) => ({
      ...s,
      expiresAt: s.expiresAt && s.expiresAt < until ? s.expiresAt : until,
    }));
    const secrets = [{ secret: newSigningSecret(), createdAt: now, expiresAt: null }, ...kept];
    await this.model
      .updateOne({ merchantId, id }, { $set: { secrets: this.seal(id, secrets), updatedAt: now } })
      .exec();
    return { ...endpoint, secrets, updatedAt: now };
  }

  async setStatus(
    merchantId: string,
    id: string,
    status: WebhookEndpoint['status'],
    reason: string | null,
  ): Promise<WebhookEndpoint | null> {
    await this.model
      .updateOne({ merchantId, id }, { $set: { status, disabledReason: reason, updatedAt: new Date() } })
      .exec();
    return this.get(merchantId, id);
  }
}

/** Secrets that sign right now, newest first. */
export function activeSecrets(endpoint: WebhookEndpoint, now = new Date()): SigningSecret[] {
  return endpoint.secrets.filter((s) => !s.expiresAt || new Date(s.expiresAt) > now);
}
