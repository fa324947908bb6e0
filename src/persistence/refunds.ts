import { Schema, type Connection, type Model } from 'mongoose';
import type { Metadata } from '../domain/metadata';
import { TransactionIndex } from './transaction-index';
import type { Refund, RefundStatus, RefundTransactionStatus } from '../domain/refund';
import type { Attention, Failure, Transaction } from '../domain/transaction';
import { ReadOnceScope } from './read-once';
import { StateVersions, overlay } from './state-versions';
import { RefundExternalRefs } from './refund-external-refs';
import type { CreatedRecord } from './transactions';

// Refunds of payins. The payin's workflow decides and serialises them; this collection is what the
// API reads. The unique (merchantId, payinId, externalReference) index backs the workflow's own
// duplicate check, so two refunds with one externalReference cannot both exist whatever happens.
// The refund's id is its `_id`: reads and updates by id name `_id` alone, the only filter FerretDB
// 1.24's SQLite backend pushes down.
//
// Status writes are versioned like transactions' (src/persistence/state-versions.ts): versions
// `<id>:<seq>` in `refund_states`, the document a copy (`stateSeq`) that may lag; every read returning
// a Refund probes the versions after it (one extra `_id` lookup). A refund's writes come in a fixed
// order, so the seq follows from the status (refundStateSeq): a late `failed` never lands on `reversed`.
type RefundDoc = Refund & { _id: string; stateSeq?: number };
const refundSchema = new Schema<RefundDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    transactionRef: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    payinId: { type: String, required: true },
    payinReference: { type: String, required: true },
    externalReference: { type: String, required: true },
    reason: { type: String, required: true },
    amount: { type: Number, required: true },
    fee: { type: Number, required: true },
    currency: { type: String, required: true },
    refundType: { type: String, required: true },
    status: { type: String, required: true },
    transactionStatus: { type: String, required: true },
    processedAt: { type: Date, default: null },
    customerMsisdn: { type: String, required: true },
    customerName: { type: String, default: '' },
    sandboxScenario: { type: String, default: null },
    failure: { type: Schema.Types.Mixed, default: null },
    idempotencyKey: { type: String, default: null },
    requestFingerprint: { type: String, default: undefined },
    attention: { type: Schema.Types.Mixed, default: undefined },
    metadata: { type: Schema.Types.Mixed, default: undefined },
    apiKey: { type: String, default: null },
    workflowId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    /** The version this document copies (absent: never versioned, the document is the state). */
    stateSeq: { type: Number, default: undefined },
  },
  { versionKey: false, minimize: false, collection: 'refunds' },
);
refundSchema.index({ merchantId: 1, payinId: 1, externalReference: 1 }, { unique: true });
refundSchema.index({ payinId: 1, createdAt: 1 });

export type RefundModel = Model<RefundDoc>;

export interface RefundProgress {
  status: RefundStatus;
  transactionStatus?: RefundTransactionStatus;
  processedAt?: Date | null;
  failure?: Failure | null;
  attention?: Attention | null;
}

/**
 * The seq of each status write, in the only order they happen: the insert (`processing`) is version
 * 0, the operator's answer (`completed` or `failed`) 1, the merchant's reversal of a failed one 2.
 */
export const refundStateSeq = { completed: 1, failed: 1, reversed: 2 } as const;
export type RefundFinalProgress = RefundProgress & { status: keyof typeof refundStateSeq };

// A refund's metadata waits here, by the refund id the API chose, for the activity that stores the
// refund: the merchant's pairs may be personal and so never travel in the payin workflow's Update.
const pendingMetadataSchema = new Schema(
  { _id: { type: String, required: true }, metadata: { type: Schema.Types.Mixed, required: true } },
  { versionKey: false, minimize: false, collection: 'refund_metadata' },
);

/** Reads and writes inside one activity (src/persistence/read-once.ts). */
const kept = new ReadOnceScope<Refund>('refunds');

/**
 * The last state of each refund this process stored, read or wrote, bounded, with the seq of the
 * write it reflects (0: as this process inserted it; null: a document read, its state a hint that
 * may lag). Not a read cache: its fields fixed at creation (every field but the versioned ones,
 * RefundProgress) serve the steps that need only those (the ledger's postings, the audit), and a
 * versioned write this process applied lays its version's state (every path versioned writes ever
 * set) over it, so the event after the write reads nothing (as TransactionStore's lastKnown).
 */
