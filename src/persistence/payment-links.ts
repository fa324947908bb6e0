import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Country, OperatorCode } from '../domain/operators';
import type { Metadata } from '../domain/metadata';
import { isDuplicateKey } from './insert-once';

// Payment links (docs/payment-links.md). FerretDB has no transactions and applies an update as a
// read-then-replace, so nothing here counts with $inc under concurrency: each payin opened under a
// link is its own document (`payment_link_payins`, `_id` the payin id), so is each page served
// (`payment_link_opens`, docs/decisions/payment-links/opened-is-one-record-per-page-served.md), and
// the single-use claim is a document whose unique `_id` decides between two concurrent customers
// (docs/decisions/payment-links/single-use-claim.md).

export interface PaymentLink {
  id: string;
  merchantId: string;
  slug: string;
  title: string;
  description: string | null;
  amount: { type: 'fixed'; value: number } | { type: 'open'; min?: number; max?: number };
  currency: 'XOF' | 'XAF';
  countries: Country[];
  operators: OperatorCode[];
  usage: 'single' | 'reusable';
  expiresAt: Date | null;
  cap: { maxPayments?: number; maxTotal?: number } | null;
  customerFields: { name: boolean; email: boolean; question: string | null };
  thankYouMessage: string | null;
  returnUrl: string | null;
  metadata: Metadata;
  referencePrefix: string;
  active: boolean;
  deactivatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type LinkDoc = PaymentLink & { _id: string };

const linkSchema = new Schema<LinkDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    merchantId: { type: String, required: true },
    slug: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    amount: { type: Schema.Types.Mixed, required: true },
    currency: { type: String, required: true },
    countries: { type: [String], required: true },
    operators: { type: [String], required: true },
    usage: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    cap: { type: Schema.Types.Mixed, default: null },
    customerFields: { type: Schema.Types.Mixed, required: true },
    thankYouMessage: { type: String, default: null },
    returnUrl: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: {} },
    referencePrefix: { type: String, required: true },
    active: { type: Boolean, required: true },
    deactivatedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'payment_links' },
);
// The slug is what a customer's URL names: unique, so two links never share a page.
linkSchema.index({ slug: 1 }, { unique: true });
linkSchema.index({ merchantId: 1, createdAt: -1, _id: -1 });

/** A payin opened under a link: `_id` the payin id. `paidAt` is set once it succeeded. */
export interface LinkPayin {
  _id: string;
  linkId: string;
  merchantId: string;
  reference: string;
  /** Whole units. */
  amount: number;
  /** What the page asked besides the payin's own fields (kept here, not in the payin's metadata). */
  email: string | null;
  answer: string | null;
  createdAt: Date;
}
const linkPayinSchema = new Schema<LinkPayin>(
  {
    _id: { type: String, required: true },
    linkId: { type: String, required: true },
    merchantId: { type: String, required: true },
    reference: { type: String, required: true },
    amount: { type: Number, required: true },
    email: { type: String, default: null },
    answer: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'payment_link_payins' },
);
linkPayinSchema.index({ linkId: 1, createdAt: -1, _id: -1 });

/** One page of the link served to a customer (GET /l/{slug}): inserted, never changed. */
interface LinkOpen {
  _id: string;
  linkId: string;
  at: Date;
}
const linkOpenSchema = new Schema<LinkOpen>(
  {
    _id: { type: String, required: true },
    linkId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'payment_link_opens' },
);
linkOpenSchema.index({ linkId: 1 });

/**
 * A single-use link's claim: `_id` the link id, held by the payin in flight (its reference). A
 * second customer meets the unique `_id` and is told a payment is under way; the claim is
 * released only when the payin holding it ended without success.
 */
