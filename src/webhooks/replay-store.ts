import { Schema, type Connection, type Model } from 'mongoose';

// Webhook replays (POST /v1/webhooks/{id}/replay): one document per replay, read by `_id` only.

/** A replay, stored under `_id` = its id (named by its idempotency key): what its workflow sends. */
export interface WebhookReplay {
  id: string;
  merchantId: string;
  endpointId: string;
  from: Date;
  to: Date;
  onlyFailed: boolean;
  /** Oldest first: the order they are sent in. */
  eventIds: string[];
  createdAt: Date;
}
export type ReplayDoc = WebhookReplay & { _id: string };
const replaySchema = new Schema<ReplayDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    merchantId: { type: String, required: true },
    endpointId: { type: String, required: true },
    from: { type: Date, required: true },
    to: { type: Date, required: true },
    onlyFailed: { type: Boolean, required: true },
    eventIds: { type: [String], required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_replays' },
);

export function replayModel(conn: Connection): Model<ReplayDoc> {
  return (
    (conn.models.WebhookReplay as Model<ReplayDoc> | undefined) ??
    conn.model<ReplayDoc>('WebhookReplay', replaySchema)
  );
}