const lastKnown = new Map<string, { refund: Refund; seq: number | null }>();
const LAST_KNOWN_KEPT = 10_000;
function noteKnown(key: string, refund: Refund, seq: number | null): void {
  lastKnown.delete(key);
  lastKnown.set(key, { refund: structuredClone(refund), seq });
  if (lastKnown.size > LAST_KNOWN_KEPT) lastKnown.delete(lastKnown.keys().next().value!);
}

export class RefundStore {
  private readonly versions: StateVersions;
  private readonly externalRefs: RefundExternalRefs;
  private readonly pendingMetadata: Model<{ _id: string; metadata: Metadata }>;
  private readonly index: TransactionIndex;
  /** Refund id to merchant id, as read or inserted in this process: a refund's merchant never changes. */
  private readonly merchants = new Map<string, string>();

  constructor(private readonly model: RefundModel) {
    this.versions = new StateVersions(model.db, 'refund_states');
    this.externalRefs = RefundExternalRefs.on(model.db);
    this.index = TransactionIndex.on(model.db);
    this.pendingMetadata =
      (model.db.models.RefundMetadata as Model<{ _id: string; metadata: Metadata }> | undefined) ??
      model.db.model<{ _id: string; metadata: Metadata }>('RefundMetadata', pendingMetadataSchema);
  }

  /** Keeps a refund's metadata until openRefund stores the refund with it (idempotent by refund id). */
  async putMetadata(refundId: string, metadata: Metadata): Promise<void> {
    await this.pendingMetadata.replaceOne({ _id: refundId }, { metadata }, { upsert: true }).exec();
  }

  /** The metadata the API kept for this refund id, if any. */
  async metadataFor(refundId: string): Promise<Metadata | undefined> {
    return (await this.pendingMetadata.findById(refundId).lean().exec())?.metadata;
  }

