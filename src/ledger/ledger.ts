import { ledgerPostings } from '../infra/metrics';
import type { Connection, Model, mongo } from 'mongoose';
import { newId } from '../domain/ids';
import { ReadChains } from '../persistence/read-chains';
import type { Currency } from '../domain/money';
import {
  entryKey,
  ledgerModels,
  type AccountDoc,
  type EntryDoc,
  type HeadHint,
  type LedgerModels,
  type TransferDoc,
} from './models';
import {
  InsufficientFundsError,
  LedgerContentionError,
  LedgerError,
  SourceRefConflictError,
  type Account,
  type Leg,
  type LedgerEntry,
  type SystemAccountName,
  type TransferRequest,
  type TransferResult,
} from './types';

// An append-only double-entry journal that stays correct without multi-document transactions.
// Each account is a chain of entries numbered 1, 2, 3..., each carrying the running balance after
// it, and each stored under `_id` = `<accountId>:<seq>`: of two writers inserting the same position
// exactly one wins. An appender builds on the head it knows, refuses a debit that would go below
// zero only against the account's real head, and inserts seq+1; a writer that lost the position
// reads the entry that won it and moves on. A transfer is an intent document (`_id` = sourceRef),
// then its debit leg, then its credit leg, each unique by (sourceRef, leg): a retry after a crash
// anywhere completes the missing legs, and a replay finds them present and applies nothing.
//
// Every hot operation names one document by `_id` (FerretDB 1.24's SQLite backend pushes only that
// filter down), and the usual path reads nothing that grows with the journal: the head comes from
// this process's memory or from a per-account head hint (`ledger_heads`, one small document per
// account), and the insert itself is the check that it was the head. See docs/ledger.md.
//
// Reads on request paths name `_id`s too: a statement page reads the positions below its cursor of
// the chain itself; a merchant's accounts are a read chain (`ledger_account_index`), and an account's
// id maps to its key in `ledger_account_ids`. Both are written when an account is first resolved in a
// process (idempotent), and filled once from the accounts stored before them (init()).

/** The driver's insert, for documents built here in full: the hot path skips mongoose's casting. */
async function insertRaw<T extends { _id: string }>(model: Model<T>, doc: T): Promise<void> {
  await (model.collection as unknown as mongo.Collection<T>).insertOne(
    doc as mongo.OptionalUnlessRequiredId<T>,
  );
}

const duplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === 11000;

const ACCOUNT_INDEX = 'ledger_account_index';
const BACKFILL_COLLECTION = 'read_model_backfills';
/** Most accounts listed for one merchant (main ones per currency and its sub-accounts). */
const MAX_ACCOUNTS_LISTED = 1_000;
/** Entries read at most for one statement page with time bounds; past it the page is short. */
const STATEMENT_BUDGET = 2_000;
/** Parallel `_id` reads per round trip while walking a statement. */
const STATEMENT_BATCH = 25;

const MAX_ATTEMPTS = 200;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Cursor {
  seq: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify({ s: c.seq })).toString('base64url');
}

/** Null when the text is not a cursor this ledger issued. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof parsed.s === 'number' && Number.isSafeInteger(parsed.s) && parsed.s > 0)
      return { seq: parsed.s };
  } catch {
    // fall through
  }
  return null;
}

export interface EntriesQuery {
  limit?: number;
  cursor?: string;
  /** Inclusive bounds on createdAt. */
  from?: Date;
  to?: Date;
}

export interface LedgerOptions {
  /**
   * Queue this process's writers per account before they race in the database: far fewer lost
   * races under load. Correctness never depends on it (other processes still race).
   */
  serializeLocally?: boolean;
}

// Per connection, so every Ledger on one connection shares the queues (API and worker wiring).
const localQueues = new WeakMap<Connection, Map<string, Promise<unknown>>>();
// Writers queued or running per account in this process: the last one writes the head hint.
const localWriters = new WeakMap<Connection, Map<string, number>>();
// The newest entry seen per account: where an appender starts and a lower bound for the head
// search; never trusted as the head (a stale one makes the insert fail and the writer move on).
interface Head {
  seq: number;
  balanceAfter: number;
}
const seenHeads = new WeakMap<Connection, Map<string, Head>>();
// Account documents never change once created, so they can be remembered, by id and by key.
const knownAccounts = new WeakMap<Connection, Map<string, AccountDoc>>();
const knownKeys = new WeakMap<Connection, Map<string, AccountDoc>>();

