import { Schema, type Connection, type Model } from 'mongoose';
import { newId } from '../domain/ids';
import type { EventType } from '../events/catalogue';
import { newSigningSecret } from './signing';

// A merchant's webhook endpoints and their signing secrets. Secrets are kept in clear: signing
// needs them (HMAC), and they are shown to the merchant only when created or rotated.

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

const endpointSchema = new Schema<WebhookEndpoint>(
  {
    id: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true, index: true },
    url: { type: String, required: true },
    eventTypes: { type: [String], default: [] },
    description: { type: String, default: null },
    status: { type: String, required: true },
    disabledReason: { type: String, default: null },
    secrets: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);

export class EndpointStore {
  constructor(private readonly model: Model<WebhookEndpoint>) {}

  static on(conn: Connection): EndpointStore {
    return new EndpointStore(
      (conn.models.WebhookEndpoint as Model<WebhookEndpoint> | undefined) ??
        conn.model<WebhookEndpoint>('WebhookEndpoint', endpointSchema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async create(
    merchantId: string,
    fields: { url: string; eventTypes: EventType[]; description: string | null },
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
    await this.model.create(endpoint);
    return endpoint;
  }

  async list(merchantId: string): Promise<WebhookEndpoint[]> {
    return this.model
      .find({ merchantId }, { _id: 0 })
      .sort({ createdAt: 1 })
      .lean<WebhookEndpoint[]>()
      .exec();
  }

  async get(merchantId: string, id: string): Promise<WebhookEndpoint | null> {
    return this.model.findOne({ merchantId, id }, { _id: 0 }).lean<WebhookEndpoint>().exec();
  }

  async remove(merchantId: string, id: string): Promise<boolean> {
    const r = await this.model.deleteOne({ merchantId, id }).exec();
    return r.deletedCount > 0;
  }

  /** Enabled endpoints that want this event type. */
  async subscribedTo(merchantId: string, type: EventType): Promise<WebhookEndpoint[]> {
    const all = await this.model
      .find({ merchantId, status: 'enabled' }, { _id: 0 })
      .lean<WebhookEndpoint[]>()
      .exec();
    return all.filter((e) => e.eventTypes.length === 0 || e.eventTypes.includes(type));
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
    await this.model.updateOne({ merchantId, id }, { $set: { secrets, updatedAt: now } }).exec();
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
