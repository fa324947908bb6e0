import { Schema, type Connection, type Model } from 'mongoose';
import { TransactionIndex } from './transaction-index';
import type { Transaction } from '../domain/transaction';
import { StateVersions, overlay } from './state-versions';
import { ReadOnceScope } from './read-once';

// Payins and payouts. One document per transaction; the workflow is its only writer after creation.
//
// Every hot lookup is by `_id` alone: FerretDB's SQLite backend pushes only an exact `{ _id }` filter
// down to SQLite and scans the collection for anything else, so reads would slow as data grows. The
// document's `_id` is the transaction id, and `transaction_refs` maps a merchant's reference to it
// (its `_id` is `merchant|kind|reference`, which also makes a duplicate reference impossible).
//
// The workflow's state writes are versioned (`applyState`, src/persistence/state-versions.ts): each
// seq is an immutable document `<id>:<seq>` in `transaction_states`, and this document holds a copy
// (`stateSeq`) that may lag. Every read returning a Transaction probes the versions after that copy:
// one extra `_id` lookup per read, so a late write of an older seq can never show.
type StoredTransaction = Transaction & { _id: string; stateSeq?: number };
const transactionSchema = new Schema<StoredTransaction>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    merchantId: { type: String, required: true },
    kind: { type: String, required: true },
    reference: { type: String, required: true },
    flow: { type: String, required: true },
    status: { type: String, required: true },
    confirmationRequired: { type: Boolean, required: true },
    confirmationStatus: { type: String, required: true },
    paymentUrl: { type: String, default: null },
    customer: { name: { type: String, default: '' }, phoneNumber: { type: String, required: true } },
    country: { type: String, required: true },
    provider: { type: String, default: null },
    currency: { type: String, required: true },
    amount: { type: Number, required: true },
    fee: { type: Number, required: true },
    chargedAmount: { type: Number, required: true },
    payFee: { type: Boolean, required: true },
    sandboxScenario: { type: String, default: null },
    failure: { type: Schema.Types.Mixed, default: null },
    action: {
      type: new Schema({ successUrl: String, failureUrl: String }, { _id: false }),
      default: undefined,
    },
    payout: { type: Schema.Types.Mixed, default: undefined },
    refundIds: { type: [String], default: undefined },
    refundableUntil: { type: Date, default: undefined },
    metadata: { type: Schema.Types.Mixed, default: undefined },
    paymentLinkId: { type: String, default: undefined },
    operators: { type: [String], default: undefined },
    attention: { type: Schema.Types.Mixed, default: undefined },
    workflowId: { type: String, required: true },
    idempotencyKey: { type: String, default: null },
    requestFingerprint: { type: String, default: undefined },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    /** The version this document copies (absent: never versioned, the document is the state). */
    stateSeq: { type: Number, default: undefined },
  },
  { versionKey: false, minimize: false },
);
// A merchant's reference identifies one payin and one payout at most: the unique index is what
// makes a duplicate impossible under concurrency (FerretDB has no transactions).
transactionSchema.index({ merchantId: 1, kind: 1, reference: 1 }, { unique: true });

export type TransactionModel = Model<StoredTransaction>;

/** What a scan of a merchant's records returns (createdBetween): a transaction's or a refund's. */
export interface CreatedRecord {
  kind: 'payin' | 'payout' | 'refund';
  id: string;
  status: string;
  amount: number;
  currency: Transaction['currency'];
  provider: string | null;
  createdAt: Date;
}

/**
 * What a state write may change: the workflow-owned fields, and paths inside `customer` and `payout`
 * (e.g. `payout.operatorReference`). Identity and creation fields are fixed.
 */
export type TransactionStateChanges = Partial<
  Omit<Transaction, 'id' | 'merchantId' | 'kind' | 'reference' | 'workflowId' | 'createdAt'>
> & { [path: `customer.${string}` | `payout.${string}`]: unknown };

interface TransactionRef {
  _id: string;
  id: string;
}
const refSchema = new Schema<TransactionRef>(
  { _id: String, id: { type: String, required: true } },
  { versionKey: false },
);
type RefModel = Model<TransactionRef>;

export function transactionModel(conn: Connection): TransactionModel {
  return (
    (conn.models.Transaction as TransactionModel | undefined) ??
    conn.model<StoredTransaction>('Transaction', transactionSchema)
  );
}

function refModel(conn: Connection): RefModel {
  return (
    (conn.models.TransactionRef as RefModel | undefined) ??
    conn.model<TransactionRef>('TransactionRef', refSchema, 'transaction_refs')
  );
}