interface SingleUseClaim {
  _id: string;
  reference: string;
  claimedAt: Date;
}
const claimSchema = new Schema<SingleUseClaim>(
  {
    _id: { type: String, required: true },
    reference: { type: String, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'payment_link_claims' },
);

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 20 base62 characters from the crypto RNG (about 119 bits): not guessable, short enough to type. */
export function newSlug(length = 20): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling keeps every character equally likely (248 = 4 × 62).
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function newLinkId(): string {
  return `pl_${randomBytes(12).toString('hex')}`;
}

function strip<T extends { _id?: unknown }>(doc: T): Omit<T, '_id'> {
  const { _id, ...rest } = doc;
  void _id;
  return rest;
}

export class PaymentLinkStore {
  private constructor(
    private readonly links: Model<LinkDoc>,
    private readonly payins: Model<LinkPayin>,
    private readonly claims: Model<SingleUseClaim>,
    private readonly opens: Model<LinkOpen>,
  ) {}

  static on(conn: Connection): PaymentLinkStore {
    const model = <T>(name: string, schema: Schema<T>) =>
      (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema);
    return new PaymentLinkStore(
      model('PaymentLink', linkSchema),
      model('PaymentLinkPayin', linkPayinSchema),
      model('PaymentLinkClaim', claimSchema),
      model('PaymentLinkOpen', linkOpenSchema),
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.links.createIndexes(), this.payins.createIndexes(), this.opens.createIndexes()]);
  }

  /** Stores a new link; a slug taken by another link (vanishingly rare) is drawn again. */
  async create(link: Omit<PaymentLink, 'slug'>): Promise<PaymentLink> {
    for (let attempt = 0; ; attempt++) {
      const stored: PaymentLink = { ...link, slug: newSlug() };
      try {
        await this.links.collection.insertOne({ _id: stored.id, ...stored } as never);
        return stored;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  }

  async get(merchantId: string, id: string): Promise<PaymentLink | null> {
    const doc = await this.links.findOne({ _id: id }).lean<LinkDoc>();
    return doc && doc.merchantId === merchantId ? strip(doc) : null;
  }

  async bySlug(slug: string): Promise<PaymentLink | null> {
    const doc = await this.links.findOne({ slug }).lean<LinkDoc>();
    return doc ? strip(doc) : null;
  }

  /** Newest first; `before` the position of the last one of the previous page. */
  async list(
    merchantId: string,
    opts: { limit: number; before?: { createdAt: Date; id: string } },
  ): Promise<{ links: PaymentLink[]; more: boolean }> {
    const filter: Record<string, unknown> = { merchantId };
    if (opts.before)
      filter.$or = [
        { createdAt: { $lt: opts.before.createdAt } },
        { createdAt: opts.before.createdAt, _id: { $lt: opts.before.id } },
      ];
    const docs = await this.links
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .limit(opts.limit + 1)
      .lean<LinkDoc[]>();
    return { links: docs.slice(0, opts.limit).map(strip), more: docs.length > opts.limit };
  }

  /** Read-then-replace (FerretDB's own update): the merchant's changes are its only writer. */
  async replace(link: PaymentLink): Promise<void> {
    await this.links.collection.replaceOne({ _id: link.id } as never, { _id: link.id, ...link });
  }

  /**
   * Records a page served: a document of its own, never an update of the link, so concurrent views
   * are all counted and none can write back a link a merchant changed meanwhile (FerretDB's $inc is a
   * read-then-replace).
   */
  async countOpened(id: string): Promise<void> {
    await this.opens.collection.insertOne({
      _id: randomBytes(12).toString('hex'),
      linkId: id,
      at: new Date(),
    } as never);
  }

  /** How many times the link's page was served. */
  async openedCount(linkId: string): Promise<number> {
    return this.opens.countDocuments({ linkId });
  }

  /** How many payins were opened under the link (an export's size, counted before it starts). */
  async payinCount(linkId: string): Promise<number> {
    return this.payins.countDocuments({ linkId });
  }

  async recordPayin(payin: LinkPayin): Promise<void> {
    try {
      await this.payins.collection.insertOne(payin as never);
    } catch (err) {
      // The same payin again (a double tap answered by its idempotency key): already recorded.
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The payins opened under a link, newest first. */
  async payinsOf(
    linkId: string,
    opts: { limit: number; before?: { createdAt: Date; id: string } },
  ): Promise<{ payins: LinkPayin[]; more: boolean }> {
    const filter: Record<string, unknown> = { linkId };
    if (opts.before)
      filter.$or = [
        { createdAt: { $lt: opts.before.createdAt } },
        { createdAt: opts.before.createdAt, _id: { $lt: opts.before.id } },
      ];
    const docs = await this.payins
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .limit(opts.limit + 1)
      .lean<LinkPayin[]>();
    return { payins: docs.slice(0, opts.limit), more: docs.length > opts.limit };
  }

  /** Every payin opened under a link (bounded: a link's stats read at most `max`). */
  async allPayinsOf(linkId: string, max = 5_000): Promise<LinkPayin[]> {
    return this.payins.find({ linkId }).sort({ createdAt: -1 }).limit(max).lean<LinkPayin[]>();
  }

  /** Claims a single-use link for the payin `reference`; else the reference holding it, and since when. */
  async claim(
    linkId: string,
    reference: string,
  ): Promise<{ claimed: true } | { heldBy: string; claimedAt: Date | null }> {
    try {
      await this.claims.collection.insertOne({ _id: linkId, reference, claimedAt: new Date() } as never);
      return { claimed: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const held = await this.claims.findOne({ _id: linkId }).lean<SingleUseClaim>();
      // Released between the insert and the read: the caller tries again.
      return { heldBy: held?.reference ?? '', claimedAt: held?.claimedAt ?? null };
    }
  }

  /** Releases the claim only if `reference` still holds it (a payin that ended without success). */
  async release(linkId: string, reference: string): Promise<void> {
    await this.claims.deleteOne({ _id: linkId, reference });
  }
}