  static on(conn: Connection): RefundStore {
    const model =
      (conn.models.Refund as RefundModel | undefined) ?? conn.model<RefundDoc>('Refund', refundSchema);
    return new RefundStore(model);
  }

  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.index.init()]);
    await this.externalRefs.init(() =>
      this.model
        .find({}, { id: 1, merchantId: 1, payinId: 1, externalReference: 1 })
        .lean<Refund[]>()
        .cursor(),
    );
  }

  /**
   * Inserts once: a retried insert of the same refund id answers the stored one. `listedAs` (its
   * payin's country and provider) places it in the search lists (src/persistence/transaction-index.ts).
   */
  async insertOrGet(
    refund: Refund,
    listedAs?: { country: string; provider: string | null },
  ): Promise<Refund> {
    // The externalReference first (src/persistence/refund-external-refs.ts): held by another refund,
    // nothing is stored, as the unique index would refuse it.
    const { holder, fresh } = await this.externalRefs.claimOnce(
      refund.merchantId,
      refund.payinId,
      refund.externalReference,
      refund.id,
    );
    if (holder !== refund.id)
      throw Object.assign(new Error(`externalReference held by refund ${holder}`), { code: 11000 });
    // Claimed by this very call: no earlier attempt got as far as the lists, so the refund's
    // positions in them need not be looked up first (one read per list).
    if (listedAs) await this.index.add({ ...refund, ...listedAs, kind: 'refund' }, undefined, { fresh });
    try {
      const created = await this.model.create({ _id: refund.id, ...refund });
      this.knowMerchant(refund.id, refund.merchantId);
      // As stored (the schema's defaults applied), as a read of it would answer.
      const { _id, stateSeq: _seq, ...stored } = created.toObject() as RefundDoc;
      noteKnown(this.knownKey(refund.id), stored, 0);
      return refund;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const existing = await this.findById(refund.id);
      if (!existing) throw err; // another refund holds this externalReference: never merged
      return existing;
    }
  }

  /** lastKnown's key: by database too (one process may hold connections to several; tests do). */
  private knownKey(id: string): string {
    return `${this.model.db.name}|${id}`;
  }

  /**
   * The refund's fields fixed at creation (its merchant, payin, amounts, fee, references, metadata):
   * from this process's memory of it, else the document alone (one `_id` read, no version probe).
   * Its versioned fields (status, transaction status, processedAt, failure, attention) may lag:
   * for callers that use only the fixed ones, before a versioned write of their own.
   */
  async fixedOf(id: string): Promise<Refund | null> {
    const known = lastKnown.get(this.knownKey(id));
    if (known) return structuredClone(known.refund);
    const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<RefundDoc>().exec();
    if (!doc) return null;
    const { stateSeq: _seq, ...refund } = doc;
    this.knowMerchant(id, refund.merchantId);
    noteKnown(this.knownKey(id), refund, null);
    return refund;
  }

  /**
   * The refund as this process inserted it (its state before any versioned write, `processing`),
   * when this process did and has written nothing on it since; null otherwise.
   */
  asCreated(id: string): Refund | null {
    const known = lastKnown.get(this.knownKey(id));
    return known?.seq === 0 ? structuredClone(known.refund) : null;
  }

  /**
   * The document as stored, without the versions after the state it copies: one `_id` read. Its
   * state is one the refund had (processing at least), possibly not the latest.
   */
  async findStored(id: string): Promise<Refund | null> {
    const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<RefundDoc>().exec();
    if (!doc) return null;
    const { stateSeq: _seq, ...refund } = doc;
    this.knowMerchant(id, refund.merchantId);
    return refund;
  }

  /**
   * What a payin's refund desk reserves of each of its refunds (the fields fixed at creation, and
   * the latest status: every one not reversed keeps its amount). A refund whose state after write
   * `k` this process knows exactly (it inserted the refund, or applied write `k` itself: versions are
   * immutable) costs only the probe of the versions after `k`, or nothing once its status is final;
   * any other is read whole (findById).
   */
  async reservationsOf(
    payin: Pick<Transaction, 'id' | 'merchantId' | 'refundIds'>,
  ): Promise<Pick<Refund, 'id' | 'externalReference' | 'idempotencyKey' | 'amount' | 'status'>[]> {
    if (!payin.refundIds) return this.ofPayin(payin);
    const found = await Promise.all(
      payin.refundIds.map(async (id) => {
        const known = lastKnown.get(this.knownKey(id));
        if (!known || known.seq === null) return this.find(payin.merchantId, id);
        // Completed or reversed: nothing is written after either (a reversal follows a failure only),
        // and were it otherwise, a reversal missed here keeps its amount reserved: refuses, never pays.
        const final = known.refund.status === 'completed' || known.refund.status === 'reversed';
        const newer = final ? null : await this.versions.newest(id, known.seq + 1);
        const refund = newer ? overlay(structuredClone(known.refund), newer.state) : known.refund;
        if (newer) noteKnown(this.knownKey(id), refund, newer.seq);
        return refund.merchantId === payin.merchantId ? refund : null;
      }),
    );
    return found
      .filter((r): r is Refund => r !== null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((r) => ({
        id: r.id,
        externalReference: r.externalReference,
        idempotencyKey: r.idempotencyKey,
        amount: r.amount,
        status: r.status,
      }));
  }

  /** The latest state: the document, then the versions after the one it copies (two `_id` lookups). */
  async findById(id: string): Promise<Refund | null> {
    const refund = await kept.read(id, async () => {
      const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<RefundDoc>().exec();
      return this.versions.read<Refund>(id, doc);
    });
    if (refund) this.knowMerchant(id, refund.merchantId);
    return refund;
  }

  /** The merchant's refunds created in [from, to), streamed: a scan, as TransactionStore.createdBetween. */
  createdBetween(merchantId: string, from: Date, to: Date): AsyncIterable<CreatedRecord> {
    const docs = this.model
      .find(
        { merchantId, createdAt: { $gte: from, $lt: to } },
        { _id: 0, id: 1, status: 1, amount: 1, currency: 1, createdAt: 1 },
      )
      .batchSize(2_000)
      .lean<Pick<Refund, 'id' | 'status' | 'amount' | 'currency' | 'createdAt'>[]>()
      .cursor();
    return (async function* () {
      for await (const r of docs) yield { ...r, kind: 'refund' as const, provider: null };
    })();
  }

  /** The merchant scope of a refund: fixed at creation, the document alone answers (no version probe). */
  async merchantOf(id: string): Promise<string | null> {
    const known = this.merchants.get(id);
    if (known) return known;
    const doc = await this.model
      .findOne({ _id: id }, { merchantId: 1 })
      .lean<{ merchantId: string }>()
      .exec();
    if (doc) this.knowMerchant(id, doc.merchantId);
    return doc?.merchantId ?? null;
  }

  /** Remembers a refund's merchant (fixed at creation) for merchantOf(), bounded. */
  private knowMerchant(id: string, merchantId: string): void {
    if (this.merchants.size >= 50_000) this.merchants.delete(this.merchants.keys().next().value!);
    this.merchants.set(id, merchantId);
  }

  /** A merchant's refund by its rf_ reference; another merchant's is not found. */
  async find(merchantId: string, id: string): Promise<Refund | null> {
    const refund = await this.findById(id);
    return refund?.merchantId === merchantId ? refund : null;
  }

  async findByExternalReference(
    merchantId: string,
    payinId: string,
    externalReference: string,
  ): Promise<Refund | null> {
    // One `_id` read of the claim, one of the refund (a claim whose refund a crash kept from being
    // stored holds nothing yet: the workflow's own check decides).
    const holder = await this.externalRefs.holder(merchantId, payinId, externalReference);
    return holder ? this.find(merchantId, holder) : null;
  }

  /**
   * The payin's refunds, oldest first. By `_id` from the list the payin keeps (`refundIds`); a payin
   * stored before that list existed and never refunded since has none, and only then are the
   * refunds searched (a scan on FerretDB 1.24, growing with refunds).
   */
  async ofPayin(payin: Pick<Transaction, 'id' | 'merchantId' | 'refundIds'>): Promise<Refund[]> {
    if (!payin.refundIds) return this.searchOfPayin(payin.merchantId, payin.id);
    const found = await Promise.all(payin.refundIds.map((id) => this.find(payin.merchantId, id)));
    return found
      .filter((r): r is Refund => r !== null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  async searchOfPayin(merchantId: string, payinId: string): Promise<Refund[]> {
    const docs = await this.model
      .find({ merchantId, payinId }, { _id: 0 })
      .sort({ createdAt: 1, id: 1 })
      .lean<RefundDoc[]>()
      .exec();
    const refunds = await Promise.all(docs.map((d) => this.versions.read<Refund>(d.id, d)));
    return refunds.filter((r): r is Refund => r !== null);
  }

  /**
   * Idempotent but not ordered: a late call lands over a later one. Kept for callers outside the
   * refund's fixed sequence; the fields versions hold are overridden by the next version.
   */
  async update(id: string, progress: RefundProgress): Promise<void> {
    kept.forget(id);
    lastKnown.delete(this.knownKey(id));
    await this.model.updateOne({ _id: id }, { $set: { ...progress, updatedAt: new Date() } }).exec();
  }

  /** Records the refund's answer or reversal as write refundStateSeq[status] (see applyState). */
  async advance(id: string, progress: RefundFinalProgress): Promise<boolean> {
    // The operator answered: whatever was flagged for ops is resolved.
    return this.applyState(id, refundStateSeq[progress.status], { ...progress, attention: null });
  }

  /**
   * Flags a refund still `processing` for ops. Not a versioned write: it lands before the answer
   * (seq 1), which copies it forward and clears it.
   */
  async flag(id: string, attention: Attention): Promise<void> {
    kept.forget(id);
    lastKnown.delete(this.knownKey(id));
    await this.model.updateOne({ _id: id }, { $set: { attention, updatedAt: new Date() } }).exec();
  }

  /**
   * Write `seq` of the refund's single writer: inserts version `<id>:<seq>` (the latest state with
   * `progress`), then copies it onto the document. A retry of an applied seq, or a late attempt of an
   * older one, writes nothing. Answers whether this call applied it.
   */
  async applyState(id: string, seq: number, progress: Partial<RefundProgress>): Promise<boolean> {
    // The writer knows its seq: no read of the document's hint first (StateVersions.applyNext).
    const stamped = { ...progress, updatedAt: new Date() };
    const applied = await this.versions.applyNextOnDocument(this.model, 'refund', id, seq, stamped);
    const held = kept.holds(id);
    kept.wrote(id, applied, stamped);
    const state = applied ? this.versions.inserted(id, seq) : undefined;
    const base = lastKnown.get(this.knownKey(id));
    if (state && base) {
      // The refund as this write left it: its fixed fields, then every versioned path's value.
      const after = overlay(structuredClone(base.refund), state);
      noteKnown(this.knownKey(id), after, seq);
      if (!held) kept.seed(id, after);
    } else lastKnown.delete(this.knownKey(id));
    return applied;
  }
}
