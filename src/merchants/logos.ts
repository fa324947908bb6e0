import { createHash } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { merchantOfScope } from '../domain/modes';

// A merchant's logo, shown on its payment links' pages (docs/payment-links.md, The merchant's
// logo). One per merchant, both modes, set from the dashboard by a member who manages the team
// (docs/decisions/payment-links/merchant-logo.md). Its own collection, `_id` = the merchant id,
// so a page's read is an `_id` read and the merchant's record is never rewritten for it.

/** A customer on a slow network should not wait on the logo: a small image or none. */
export const LOGO_MAX_BYTES = 100_000;

/** Raster images only: an SVG can carry script, and the page serves the file from our origin. */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** The type the file's own first bytes say, whatever its sender claimed; null: none we take. */
export function sniffLogo(bytes: Buffer): LogoType | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

/** What a page needs to point at the logo: its version names the file, so it is cached for good. */
export interface LogoRef {
  version: string;
  contentType: LogoType;
  bytes: number;
  updatedAt: Date;
}

export interface LogoImage extends LogoRef {
  data: Buffer;
}

interface LogoDoc extends LogoImage {
  _id: string;
  updatedBy: string;
}

const logoSchema = new Schema<LogoDoc>(
  {
    _id: { type: String, required: true },
    data: { type: Buffer, required: true },
    contentType: { type: String, required: true },
    version: { type: String, required: true },
    bytes: { type: Number, required: true },
    updatedAt: { type: Date, required: true },
    updatedBy: { type: String, required: true },
  },
  { versionKey: false, collection: 'merchant_logos' },
);

const refOf = (d: Pick<LogoDoc, 'version' | 'contentType' | 'bytes' | 'updatedAt'>): LogoRef => ({
  version: d.version,
  contentType: d.contentType,
  bytes: d.bytes,
  updatedAt: d.updatedAt,
});

export class MerchantLogoStore {
  constructor(private readonly model: Model<LogoDoc>) {}

  static on(conn: Connection): MerchantLogoStore {
    return new MerchantLogoStore(
      (conn.models.MerchantLogo as Model<LogoDoc> | undefined) ??
        conn.model<LogoDoc>('MerchantLogo', logoSchema),
    );
  }

  /** Of a merchant id or either of its scopes. */
  async ref(scope: string): Promise<LogoRef | null> {
    const doc = await this.model
      .findById(merchantOfScope(scope), { data: 0 })
      .lean<Omit<LogoDoc, 'data'>>()
      .exec();
    return doc ? refOf(doc) : null;
  }

  async image(scope: string): Promise<LogoImage | null> {
    const doc = await this.model.findById(merchantOfScope(scope)).lean<LogoDoc>().exec();
    if (!doc) return null;
    // The driver hands back a BSON Binary; the page sends plain bytes.
    const raw = doc.data as unknown as Buffer | { buffer: Uint8Array };
    return { ...refOf(doc), data: Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer) };
  }

  /** The whole document is replaced: the last upload wins, as a member expects of a setting. */
  async set(merchantId: string, data: Buffer, contentType: LogoType, memberId: string): Promise<LogoRef> {
    const doc = {
      data,
      contentType,
      version: createHash('sha256').update(data).digest('base64url').slice(0, 16),
      bytes: data.length,
      updatedAt: new Date(),
      updatedBy: memberId,
    };
    await this.model.replaceOne({ _id: merchantOfScope(merchantId) }, doc, { upsert: true });
    return refOf(doc);
  }

  async remove(merchantId: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: merchantOfScope(merchantId) })).deletedCount > 0;
  }
}
