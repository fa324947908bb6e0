import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { z } from 'zod';
import { countries } from '../../domain/operators';

// A member's saved filters (docs/decisions/dashboard/saved-filters.md): a list's filters under a
// name, to apply again later; one small document each, unique per (member, list, name), at most
// SAVED_FILTERS_PER_LIST per member and list.

export const SAVED_FILTERS_PER_LIST = 20;
export const savedFilterLists = ['transactions', 'refunds', 'payouts'] as const;
export type SavedFilterList = (typeof savedFilterLists)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
/** The filters as the list's form holds them (a day is the date input's value); empty ones left out. */
export const savedFilterValues = z.strictObject({
  type: z.enum(['payin', 'payout', 'refund']).optional(),
  status: z
    .enum(['pending', 'processing', 'processed', 'success', 'completed', 'failed', 'reversed', 'expired'])
    .optional(),
  provider: z
    .string()
    .regex(/^[A-Z]+(_[A-Z]{2})?$/)
    .max(20)
    .optional(),
  country: z.enum(countries).optional(),
  from: day.optional(),
  to: day.optional(),
  reference: z.string().trim().min(1).max(100).optional(),
  metadataKey: z.string().min(1).max(40).optional(),
  metadataValue: z.string().max(200).optional(),
});
export type SavedFilterValues = z.infer<typeof savedFilterValues>;

export const savedFilterBody = z.strictObject({
  list: z.enum(savedFilterLists),
  name: z.string().trim().min(1).max(60),
  filters: savedFilterValues,
});

export interface SavedFilter {
  id: string;
  list: SavedFilterList;
  name: string;
  filters: SavedFilterValues;
  createdAt: string;
}

interface SavedFilterDoc {
  _id: string;
  memberId: string;
  list: SavedFilterList;
  name: string;
  filters: SavedFilterValues;
  createdAt: Date;
}

const schema = new Schema<SavedFilterDoc>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    list: { type: String, required: true },
    name: { type: String, required: true },
    filters: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'dashboard_saved_filters', minimize: false },
);
// One name per member and list: a second save of a name is refused (DUPLICATE), never a twin.
schema.index({ memberId: 1, list: 1, name: 1 }, { unique: true });

export type SaveResult = SavedFilter | 'duplicate' | 'full';

const out = (d: SavedFilterDoc): SavedFilter => ({
  id: d._id,
  list: d.list,
  name: d.name,
  filters: d.filters,
  createdAt: new Date(d.createdAt).toISOString(),
});

export class SavedFilterStore {
  constructor(private readonly model: Model<SavedFilterDoc>) {}

  static on(conn: Connection): SavedFilterStore {
    return new SavedFilterStore(
      (conn.models.DashboardSavedFilter as Model<SavedFilterDoc> | undefined) ??
        conn.model<SavedFilterDoc>('DashboardSavedFilter', schema),
    );
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** The member's saved filters of a list, by name (at most SAVED_FILTERS_PER_LIST, plus a race's one). */
  async list(memberId: string, list: SavedFilterList): Promise<SavedFilter[]> {
    const docs = await this.model
      .find({ memberId, list })
      .limit(SAVED_FILTERS_PER_LIST * 2)
      .lean<SavedFilterDoc[]>()
      .exec();
    return docs.map(out).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Inserted once: a name already used, or a full list, is refused (the count is a soft bound). */
  async save(
    memberId: string,
    input: { list: SavedFilterList; name: string; filters: SavedFilterValues },
  ): Promise<SaveResult> {
    const count = await this.model.countDocuments({ memberId, list: input.list }).exec();
    if (count >= SAVED_FILTERS_PER_LIST) return 'full';
    const doc: SavedFilterDoc = {
      _id: `sf_${randomBytes(12).toString('hex')}`,
      memberId,
      ...input,
      createdAt: new Date(),
    };
    try {
      await this.model.create(doc);
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return 'duplicate';
      throw err;
    }
    return out(doc);
  }

  /** Removes one of the member's own; false when it is not theirs or not there. */
  async remove(memberId: string, id: string): Promise<boolean> {
    const res = await this.model.deleteOne({ _id: id, memberId }).exec();
    return res.deletedCount === 1;
  }
}