const mainSpec = (merchantId: string, currency: Currency): Omit<AccountDoc, 'id' | 'createdAt'> => ({
  key: `main:${merchantId}:${currency}`,
  merchantId,
  currency,
  kind: 'main',
  name: 'main',
});

const systemSpec = (name: SystemAccountName, currency: Currency): Omit<AccountDoc, 'id' | 'createdAt'> => ({
  key: `system:${name}:${currency}`,
  merchantId: null,
  currency,
  kind: 'system',
  name,
});

/** The further of two heads (each a real entry, or nothing). */
function newest(a: Head | null, b: Head | null): Head | null {
  if (!a) return b;
  if (!b) return a;
  return b.seq > a.seq ? b : a;
}

function perConnection<V>(map: WeakMap<Connection, Map<string, V>>, conn: Connection): Map<string, V> {
  let m = map.get(conn);
  if (!m) map.set(conn, (m = new Map<string, V>()));
  return m;
}

export class Ledger {
  private readonly queues: Map<string, Promise<unknown>>;
  private readonly writers: Map<string, number>;
  private readonly heads: Map<string, Head>;
  private readonly accountDocs: Map<string, AccountDoc>;
  private readonly accountKeys: Map<string, AccountDoc>;
  private readonly accountIndex: ReadChains<AccountDoc>;

  constructor(
    private readonly m: LedgerModels,
    private readonly conn: Connection,
    private readonly options: LedgerOptions = {},
  ) {
    this.accountIndex = new ReadChains<AccountDoc>(conn, ACCOUNT_INDEX);
    this.queues = perConnection(localQueues, conn);
    this.writers = perConnection(localWriters, conn);
    this.heads = perConnection(seenHeads, conn);
    this.accountDocs = perConnection(knownAccounts, conn);
    this.accountKeys = perConnection(knownKeys, conn);
  }

  static on(conn: Connection, options: LedgerOptions = {}): Ledger {
    return new Ledger(ledgerModels(conn), conn, options);
  }

  async init(): Promise<void> {
    await Promise.all([
      this.m.accounts.init(),
      this.m.entries.init(),
      this.m.transfers.init(),
      this.m.heads.init(),
      this.m.accountIds.init(),
      this.accountIndex.init(),
    ]);
    await this.backfillAccountIndex();
  }

  /** Once per database (a marker says so): indexes the accounts stored before the index existed. */
  private async backfillAccountIndex(): Promise<void> {
    const markers = this.conn.db!.collection<{ _id: string; at: Date }>(BACKFILL_COLLECTION);
    if (await markers.findOne({ _id: ACCOUNT_INDEX })) return;
    const cursor = this.m.accounts.find({}, { _id: 0 }).sort({ createdAt: 1 }).lean<AccountDoc[]>().cursor();
    for await (const doc of cursor) await this.indexAccount(doc);
    await markers.updateOne({ _id: ACCOUNT_INDEX }, { $set: { at: new Date() } }, { upsert: true });
  }

  /** Its id -> key, and its place in its merchant's list: both fixed `_id`s, so a retry is harmless. */
  private async indexAccount(doc: AccountDoc): Promise<void> {
    try {
      await insertRaw(this.m.accountIds, { _id: doc.id, key: doc.key });
    } catch (err) {
      if (!duplicateKey(err)) throw err;
    }
    if (doc.merchantId)
      await this.accountIndex.append(`${doc.merchantId}`, doc.id, new Date(doc.createdAt), doc);
  }

  // ---- accounts ----

  /** Get-or-create: the unique key makes concurrent callers end with the same single account. */
  async mainAccount(merchantId: string, currency: Currency): Promise<Account> {
    return this.withBalance(await this.accountByKey(mainSpec(merchantId, currency)));
  }

  /** The id of mainAccount() without reading its balance: all a transfer needs. */
  async mainAccountId(merchantId: string, currency: Currency): Promise<string> {
    return (await this.accountByKey(mainSpec(merchantId, currency))).id;
  }

  /** Sub-account names are unique per merchant and currency: the same name answers the same account. */
  async createSubAccount(merchantId: string, currency: Currency, name: string): Promise<Account> {
    const trimmed = name.trim();
    if (!trimmed || trimmed === 'main') throw new LedgerError(`invalid sub-account name: "${name}"`);
    return this.withBalance(
      await this.accountByKey({
        key: `sub:${merchantId}:${currency}:${trimmed}`,
        merchantId,
        currency,
        kind: 'sub',
        name: trimmed,
      }),
    );
  }

