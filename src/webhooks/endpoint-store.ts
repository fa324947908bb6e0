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

type EndpointDoc = WebhookEndpoint & { _id?: unknown; slot: string | null };

const endpointSchema = new Schema<EndpointDoc>(
  {
    /** The endpoint's id (endpoints stored before: an ObjectId, until the start-up migration). */
    _id: { type: Schema.Types.Mixed },
    /** Equal to `_id`: unique through it (the former unique index on `id` is dropped at start). */
    id: { type: String, required: true },
    merchantId: { type: String, required: true },
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

/** Slots read per round trip when listing a merchant's endpoints. */
const SLOT_BATCH = 16;
const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Every read on a request path is by `_id` (FerretDB pushes no other filter down): an endpoint is
 * stored under `_id` = its id, and a merchant's endpoints are found through its slots, `_id` =
 * `<merchantId>:<n>`, read in batches from 0 until a batch holds none.
 */
export class EndpointStore {
  constructor(
    private readonly model: Model<EndpointDoc>,
    private readonly keys: KeyRing,
    private readonly slots: Model<SlotDoc>,
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
    // The unique index on `id` predates `_id` = id, and would refuse the migration's copy of an
    // endpoint under its new `_id` while the old document still exists.
    await this.model.collection.dropIndex('id_1').catch(() => undefined);
    await this.model.init();
    await this.slots.init();
    await this.migrate();
  }

  private seal(endpointId: string, secrets: SigningSecret[]): SigningSecret[] {
    return secrets.map((s) => ({ ...s, secret: this.keys.sealString(s.secret, endpointId) }));
  }

  /** The stored form opened; a secret stored before sealing (clear `whsec_…`) is read as is. */
  private opened(doc: EndpointDoc | null): WebhookEndpoint | null {
    if (!doc) return null;
    const { _id: _key, slot: _slot, ...endpoint } = doc;
    return {
      ...endpoint,
      secrets: doc.secrets.map((s) => ({
        ...s,
        secret: isSealedString(s.secret) ? this.keys.openString(s.secret, doc.id) : s.secret,
      })),
    };
  }

  /**
   * Migration at start, for endpoints stored before this layout: each gets `_id` = its id and a
   * slot (beyond the bound if the merchant already had more), and its secrets sealed; secrets
   * sealed under a key that is no longer the ring's first are resealed (so a retired key can be
   * dropped once every process restarted). An endpoint is read again just before it is rewritten
   * and skipped if it changed meanwhile (a rotation): FerretDB has no conditional update, so the
   * window is that read-to-write gap. Runs on every start (one scan); with nothing to do it only
   * reads. Answers how many endpoints it rewrote.
   */
  async migrate(): Promise<number> {
    const stale = (s: SigningSecret) =>
      !isSealedString(s.secret) || s.secret.split('.')[1] !== this.keys.current;
    const docs = await this.model.find({}).lean<(EndpointDoc & { _id: unknown })[]>().exec();
    let rewritten = 0;
    for (const doc of docs) {
      const rekey = doc._id !== doc.id;
      if (!rekey && doc.slot && !doc.secrets.some(stale)) continue;
      const fresh = await this.model.findById(doc._id).lean<EndpointDoc & { _id: unknown }>().exec();
      if (!fresh || JSON.stringify(fresh.secrets) !== JSON.stringify(doc.secrets)) continue;
      const slot = fresh.slot ?? (await this.claimSlot(doc.merchantId, doc.id, Number.POSITIVE_INFINITY));
      const next = { ...this.opened(fresh)!, slot };
      const stored = { ...next, secrets: this.seal(doc.id, next.secrets) };
      if (rekey) {
        try {
          await this.model.collection.insertOne({ ...stored, _id: doc.id } as never);
        } catch (err) {
          if (!isDuplicate(err)) throw err; // another process moved it first
        }
        await this.model.deleteOne({ _id: doc._id }).exec();
      } else {
        await this.model.updateOne({ _id: doc.id }, { $set: { secrets: stored.secrets, slot } }).exec();
      }
      rewritten++;
    }
    return rewritten;
  }

  /**
   * Creates an endpoint in one of the merchant's `max` slots, or throws TooManyEndpointsError. A
   * slot is a document whose `_id` names it: of two concurrent creations only one inserts a slot,
   * so the bound holds without an atomic count.
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
    const slot = await this.claimSlot(merchantId, endpoint.id, max);
    try {
      await this.model.create({
        _id: endpoint.id,
        ...endpoint,
        slot,
        secrets: this.seal(endpoint.id, endpoint.secrets),
      } as EndpointDoc);
    } catch (err) {
      await this.slots.deleteOne({ _id: slot }).exec();
      throw err;
    }
    return endpoint;
  }

  private async claimSlot(merchantId: string, endpointId: string, max: number): Promise<string> {
    for (let n = 0; n < max; n++) {
      const _id = `${merchantId}:${n}`;
      try {
        await this.slots.create({ _id, endpointId, claimedAt: new Date() });
        return _id;
      } catch (err) {
        if (!isDuplicate(err)) throw err;
        // Taken. A slot whose endpoint never appeared (its process died between the two inserts)
        // is freed once older than a creation can take; a younger one may be a creation under way.
        const holder = await this.slots.findById(_id).lean<SlotDoc>().exec();
        if (
          holder &&
          Date.now() - new Date(holder.claimedAt).getTime() > ABANDONED_SLOT_MS &&
          !(await this.model.findById(holder.endpointId).lean().exec())
        )
          await this.slots.deleteOne({ _id }).exec();
      }
    }
    throw new TooManyEndpointsError(max);
  }

  /** The merchant's endpoints, oldest first: its slots, then each endpoint, all by `_id`. */
  async list(merchantId: string): Promise<WebhookEndpoint[]> {
    const held: SlotDoc[] = [];
    for (let from = 0; ; from += SLOT_BATCH) {
      const batch = await Promise.all(
        Array.from({ length: SLOT_BATCH }, (_, k) =>
          this.slots
            .findById(`${merchantId}:${from + k}`)
            .lean<SlotDoc>()
            .exec(),
        ),
      );
      const found = batch.filter((slot): slot is SlotDoc => slot !== null);
      if (found.length === 0) break;
      held.push(...found);
    }
    const ids = [...new Set(held.map((slot) => slot.endpointId))];
    const docs = await Promise.all(ids.map((id) => this.model.findById(id).lean<EndpointDoc>().exec()));
    const endpoints = docs.filter((d): d is EndpointDoc => d !== null && d.merchantId === merchantId);
    // Two processes migrating one endpoint at the same start may each claim it a slot: the one its
    // document does not name is freed here, so it does not hold a place under the bound.
    for (const slot of held) {
      const owner = endpoints.find((e) => e.id === slot.endpointId);
      if (owner?.slot && owner.slot !== slot._id) await this.slots.deleteOne({ _id: slot._id }).exec();
    }
    return endpoints
      .sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime())
      .map((d) => this.opened(d)!);
  }

  /**
   * Every endpoint's id, merchant and status: one scan, for a worker's one-time check that each
   * enabled endpoint has its dispatcher (never on a request path).
   */
  async all(): Promise<Pick<WebhookEndpoint, 'id' | 'merchantId' | 'status'>[]> {
    return this.model
      .find({}, { _id: 0, id: 1, merchantId: 1, status: 1 })
      .lean<Pick<WebhookEndpoint, 'id' | 'merchantId' | 'status'>[]>()
      .exec();
  }

  async get(merchantId: string, id: string): Promise<WebhookEndpoint | null> {
    const doc = await this.model.findById(id).lean<EndpointDoc>().exec();
    return doc && doc.merchantId === merchantId ? this.opened(doc) : null;
  }

  async remove(merchantId: string, id: string): Promise<boolean> {
    const doc = await this.model.findById(id).lean<EndpointDoc>().exec();
    if (!doc || doc.merchantId !== merchantId) return false;
    const r = await this.model.deleteOne({ _id: id }).exec();
    if (doc.slot) {
      const slot = await this.slots.findById(doc.slot).lean<SlotDoc>().exec();
      if (slot?.endpointId === id) await this.slots.deleteOne({ _id: doc.slot }).exec();
    }
    return r.deletedCount > 0;
  }

  /** Enabled endpoints that want this event type. */
  async subscribedTo(merchantId: string, type: EventType): Promise<WebhookEndpoint[]> {
    return (await this.list(merchantId)).filter(
      (e) => e.status === 'enabled' && (e.eventTypes.length === 0 || e.eventTypes.includes(type)),
    );
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
      .updateOne({ _id: id }, { $set: { secrets: this.seal(id, secrets), updatedAt: now } })
      .exec();
    return { ...endpoint, secrets, updatedAt: now };
  }

  /** Changes where it is sent, what it subscribes to or its description; null when not the merchant's. */
  async update(
    merchantId: string,
    id: string,
    fields: Partial<Pick<WebhookEndpoint, 'url' | 'eventTypes' | 'description'>>,
  ): Promise<WebhookEndpoint | null> {
    if (!(await this.get(merchantId, id))) return null;
    await this.model.updateOne({ _id: id }, { $set: { ...fields, updatedAt: new Date() } }).exec();
    return this.get(merchantId, id);
  }

  async setStatus(
    merchantId: string,
    id: string,
    status: WebhookEndpoint['status'],
    reason: string | null,
  ): Promise<WebhookEndpoint | null> {
    if (!(await this.get(merchantId, id))) return null;
    await this.model
      .updateOne({ _id: id }, { $set: { status, disabledReason: reason, updatedAt: new Date() } })
      .exec();
    return this.get(merchantId, id);
  }
}

/** Secrets that sign right now, newest first. */
export function activeSecrets(endpoint: WebhookEndpoint, now = new Date()): SigningSecret[] {
  return endpoint.secrets.filter((s) => !s.expiresAt || new Date(s.expiresAt) > now);
}
