import { Schema, type Connection, type Model } from 'mongoose';
import { backfillOnce } from './backfill-once';

// Which refund holds a merchant's externalReference on a payin: one document whose `_id` is the
// triple, so the duplicate check of a refund request is one `_id` read (the only filter FerretDB
// 1.24 pushes down; a search of the refunds by their fields decodes them all). Claimed by insert
// before the refund is stored: of two refunds with one externalReference, one claim wins, whatever
// process or retry they come from (the unique index on the refunds stays as the last guard).

interface ClaimDoc {
  _id: string;
  refundId: string;
}
const claimSchema = new Schema<ClaimDoc>(
  { _id: { type: String, required: true }, refundId: { type: String, required: true } },
  { versionKey: false },
);

const COLLECTION = 'refund_external_refs';

/** Merchant and payin ids never hold `|`, so the triple reads back unambiguously. */
const claimKey = (merchantId: string, payinId: string, externalReference: string) =>
  `${merchantId}|${payinId}|${externalReference}`;

export class RefundExternalRefs {
  constructor(private readonly model: Model<ClaimDoc>) {}

  static on(conn: Connection): RefundExternalRefs {
    return new RefundExternalRefs(
      (conn.models.RefundExternalRef as Model<ClaimDoc> | undefined) ??
        conn.model<ClaimDoc>('RefundExternalRef', claimSchema, COLLECTION),
    );
  }

  /**
   * Creates the collection and, once per database (a marker says so), claims the externalReference
   * of every refund stored before it existed: a one-time scan at start.
   */
  async init(
    refunds: () => AsyncIterable<{
      id: string;
      merchantId: string;
      payinId: string;
      externalReference: string;
    }>,
  ): Promise<void> {
    await this.model.init();
    await backfillOnce(this.model.db.db!, COLLECTION, async () => {
      for await (const r of refunds()) await this.claim(r.merchantId, r.payinId, r.externalReference, r.id);
    });
  }

  /** The refund id holding the triple: `refundId` if this claim won (or it held it already). */
  async claim(
    merchantId: string,
    payinId: string,
    externalReference: string,
    refundId: string,
  ): Promise<string> {
    return (await this.claimOnce(merchantId, payinId, externalReference, refundId)).holder;
  }

  /** As claim(), and whether this very call's insert made the claim (`fresh`: no earlier attempt did). */
  async claimOnce(
    merchantId: string,
    payinId: string,
    externalReference: string,
    refundId: string,
  ): Promise<{ holder: string; fresh: boolean }> {
    const _id = claimKey(merchantId, payinId, externalReference);
    try {
      await this.model.collection.insertOne({ _id, refundId } as never);
      return { holder: refundId, fresh: true };
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const holder = await this.holder(merchantId, payinId, externalReference);
      if (!holder) throw err;
      return { holder, fresh: false };
    }
  }

  /** One `_id` read. */
  async holder(merchantId: string, payinId: string, externalReference: string): Promise<string | null> {
    const doc = await this.model
      .findOne({ _id: claimKey(merchantId, payinId, externalReference) })
      .lean<ClaimDoc>()
      .exec();
    return doc?.refundId ?? null;
  }
}