const refKey = (merchantId: string, kind: Transaction['kind'], reference: string) =>
  `${merchantId}|${kind}|${reference}`;
const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/** Reads and writes inside one activity (src/persistence/read-once.ts). */
const kept = new ReadOnceScope<Transaction>('transactions');

/**
 * The last state of each record this process read or wrote, bounded. Not a read cache: only a
 * versioned write this process applied uses it, as the base of the state it knows it left (the
 * version's state holds every path versioned writes ever set; the other fields are fixed at
 * creation), so the step after the write (its event) reads nothing.
 */
const lastKnown = new Map<string, Transaction>();
const LAST_KNOWN_KEPT = 10_000;
/**
 * For records whose lastKnown state is exactly the state after a write this process knows the seq
 * of (it applied that write, or read the state with its seq): that seq. Versions are immutable, so
 * the latest state is that one with the versions after it, if any (latestWithSeq()).
 */
const knownSeqs = new Map<string, number>();
function noteKnown(id: string, tx: Transaction, seq?: number): void {
  lastKnown.delete(id);
  lastKnown.set(id, tx);
  if (seq === undefined) knownSeqs.delete(id);
  else knownSeqs.set(id, seq);
  if (lastKnown.size > LAST_KNOWN_KEPT) forgetKnown(lastKnown.keys().next().value!);
}
function forgetKnown(id: string): void {
  lastKnown.delete(id);
  knownSeqs.delete(id);
}

/** What a transaction is fixed at creation with; `provider` too once set (a session's at its confirmation). */
type Identity = Pick<Transaction, 'kind' | 'merchantId' | 'reference' | 'country' | 'provider' | 'createdAt'>;

export class TransactionStore {
  private readonly versions: StateVersions;
  /** The lists GET /v1/transactions walks (src/persistence/transaction-index.ts). */
  readonly index: TransactionIndex;
  /**
   * Identities read or stored by this process, bounded: they never change (a provider once set
   * neither), so the mode gateway, the callback's routing and a session's provider list ask the
   * store once per id and process.
   */
  private readonly identities = new Map<string, Identity>();
  /**
   * A payin's reference claim (its `transaction_refs` key) to its id, as this process inserted or
   * read it, bounded: insert-once and never removed for a payin (only an unstarted payout's is,
   * removeUnstarted), so find() needs no read of it again.
   */
  private readonly payinClaims = new Map<string, string>();

  constructor(
    private readonly model: TransactionModel,
    private readonly refs: RefModel,
  ) {
    this.versions = new StateVersions(model.db, 'transaction_states');
    this.index = TransactionIndex.on(model.db);
  }

  /** lastKnown's key: by database too (one process may hold connections to several; tests do). */
  private knownKey(id: string): string {
    return `${this.model.db.name}|${id}`;
  }

  private know(id: string, tx: Identity): void {
    const known = this.identities.get(id);
    if (known?.provider && !tx.provider) return;
    if (this.identities.size >= 50_000) this.identities.delete(this.identities.keys().next().value!);
    const { kind, merchantId, reference, country, provider, createdAt } = tx;
    this.identities.set(id, { kind, merchantId, reference, country, provider: provider ?? null, createdAt });
  }