  async systemAccount(name: SystemAccountName, currency: Currency): Promise<Account> {
    return this.withBalance(await this.accountByKey(systemSpec(name, currency)));
  }

  /** The id of systemAccount() without reading its balance: all a transfer needs. */
  async systemAccountId(name: SystemAccountName, currency: Currency): Promise<string> {
    return (await this.accountByKey(systemSpec(name, currency))).id;
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const doc = await this.accountDoc(accountId);
    return doc ? this.withBalance(doc) : null;
  }

  private async accountDoc(accountId: string): Promise<AccountDoc | null> {
    const cached = this.accountDocs.get(accountId);
    if (cached) return cached;
    // Id -> key, then the account by key: two `_id` reads, and remembered once found. An id not
    // mapped is unknown (init() mapped the accounts stored before the map).
    const mapped = await this.m.accountIds.findOne({ _id: accountId }).lean<{ key: string }>().exec();
    if (!mapped) return null;
    const doc = await this.m.accounts.findOne({ _id: mapped.key }, { _id: 0 }).lean<AccountDoc>().exec();
    if (doc) this.accountDocs.set(accountId, doc);
    return doc;
  }

  /** The merchant's accounts, main ones first, then by creation. */
  async listAccounts(merchantId: string): Promise<Account[]> {
    const head = await this.accountIndex.head(merchantId);
    const docs = (await this.accountIndex.range(merchantId, 1, Math.min(head, MAX_ACCOUNTS_LISTED))).map(
      (e) => e.doc,
    );
    const accounts = await Promise.all(docs.map((d) => this.withBalance(d)));
    const rank = (a: Account) => (a.kind === 'main' ? 0 : 1);
    return accounts.sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.currency.localeCompare(b.currency) ||
        a.createdAt.getTime() - b.createdAt.getTime(),
    );
  }

  /** The account stored under `spec.key` (its `_id`), created if absent; one winner under concurrency. */
  private async accountByKey(spec: Omit<AccountDoc, 'id' | 'createdAt'>): Promise<AccountDoc> {
    const known = this.accountKeys.get(spec.key);
    if (known) return known;
    const byKey = () => this.m.accounts.findOne({ _id: spec.key }, { _id: 0 }).lean<AccountDoc>().exec();
    let doc = await byKey();
    if (!doc) {
      const candidate: AccountDoc = { ...spec, id: newId('acc'), createdAt: new Date() };
      try {
        await insertRaw(this.m.accounts, { _id: spec.key, ...candidate });
        doc = candidate;
      } catch (err) {
        if (!duplicateKey(err)) throw err;
        doc = await byKey();
        if (!doc) throw err;
      }
    }
    // Listed and findable by id before any caller learns of it (once per process and account).
    await this.indexAccount(doc);
    this.accountKeys.set(spec.key, doc);
    this.accountDocs.set(doc.id, doc);
    return doc;
  }

  private publicAccount(doc: AccountDoc): Omit<Account, 'balance'> {
    return {
      id: doc.id,
      merchantId: doc.merchantId ?? null,
      currency: doc.currency,
      kind: doc.kind,
      name: doc.name,
      createdAt: new Date(doc.createdAt),
    };
  }

  private async withBalance(doc: AccountDoc): Promise<Account> {
    const head = await this.head(doc.id);
    return { ...this.publicAccount(doc), balance: head?.balanceAfter ?? 0 };
  }

  // ---- the head of a chain ----

  /**
   * The account's real head as of now: from the furthest of this process's memory and the stored
   * hint, each next position read by `_id` until one is missing.
   */
  private async head(accountId: string): Promise<Head | null> {
    const start = newest(this.heads.get(accountId) ?? null, await this.readHint(accountId));
    return this.probeForward(accountId, start);
  }

  /** Follows the chain from `from` (a real entry, or nothing for an empty chain) to its end. */
  private async probeForward(accountId: string, from: Head | null): Promise<Head | null> {
    let head = from;
    for (;;) {
      const next = await this.entryAt(accountId, (head?.seq ?? 0) + 1);
      if (!next) break;
      head = { seq: next.seq, balanceAfter: next.balanceAfter };
    }
    if (head) this.remember(accountId, head);
    // The hint was behind (a writer died before updating it, or lost a race): bring it forward.
    if (head && head.seq !== from?.seq) await this.writeHint(accountId, head);
    return head;
  }

  private async entryAt(accountId: string, seq: number): Promise<EntryDoc | null> {
    return this.m.entries
      .findOne({ _id: entryKey(accountId, seq) }, { _id: 0 })
      .lean<EntryDoc>()
      .exec();
  }

  private async readHint(accountId: string): Promise<Head | null> {
    const hint = await this.m.heads.findOne({ _id: accountId }).lean<HeadHint>().exec();
    return hint ? { seq: hint.seq, balanceAfter: hint.balanceAfter } : null;
  }

  /**
   * Best effort: the pair comes from a real entry, so even a hint overwritten by a slower writer
   * with an older pair is only behind, never wrong. A failure here costs later readers a few probes.
   */
  private async writeHint(accountId: string, head: Head): Promise<void> {
    try {
      await this.m.heads
        .updateOne(
          { _id: accountId },
          { $set: { seq: head.seq, balanceAfter: head.balanceAfter, updatedAt: new Date() } },
          { upsert: true },
        )
        .exec();
    } catch {
      // a concurrent first upsert won (duplicate _id), or the database is unreachable: both harmless
    }
  }

  private remember(accountId: string, head: Head): void {
    const known = this.heads.get(accountId);
    if (!known || head.seq > known.seq)
      this.heads.set(accountId, { seq: head.seq, balanceAfter: head.balanceAfter });
  }

  // ---- transfers ----

  /**
   * Moves `amount` from one account to another, once per sourceRef. Throws InsufficientFundsError
   * (and applies nothing) when a non-system `from` would go below zero.
   */
  async transfer(req: TransferRequest): Promise<TransferResult> {
    const transfer = await this.recordTransfer(req);
    const debit = await this.applyLeg(transfer, 'debit');
    const credit = await this.applyLeg(transfer, 'credit');
    // No status to update: a transfer is complete exactly when its credit leg exists.
    if (credit.inserted) ledgerPostings.inc();
    return {
      transferId: transfer.id,
      applied: credit.inserted,
      fromBalance: debit.entry.balanceAfter,
      toBalance: credit.entry.balanceAfter,
    };
  }

  /**
   * Step 1 of a transfer (exposed for crash tests): validates and records the intent, or answers the
   * intent already recorded under this sourceRef, provided it describes the same movement.
   */
  async recordTransfer(req: TransferRequest): Promise<TransferDoc> {
    if (!req.sourceRef?.trim()) throw new LedgerError('sourceRef is required');
    if (!Number.isSafeInteger(req.amount) || req.amount <= 0)
      throw new LedgerError(`amount must be a positive integer in minor units, got ${req.amount}`);
    if (req.fromAccountId === req.toAccountId) throw new LedgerError('cannot transfer to the same account');
    if (!req.reason?.trim()) throw new LedgerError('every movement needs a reason');

    const [from, to] = await Promise.all([
      this.accountDoc(req.fromAccountId),
      this.accountDoc(req.toAccountId),
    ]);
    if (!from) throw new LedgerError(`unknown account ${req.fromAccountId}`);
    if (!to) throw new LedgerError(`unknown account ${req.toAccountId}`);
    if (from.currency !== to.currency)
      throw new LedgerError(`currency mismatch: ${from.currency} -> ${to.currency}`);

    const doc: TransferDoc = {
      id: newId('lt'),
      sourceRef: req.sourceRef,
      fromAccountId: from.id,
      toAccountId: to.id,
      amount: req.amount,
      currency: from.currency,
      reason: req.reason,
      transactionId: req.transactionId ?? null,
      metadata: req.metadata ?? null,
      createdAt: new Date(),
    };
    try {
      // Insert first: a replay learns of the stored intent from its `_id`, the sourceRef.
      await insertRaw(this.m.transfers, { _id: req.sourceRef, ...doc });
      return doc;
    } catch (err) {
      if (!duplicateKey(err)) throw err;
      const winner = await this.m.transfers
        .findOne({ _id: req.sourceRef }, { _id: 0 })
        .lean<TransferDoc>()
        .exec();
      if (!winner) throw err;
      return this.sameMovement(winner, req);
    }
  }

  private sameMovement(known: TransferDoc, req: TransferRequest): TransferDoc {
    if (
      known.fromAccountId !== req.fromAccountId ||
      known.toAccountId !== req.toAccountId ||
      known.amount !== req.amount
    )
      throw new SourceRefConflictError(req.sourceRef);
    return known;
  }

  /**
   * Steps 2 and 3 of a transfer (exposed for crash tests): appends one leg to its account's chain,
   * or finds it already there. `inserted` is true only for the call whose insert created it.
   */
  async applyLeg(transfer: TransferDoc, leg: Leg): Promise<{ entry: EntryDoc; inserted: boolean }> {
    const accountId = leg === 'debit' ? transfer.fromAccountId : transfer.toAccountId;
    return this.serialized(accountId, async (last) => {
      const result = await this.appendLeg(transfer, leg, accountId);
      // One hint write per burst: the last local writer of the account leaves it for the others.
      if (result.inserted && last()) await this.writeHint(accountId, result.entry);
      return result;
    });
  }

  private async appendLeg(
    transfer: TransferDoc,
    leg: Leg,
    accountId: string,
  ): Promise<{ entry: EntryDoc; inserted: boolean }> {
    const delta = leg === 'debit' ? -transfer.amount : transfer.amount;
    const mayGoNegative = leg === 'credit' || (await this.isSystemAccount(accountId));
    // Optimistic: build on the last head this process saw, else on the stored hint. Neither is
    // trusted: if the chain is longer, the insert of seq+1 fails and the writer moves on.
    let head: Head | null = this.heads.get(accountId) ?? (await this.readHint(accountId));
    let fresh = false; // `head` was just confirmed to be the last entry
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const balance = head?.balanceAfter ?? 0;
      if (balance + delta < 0 && !mayGoNegative) {
        // Refuse only on the account's real head, and not if a replay already applied this leg.
        if (!fresh) {
          head = await this.probeForward(accountId, head);
          fresh = true;
          continue;
        }
        const applied = await this.findLeg(transfer.sourceRef, leg);
        if (applied) return { entry: applied, inserted: false };
        throw new InsufficientFundsError(accountId, balance, transfer.amount);
      }
      const seq = (head?.seq ?? 0) + 1;
      const entry: EntryDoc = {
        id: newId('le'),
        accountId,
        seq,
        amount: delta,
        balanceAfter: balance + delta,
        currency: transfer.currency,
        transferId: transfer.id,
        sourceRef: transfer.sourceRef,
        leg,
        counterpartyAccountId: leg === 'debit' ? transfer.toAccountId : transfer.fromAccountId,
        reason: transfer.reason,
        transactionId: transfer.transactionId,
        metadata: transfer.metadata,
        createdAt: new Date(),
      };
      try {
        await insertRaw(this.m.entries, { _id: entryKey(accountId, seq), ...entry });
        this.remember(accountId, entry);
        return { entry, inserted: true };
      } catch (err) {
        if (!duplicateKey(err)) throw err;
      }
      // The position is taken (another writer, or a head that was behind), or this leg exists
      // already (a replay): the entry at the position tells which.
      const taken = await this.entryAt(accountId, seq);
      if (taken?.sourceRef === transfer.sourceRef && taken.leg === leg) {
        this.remember(accountId, taken);
        return { entry: taken, inserted: false };
      }
      if (!taken) {
        // The position is free, so the duplicate was this leg's own key: applied at another position.
        const existing = await this.findLeg(transfer.sourceRef, leg);
        if (existing) return { entry: existing, inserted: false };
        continue;
      }
      // Lost the position: continue after the entry that won it, or after the hint if further on.
      this.remember(accountId, taken);
      head = newest({ seq: taken.seq, balanceAfter: taken.balanceAfter }, await this.readHint(accountId));
      fresh = false;
      if (attempt > 0) await sleep(Math.random() * Math.min(20, attempt));
    }
    throw new LedgerContentionError(`could not append to ${accountId} after ${MAX_ATTEMPTS} attempts`);
  }

  /** Off the usual path (replays and refusals only): a scan on FerretDB, an index on MongoDB. */
  private async findLeg(sourceRef: string, leg: Leg): Promise<EntryDoc | null> {
    return this.m.entries.findOne({ sourceRef, leg }, { _id: 0 }).lean<EntryDoc>().exec();
  }

  private async isSystemAccount(accountId: string): Promise<boolean> {
    return (await this.accountDoc(accountId))?.kind === 'system';
  }

  /**
   * Runs `fn` after the previous local writer of the same account is done. `last()` tells `fn`
   * whether no other local writer of the account is waiting behind it.
   */
  private async serialized<T>(accountId: string, fn: (last: () => boolean) => Promise<T>): Promise<T> {
    if (this.options.serializeLocally === false) return fn(() => true);
    this.writers.set(accountId, (this.writers.get(accountId) ?? 0) + 1);
    const last = () => this.writers.get(accountId) === 1;
    const done = () => {
      const n = (this.writers.get(accountId) ?? 1) - 1;
      if (n > 0) this.writers.set(accountId, n);
      else this.writers.delete(accountId);
    };
    const previous = this.queues.get(accountId) ?? Promise.resolve();
    const run = previous.then(
      () => fn(last),
      () => fn(last),
    );
    const tail = run.then(done, done);
    this.queues.set(accountId, tail);
    void tail.then(() => {
      if (this.queues.get(accountId) === tail) this.queues.delete(accountId);
    });
    return run;
  }

  // ---- reads ----

  /**
   * The movement recorded under a sourceRef, or null: one `_id` read. A recorded transfer is applied
   * or being applied (its caller retries until both legs exist, and a replay completes them).
   */
  async findTransfer(sourceRef: string): Promise<TransferDoc | null> {
    return this.m.transfers.findOne({ _id: sourceRef }, { _id: 0 }).lean<TransferDoc>().exec();
  }

  /**
   * The statement, newest first; `nextCursor` continues after the last entry returned. The chain's
   * positions below the cursor (or the head), each read by `_id`; with time bounds, `to` starts the
   * walk where a binary search over the chain puts it and the walk stops below `from` (entries are
   * appended in time order, to within the milliseconds two writers race by, so each is also checked).
   */
  async entries(
    accountId: string,
    opts: EntriesQuery = {},
  ): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 50), 1), 500);
    let top = (await this.head(accountId))?.seq ?? 0;
    if (opts.cursor !== undefined) {
      const cursor = decodeCursor(opts.cursor);
      if (!cursor) throw new LedgerError('invalid cursor');
      top = Math.min(top, cursor.seq - 1);
    }
    const time = (d: EntryDoc) => new Date(d.createdAt).getTime();
    const from = opts.from?.getTime();
    const to = opts.to?.getTime();
    if (to !== undefined) top = Math.min(top, await this.lastEntryAtOrBefore(accountId, top, to));
    const docs: EntryDoc[] = [];
    let seq = top;
    let read = 0;
    walk: while (seq >= 1 && docs.length <= limit && read < STATEMENT_BUDGET) {
      const n = Math.min(STATEMENT_BATCH, seq, limit + 1 - docs.length + 1);
      const batch = await Promise.all(Array.from({ length: n }, (_, k) => this.entryAt(accountId, seq - k)));
      for (const d of batch) {
        if (!d) throw new LedgerError(`entry ${seq} of ${accountId} missing below the head`);
        read++;
        seq = d.seq - 1;
        if (from !== undefined && time(d) < from) {
          seq = 0; // older than the window: done
          break walk;
        }
        if (to === undefined || time(d) <= to) docs.push(d);
        if (docs.length > limit) break;
      }
    }
    const page = docs.slice(0, limit).map((d) => ({
      ...d,
      transactionId: d.transactionId ?? null,
      metadata: d.metadata ?? null,
      createdAt: new Date(d.createdAt),
    }));
    const last = page[page.length - 1];
    // One more than asked: the next page starts below the last shown. A walk stopped by its budget
    // (a sparse window) goes on below where it stopped.
    const nextCursor =
      docs.length > limit && last
        ? encodeCursor({ seq: last.seq })
        : seq >= 1
          ? encodeCursor({ seq: seq + 1 })
          : null;
    return { entries: page, nextCursor };
  }

  /** The highest position up to `top` created at or before `to`: a binary search of `_id` reads. */
  private async lastEntryAtOrBefore(accountId: string, top: number, to: number): Promise<number> {
    let lo = 0;
    let hi = top + 1;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const d = await this.entryAt(accountId, mid);
      if (d && new Date(d.createdAt).getTime() <= to) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Recomputes the balance from the entries, for tests and operators. */
  async verify(accountId: string): Promise<{ balance: number; sumOfEntries: number; entries: number }> {
    // Counted apart: FerretDB's $group answers 0 for { $sum: 1 }.
    const [[agg], count, head] = await Promise.all([
      this.m.entries
        .aggregate<{ sum: number }>([
          { $match: { accountId } },
          { $group: { _id: null, sum: { $sum: '$amount' } } },
        ])
        .exec(),
      this.m.entries.countDocuments({ accountId }).exec(),
      this.head(accountId),
    ]);
    return { balance: head?.balanceAfter ?? 0, sumOfEntries: agg?.sum ?? 0, entries: count };
  }
}
