import type { mongo } from 'mongoose';
import { isDuplicateKey } from './insert-once';

/** Where each read model's one-time backfill leaves its marker. */
const BACKFILL_COLLECTION = 'read_model_backfills';

/**
 * Runs `backfill` once per database: skipped when its marker exists, marked when done. `backfill`
 * must be idempotent: processes starting together (two workers, two APIs) may both run it, and the
 * marker's upsert then loses its insert to the other's on FerretDB (a duplicate key), which is fine.
 */
export async function backfillOnce(db: mongo.Db, name: string, backfill: () => Promise<void>): Promise<void> {
  const markers = db.collection<{ _id: string; at: Date }>(BACKFILL_COLLECTION);
  if (await markers.findOne({ _id: name })) return;
  await backfill();
  try {
    await markers.updateOne({ _id: name }, { $set: { at: new Date() } }, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}