  static on(conn: Connection): TransactionStore {
    return new TransactionStore(transactionModel(conn), refModel(conn));
  }

  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.refs.init(), this.index.init()]);
  }

  /** Lists it; `fresh`: its id was just claimed, so no earlier attempt listed it. */
  private join(tx: Transaction, fresh = false): Promise<void> {
    return this.index.add({ ...tx, kind: tx.kind }, undefined, { fresh });
  }

  /**
   * Inserts; answers the stored one when this merchant already used the reference for this kind.
   * The reference is claimed first (unique `_id`); a claim whose transaction was never written (a
   * crash in between) is completed by the next attempt, under the claimed id.
   */
  async insertOrGet(
    tx: Transaction,
    opts: {
      /**
       * The workflow's start marker (TransactionWorkflows.mark), which must land before the record is
       * stored. Given, creation waits for fewer round trips in sequence: the marker, the reference's
       * claim and the lists' entries go together, and the record's insert beside the lists'
       * positions. The lists may then land after the record: a crash in between leaves the marker,
       * and the recovery sweep lists the record again before it starts its workflow (relist()).
       */
      alongside?: () => Promise<unknown>;
    } = {},
  ): Promise<{ created: boolean; transaction: Transaction }> {
    let id = tx.id;
    let fresh = true;
    const alongside = opts.alongside?.();
    // Listed as fresh before the claim answers: if the reference turns out taken, these entries
    // name this draft's id, which no record will ever have, and readers skip them.
    const listing = alongside ? this.join(tx, true) : null;
    // Awaited below whatever happens, so a failure of either is never left unobserved.
    const claim = this.refs.create({ _id: refKey(tx.merchantId, tx.kind, tx.reference), id });
    const [claimed, marked] = await Promise.allSettled([claim, alongside]);
    try {
      if (marked.status === 'rejected') throw marked.reason;
      if (claimed.status === 'rejected') throw claimed.reason;
    } catch (err) {
      await listing?.catch(() => undefined);
      if (marked.status === 'rejected') throw err;
      fresh = false;
      if (!isDuplicateKey(err)) throw err;
      const claim = await this.refs
        .findOne({ _id: refKey(tx.merchantId, tx.kind, tx.reference) })
        .lean()
        .exec();
      if (!claim) throw err;
      const existing = await this.findById(claim.id);
      if (existing) {
        // A retry: the first attempt may have stopped before it joined the lists.
        await this.join(existing);
        return { created: false, transaction: existing };
      }
      id = claim.id;
    }
    const stored: Transaction = { ...tx, id };
    // Without a marker: listed before it is stored, so a crash in between leaves a member readers
    // skip, never a transaction no search finds.
    if (!fresh || !listing) await this.join(stored, fresh);
    try {
      await this.model.create({ ...stored, _id: id });
      this.know(id, stored);
      if (stored.kind === 'payin')
        this.knowClaim(refKey(stored.merchantId, stored.kind, stored.reference), id);
      await listing;
      return { created: true, transaction: stored };
    } catch (err) {
      await listing?.catch(() => undefined);
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.findById(id);
      if (!existing) throw err;
      return { created: false, transaction: existing };
    }
  }

  /**
   * Joins a stored transaction's lists again (idempotent): the recovery sweep's, for a record whose
   * creation stopped before its lists were written (insertOrGet with a marker).
   */
  async relist(tx: Transaction): Promise<void> {
    await this.join(tx);
  }

  async find(merchantId: string, kind: Transaction['kind'], reference: string): Promise<Transaction | null> {
    const id = await this.claimedId(merchantId, kind, reference);
    return id ? this.findById(id) : null;
  }

  /** The id that claimed a reference: one `_id` read, none for a payin's this process knows. */
  private async claimedId(
    merchantId: string,
    kind: Transaction['kind'],
    reference: string,
  ): Promise<string | null> {
    const key = refKey(merchantId, kind, reference);
    const known = kind === 'payin' ? this.payinClaims.get(key) : undefined;
    if (known) return known;
    const claim = await this.refs.findOne({ _id: key }).lean().exec();
    if (claim && kind === 'payin') this.knowClaim(key, claim.id);
    return claim?.id ?? null;
  }

  private knowClaim(key: string, id: string): void {
    if (this.payinClaims.size >= 50_000) this.payinClaims.delete(this.payinClaims.keys().next().value!);
    this.payinClaims.set(key, id);
  }

  /**
   * find(), answered by the document alone (no version probe) when it already shows `settled`: a
   * document's copy is of a whole version's state, so one showing a payin's success holds every
   * field written up to it. For a caller whose decision is taken again from a fresh read (a refund
   * request, which the payin's refund desk decides), so a later version it does not see (a
   * correction, a list of refunds) changes nothing it decides. Otherwise the latest, as find().
   */
  async findSettled(
    merchantId: string,
    kind: Transaction['kind'],
    reference: string,
    settled: (tx: Transaction) => boolean,
  ): Promise<Transaction | null> {
    const id = await this.claimedId(merchantId, kind, reference);
    if (!id) return null;
    const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredTransaction>().exec();
    if (!doc) return null;
    const { stateSeq: _seq, ...asStored } = doc;
    const tx = settled(asStored) ? asStored : await this.versions.read<Transaction>(id, doc);
    if (tx) this.know(id, tx);
    return tx;
  }

  /** The latest state: the document, then the versions after the one it copies (two `_id` lookups). */
  async findById(id: string): Promise<Transaction | null> {
    const tx = await kept.read(id, async () => {
      const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredTransaction>().exec();
      const read = await this.versions.read<Transaction>(id, doc);
      if (read) noteKnown(this.knownKey(id), structuredClone(read));
      return read;
    });
    if (tx) this.know(id, tx);
    return tx;
  }

  /**
   * The merchant's transactions created in [from, to), a few fields each, streamed. A scan (FerretDB
   * decodes every document of the collection): for the dashboard's first fold of a scope's figures
   * only (src/dashboard/data/home.ts). The status is the document's copy, which may lag its
   * versions: findById is exact.
   */
  createdBetween(merchantId: string, from: Date, to: Date): AsyncIterable<CreatedRecord> {
    return this.model
      .find(
        { merchantId, createdAt: { $gte: from, $lt: to } },
        { _id: 0, id: 1, kind: 1, status: 1, amount: 1, currency: 1, provider: 1, createdAt: 1 },
      )
      .batchSize(2_000)
      .lean<CreatedRecord[]>()
      .cursor();
  }

  /**
   * The document as stored, without the versions after the state it copies: its fields fixed at
   * creation are exact, its mutable state may lag. For readers of the former only (one `_id` read).
   */
  async findAsCreated(id: string): Promise<Transaction | null> {
    const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredTransaction>().exec();
    if (!doc) return null;
    const { stateSeq: _seq, ...tx } = doc;
    return tx;
  }

  /**
   * The record's fields fixed at creation (its merchant, kind, reference, amounts, fee, currency,
   * customer): from this process's memory of it, else the document alone (one `_id` read, no
   * version probe), kept as the base a versioned write of this process lays its state over (see
   * applyState). Its workflow-owned fields may lag: for callers that use only the fixed ones.
   */
  async fixedOf(id: string): Promise<Transaction | null> {
    const known = lastKnown.get(this.knownKey(id));
    if (known) return structuredClone(known);
    const tx = await this.findAsCreated(id);
    if (tx) {
      noteKnown(this.knownKey(id), structuredClone(tx));
      this.know(id, tx);
    }
    return tx;
  }

  /**
   * The latest state and the seq of its last write, read together: a writer other than the workflow
   * (reconciliation's correction) decides from this state and writes `seq + 1`, so that if anyone
   * wrote after it, its insert loses and nothing it decided from a stale state lands.
   */
  async findWithSeq(id: string): Promise<{ transaction: Transaction; seq: number } | null> {
    const doc = await this.model.findOne({ _id: id }, { _id: 0 }).lean<StoredTransaction>().exec();
    const read = await this.versions.readWithSeq<Transaction>(id, doc);
    if (read) noteKnown(this.knownKey(id), structuredClone(read.value), read.seq);
    return read && { transaction: read.value, seq: read.seq };
  }

  /**
   * findWithSeq() for a reader of the fixed fields and the versioned ones (a payin's refund desk):
   * when this process knows the record's state after write `k` exactly (it applied write `k`, or
   * read that state with its seq), the versions after `k` are probed and the document is not read
   * (one `_id` read where findWithSeq takes two); else findWithSeq(). The seq answered is the latest
   * all the same: a writer deciding from it takes `seq + 1` and loses to any other.
   */
  async latestWithSeq(id: string): Promise<{ transaction: Transaction; seq: number } | null> {
    const key = this.knownKey(id);
    const seq = knownSeqs.get(key);
    const base = lastKnown.get(key);
    if (seq === undefined || !base) return this.findWithSeq(id);
    const newer = await this.versions.newest(id, seq + 1);
    if (!newer) return { transaction: structuredClone(base), seq };
    // Every versioned path's value after the newest write, over the fixed fields.
    const after = overlay(structuredClone(base), newer.state);
    noteKnown(key, structuredClone(after), newer.seq);
    return { transaction: after, seq: newer.seq };
  }

  /** Removes a transaction nothing happened to yet (a payout whose debit was refused). */
  async removeUnstarted(id: string): Promise<void> {
    const tx = await this.findById(id);
    if (!tx || tx.status !== 'pending') return;
    // Versions first: a claimed id is re-used by the next attempt, which must start with none.
    await this.versions.remove(id);
    kept.forget(id);
    forgetKnown(this.knownKey(id));
    // Its id is re-used by the next attempt, with that attempt's createdAt.
    this.identities.delete(id);
    await this.model.deleteOne({ _id: id }).exec();
    this.payinClaims.delete(refKey(tx.merchantId, tx.kind, tx.reference));
    // After the transaction: a claim left alone by a crash here is re-used by the next attempt.
    await this.refs.deleteOne({ _id: refKey(tx.merchantId, tx.kind, tx.reference) }).exec();
  }

  /**
   * Idempotent: setting the same fields twice leaves the same document. Not ordered: a late call lands
   * over a later one. Kept for workflows that replay without a seq. On a record written with
   * applyState it is not ordered with the versions either: the fields they hold are overridden by
   * the next version, or at once when one newer than the document's copy exists.
   */
  async update(id: string, fields: Partial<Transaction>): Promise<void> {
    kept.forget(id);
    forgetKnown(this.knownKey(id));
    await this.model.updateOne({ _id: id }, { $set: { ...fields, updatedAt: new Date() } }).exec();
  }

  /**
   * Write `seq` of the record's single writer (its workflow, counting 1, 2, … and issuing n+1 only once
   * n completed): inserts version `<id>:<seq>` (the latest state with `changes`), then copies it onto
   * the document. A retry of an applied seq, or a late attempt of an older one, writes nothing. Answers
   * whether this call applied it. Costs: the document, the versions from its copy on, one insert and
   * one update.
   */
  /** The seq of the record's last state write: a new writer (a payin's refund desk) numbers on from it. */
  async stateSeqOf(id: string): Promise<number> {
    const doc = await this.model.findOne({ _id: id }, { stateSeq: 1 }).lean<{ stateSeq?: number }>().exec();
    if (!doc) throw new Error(`transaction ${id} not found`);
    return this.versions.latestSeq(id, doc.stateSeq ?? 0);
  }

  /**
   * The value at `path` of the record's state after write `seq`, when this process inserted that
   * version (immutable) and it set the path; undefined otherwise (the caller reads the record).
   */
  knownAfter(id: string, seq: number, path: string): unknown {
    return this.versions.inserted(id, seq)?.find((e) => e.path === path)?.value;
  }

  async applyState(id: string, seq: number, changes: TransactionStateChanges): Promise<boolean> {
    // A session learns its provider when the customer confirms: it joins that provider's list then.
    // Only its identity is listed (fixed at creation): the document alone, no version probe.
    if (changes.provider) {
      const tx = await this.listedIdentityOf(id);
      if (tx) await this.index.add({ ...tx, id }, [{ by: 'provider', value: changes.provider }]);
    }
    // The writer knows its seq: no read of the document's hint first (StateVersions.applyNext).
    const stamped = { ...changes, updatedAt: new Date() };
    const applied = await this.versions.applyNextOnDocument(
      this.model as never,
      'transaction',
      id,
      seq,
      stamped,
    );
    const held = kept.holds(id);
    kept.wrote(id, applied, stamped);
    const state = applied ? this.versions.inserted(id, seq) : undefined;
    const base = lastKnown.get(this.knownKey(id));
    if (state && base) {
      // The record as this write left it: its fixed fields, then every versioned path's value.
      const after = overlay(structuredClone(base), state);
      noteKnown(this.knownKey(id), after, seq);
      if (!held) kept.seed(id, after);
    } else forgetKnown(this.knownKey(id));
    return applied;
  }

  /**
   * What routes a callback to its workflow: identity fields fixed at creation, and the provider (a
   * session's is set by the write that precedes asking the operator, so before any callback): the
   * document alone answers, one read.
   */
  async identityOf(
    id: string,
  ): Promise<Pick<Transaction, 'kind' | 'merchantId' | 'reference' | 'provider'> | null> {
    // Known with its provider: final. Without one, the document may have learnt it since.
    const known = this.identities.get(id);
    if (known?.provider) return known;
    const doc = await this.model
      .findOne({ _id: id }, { _id: 0, kind: 1, merchantId: 1, reference: 1, provider: 1 })
      .lean<Pick<Transaction, 'kind' | 'merchantId' | 'reference' | 'provider'>>()
      .exec();
    return doc;
  }

  /** What a list entry needs (kind, merchant, createdAt): fixed at creation, the document alone answers. */
  private async listedIdentityOf(id: string): Promise<Identity | null> {
    const known = this.identities.get(id);
    if (known) return known;
    const doc = await this.model
      .findOne(
        { _id: id },
        { _id: 0, kind: 1, merchantId: 1, reference: 1, country: 1, provider: 1, createdAt: 1 },
      )
      .lean<Identity>()
      .exec();
    if (doc) this.know(id, doc);
    return doc;
  }

  /**
   * The merchant scope of a transaction: fixed at creation, so the document alone answers (no
   * version probe), and the mode gateway asks it once per id and process.
   */
  async merchantOf(id: string): Promise<string | null> {
    const known = this.identities.get(id);
    if (known) return known.merchantId;
    const doc = await this.model
      .findOne({ _id: id }, { merchantId: 1 })
      .lean<{ merchantId: string }>()
      .exec();
    return doc?.merchantId ?? null;
  }
}
