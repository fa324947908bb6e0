import { Schema, type Connection, type Model } from 'mongoose';

// Whether this database holds live money or sandbox play money, stored with the data itself: a
// tool such as `accounts fund` asks the database, not its own NODE_ENV, which an operator's shell
// may not set. The first service start records it; it only ever moves from sandbox to live by
// itself (a live process on data marked sandbox), never back.

export const deploymentModes = ['live', 'sandbox'] as const;
export type DeploymentMode = (typeof deploymentModes)[number];

interface DeploymentDoc {
  _id: 'deployment';
  mode: DeploymentMode;
  recordedAt: Date;
}

const settingsSchema = new Schema<DeploymentDoc>(
  {
    _id: { type: String, required: true },
    mode: { type: String, required: true, enum: deploymentModes },
    recordedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'settings' },
);

export type DeploymentModel = Model<DeploymentDoc>;

export function deploymentModel(conn: Connection): DeploymentModel {
  return (
    (conn.models.DeploymentSetting as DeploymentModel | undefined) ??
    conn.model<DeploymentDoc>('DeploymentSetting', settingsSchema)
  );
}

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/** The recorded mode, or null when no service has started on this database yet. */
export async function readDeploymentMode(model: DeploymentModel): Promise<DeploymentMode | null> {
  const doc = await model.findById('deployment').lean<DeploymentDoc>().exec();
  return doc && deploymentModes.includes(doc.mode) ? doc.mode : null;
}

/** Records `mode` if none is, or upgrades sandbox to live; `_id` writes only. */
export async function recordDeploymentMode(
  model: DeploymentModel,
  mode: DeploymentMode,
): Promise<DeploymentMode> {
  const current = await readDeploymentMode(model);
  if (current === null) {
    try {
      await model.create({ _id: 'deployment', mode, recordedAt: new Date() });
      return mode;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return recordDeploymentMode(model, mode);
    }
  }
  if (current === 'sandbox' && mode === 'live') {
    await model.replaceOne({ _id: 'deployment' }, { mode: 'live', recordedAt: new Date() }).exec();
    return 'live';
  }
  return current;
}
