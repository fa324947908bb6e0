import { Schema, type Connection, type Model } from 'mongoose';
import type { TransactionKind } from '../domain/transaction';
import { retryOnWriteConflict } from './write-conflict';

// Markers of transaction workflows about to be started: written before the record is stored, removed
// once its workflow runs. A crash between storing a record and starting its workflow leaves its marker,
// which the recovery sweep (src/recovery/sweep.ts) finds and completes. `_id` is the workflow id, so a
// retry of the same request finds the marker already there. The collection only ever holds requests
// in flight and those a crash interrupted: listing it is the sweep's bounded read, never a scan of the
// transactions.

export interface WorkflowStartMarker {
  /** The transaction's workflow id (`payin:<merchant>:<reference>`, `payout:…`). */
  _id: string;
  kind: TransactionKind;
  merchantId: string;
  reference: string;
  /** When the first request for it began: the sweep's grace period counts from here. */
  createdAt: Date;
}

const markerSchema = new Schema<WorkflowStartMarker>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    merchantId: { type: String, required: true },
    reference: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'workflow_starts' },
);

type MarkerModel = Model<WorkflowStartMarker>;

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

export class WorkflowStartLog {
  constructor(private readonly model: MarkerModel) {}

  static on(conn: Connection): WorkflowStartLog {
    const model =
      (conn.models.WorkflowStart as MarkerModel | undefined) ??
      conn.model<WorkflowStartMarker>('WorkflowStart', markerSchema);
    return new WorkflowStartLog(model);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Records that this workflow is about to be started; a marker already there is kept (its time too). */
  async mark(marker: Omit<WorkflowStartMarker, 'createdAt'>, now = new Date()): Promise<void> {
    try {
      await retryOnWriteConflict(() => this.model.create({ ...marker, createdAt: now }));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The workflow runs (or need not): nothing left to recover. */
  async clear(workflowId: string): Promise<void> {
    await retryOnWriteConflict(() => this.model.deleteOne({ _id: workflowId }).exec());
  }

  async find(workflowId: string): Promise<WorkflowStartMarker | null> {
    return this.model.findOne({ _id: workflowId }).lean<WorkflowStartMarker>().exec();
  }

  /** Markers left since before `cutoff`, oldest first, at most `limit`. */
  async olderThan(cutoff: Date, limit: number): Promise<WorkflowStartMarker[]> {
    return this.model
      .find({ createdAt: { $lte: cutoff } })
      .sort({ createdAt: 1 })
      .limit(limit)
      .lean<WorkflowStartMarker[]>()
      .exec();
  }
}

/**
 * What starting a transaction's workflow came to: `started` now, `exists` (a run has this id, open
 * or closed), `final` (the record says it ended: nothing started), `refused` (a payout the balance no
 * longer covers: removed, as the API does).
 */
export type StartOutcome = 'started' | 'exists' | 'final' | 'refused';
