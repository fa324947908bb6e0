import { ledgerPostings } from '../infra/metrics';
import type { Connection } from 'mongoose';
import { newId } from '../domain/ids';
import type { Currency } from '../domain/money';
import { ledgerModels, type AccountDoc, type EntryDoc, type LedgerModels, type TransferDoc } from './models';
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
// Each account is a chain of entries numbered 1, 2, 3... under a unique (accountId, seq) index,
// each carrying the running balance after it. An appender reads the head, refuses a debit that
// would go below zero, and inserts seq+1: the unique index lets one concurrent writer win, the
// others re-read and retry. A transfer is an intent document (unique sourceRef), then its debit
// leg, then its credit leg, each unique by (sourceRef, leg): a retry after a crash anywhere
// completes the missing legs, and a replay finds them present and applies nothing.
// See docs/ledger.md.

const duplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === 11000;

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
// The newest entry seen per account: where an appender starts and a lower bound for the head
// search; never trusted as the head (a stale one makes the insert fail and the head be re-read).
interface Head {
  seq: number;
  balanceAfter: number;
}
const seenHeads = new WeakMap<Connection, Map<string, Head>>();
// Account documents never change once created, so they can be remembered.
const knownAccounts = new WeakMap<Connection, Map<string, AccountDoc>>();

function perConnection<V>(map: WeakMap<Connection, Map<string, V>>, conn: Connection): Map<string, V> {
  let m = map.get(conn);
  if (!m) map.set(conn, (m = new Map<string, V>()));
  return m;
}

export class Ledger {
  private readonly queues: Map<string, Promise<unknown>>;
  private readonly heads: Map<string, Head>;
  private readonly accountDocs: Map<string, AccountDoc>;

  constructor(
    private readonly m: LedgerModels,
    conn: Connection,
    private readonly options: LedgerOptions = {},
  ) {
    this.queues = perConnection(localQueues, conn);
    this.heads = perConnection(seenHeads, conn);
    this.accountDocs = perConnection(knownAccounts, conn);
  }

  static on(conn: Connection, options: LedgerOptions = {}): Ledger {
    return new Ledger(ledgerModels(conn), conn, options);
  }

  async init(): Promise<void> {
    await Promise.all([this.m.accounts.init(), this.m.entries.init(), this.m.transfers.init()]);
  }

  // ---- accounts ----

  /** Get-or-create: the unique key makes concurrent callers end with the same single account. */
  async mainAccount(merchantId: string, currency: Currency): Promise<Account> {
    return this.getOrCreate({
      key: `main:${merchantId}:${currency}`,
      merchantId,
      currency,
      kind: 'main',
      name: 'main',
    });
  }

  /** Sub-account names are unique per merchant and currency: the same name answers the same account. */
  async createSubAccount(merchantId: string, currency: Currency, name: string): Promise<Account> {
    const trimmed = name.trim();
    if (!trimmed || trimmed === 'main') throw new LedgerError(`invalid sub-account name: "${name}"`);
    return this.getOrCreate({
      key: `sub:${merchantId}:${currency}:${trimmed}`,
      merchantId,
      currency,
      kind: 'sub',
      name: trimmed,
    });
  }

  async systemAccount(name: SystemAccountName, currency: Currency): Promise<Account> {
    return this.getOrCreate({
      key: `system:${name}:${currency}`,
      merchantId: null,
      currency,
      kind: 'system',
      name,
    });
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const doc = await this.accountDoc(accountId);
    return doc ? this.withBalance(doc) : null;
  }

  private async accountDoc(accountId: string): Promise<AccountDoc | null> {
    const cached = this.accountDocs.get(accountId);
    if (cached) return cached;
    const doc = await this.m.accounts.findOne({ id: accountId }, { _id: 0 }).lean<AccountDoc>().exec();
    if (doc) this.accountDocs.set(accountId, doc);
    return doc;
  }

  /** The merchant's accounts, main ones first, then by creation. */
  async listAccounts(merchantId: string): Promise<Account[]> {
    const docs = await this.m.accounts
      .find({ merchantId }, { _id: 0 })
      .sort({ createdAt: 1 })
      .lean<AccountDoc[]>()
      .exec();
    const accounts = await Promise.all(docs.map((d) => this.withBalance(d)));
    const rank = (a: Account) => (a.kind === 'main' ? 0 : 1);
    return accounts.sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.currency.localeCompare(b.currency) ||
        a.createdAt.getTime() - b.createdAt.getTime(),
    );
  }

  private async getOrCreate(spec: Omit<AccountDoc, 'id' | 'createdAt'>): Promise<Account> {
    const existing = await this.m.accounts.findOne({ key: spec.key }, { _id: 0 }).lean<AccountDoc>().exec();
    if (existing) return this.withBalance(existing);
    const doc: AccountDoc = { ...spec, id: newId('acc'), createdAt: new Date() };
    try {
      await this.m.accounts.create(doc);
      return { ...this.publicAccount(doc), balance: 0 };
    } catch (err) {
      if (!duplicateKey(err)) throw err;
      const winner = await this.m.accounts.findOne({ key: spec.key }, { _id: 0 }).lean<AccountDoc>().exec();
      if (!winner) throw err;
      return this.withBalance(winner);
    }
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

  /** The newest entry, read from the entries themselves (the last one seen only narrows the search). */
  private async head(accountId: string): Promise<Head | null> {
    const seen = this.heads.get(accountId)?.seq ?? 0;
    const head = await this.m.entries
      .findOne({ accountId, seq: { $gte: seen } }, { _id: 0, seq: 1, balanceAfter: 1 })
      .sort({ seq: -1 })
      .lean<Head>()
      .exec();
    if (head) this.remember(accountId, head);
    return head;
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
    if (credit.inserted || transfer.status !== 'completed') {
      // Only a status hint (the legs are the truth); a retry after a crash here sets it too.
      await this.m.transfers.updateOne({ id: transfer.id }, { $set: { status: 'completed' } }).exec();
    }
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
      status: 'pending',
      createdAt: new Date(),
    };
    try {
      // Insert first: a replay learns of the stored intent from the unique sourceRef.
      await this.m.transfers.collection.insertOne({ ...doc });
      return doc;
    } catch (err) {
      if (!duplicateKey(err)) throw err;
      const winner = await this.m.transfers
        .findOne({ sourceRef: req.sourceRef }, { _id: 0 })
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
    return this.serialized(accountId, () => this.appendLeg(transfer, leg, accountId));
  }

  private async appendLeg(
    transfer: TransferDoc,
    leg: Leg,
    accountId: string,
  ): Promise<{ entry: EntryDoc; inserted: boolean }> {
    const delta = leg === 'debit' ? -transfer.amount : transfer.amount;
    const mayGoNegative = leg === 'credit' || (await this.isSystemAccount(accountId));
    // Optimistic: build on the last head this process saw. Entries are immutable and their seq
    // unique, so if that head is stale the insert of seq+1 fails and the head is read again.
    let head: Head | null | undefined = this.heads.get(accountId);
    let fresh = false;
    if (head === undefined) {
      head = await this.head(accountId);
      fresh = true;
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const balance = head?.balanceAfter ?? 0;
      if (balance + delta < 0 && !mayGoNegative) {
        // Refuse only on the account's real head, and not if a replay already applied this leg.
        if (!fresh) {
          head = await this.head(accountId);
          fresh = true;
          continue;
        }
        const applied = await this.findLeg(transfer.sourceRef, leg);
        if (applied) return { entry: applied, inserted: false };
        throw new InsufficientFundsError(accountId, balance, transfer.amount);
      }
      const entry: EntryDoc = {
        id: newId('le'),
        accountId,
        seq: (head?.seq ?? 0) + 1,
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
        // The raw driver: the document is built here, and the hot path skips mongoose's casting.
        await this.m.entries.collection.insertOne({ ...entry });
        this.remember(accountId, entry);
        return { entry, inserted: true };
      } catch (err) {
        if (!duplicateKey(err)) throw err;
      }
      // Either this leg exists already (a replay) or another writer took the seq (a lost race).
      if (attempt > 0) await sleep(Math.random() * Math.min(20, attempt));
      const [existing, current] = await Promise.all([
        this.findLeg(transfer.sourceRef, leg),
        this.head(accountId),
      ]);
      if (existing) return { entry: existing, inserted: false };
      head = current;
      fresh = true;
    }
    throw new LedgerContentionError(`could not append to ${accountId} after ${MAX_ATTEMPTS} attempts`);
  }

  private async findLeg(sourceRef: string, leg: Leg): Promise<EntryDoc | null> {
    return this.m.entries.findOne({ sourceRef, leg }, { _id: 0 }).lean<EntryDoc>().exec();
  }

  private async isSystemAccount(accountId: string): Promise<boolean> {
    return (await this.accountDoc(accountId))?.kind === 'system';
  }

  /** Runs `fn` after the previous local writer of the same account is done. */
  private async serialized<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    if (this.options.serializeLocally === false) return fn();
    const previous = this.queues.get(accountId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(accountId, tail);
    void tail.then(() => {
      if (this.queues.get(accountId) === tail) this.queues.delete(accountId);
    });
    return run;
  }

  // ---- reads ----

  /** The statement, newest first; `nextCursor` continues after the last entry returned. */
  async entries(
    accountId: string,
    opts: EntriesQuery = {},
  ): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 50), 1), 500);
    const filter: Record<string, unknown> = { accountId };
    if (opts.cursor !== undefined) {
      const cursor = decodeCursor(opts.cursor);
      if (!cursor) throw new LedgerError('invalid cursor');
      filter.seq = { $lt: cursor.seq };
    }
    if (opts.from || opts.to) {
      filter.createdAt = { ...(opts.from ? { $gte: opts.from } : {}), ...(opts.to ? { $lte: opts.to } : {}) };
    }
    const docs = await this.m.entries
      .find(filter, { _id: 0 })
      .sort({ seq: -1 })
      .limit(limit + 1)
      .lean<EntryDoc[]>()
      .exec();
    const page = docs.slice(0, limit).map((d) => ({
      ...d,
      transactionId: d.transactionId ?? null,
      metadata: d.metadata ?? null,
      createdAt: new Date(d.createdAt),
    }));
    const last = page[page.length - 1];
    return {
      entries: page,
      nextCursor: docs.length > limit && last ? encodeCursor({ seq: last.seq }) : null,
    };
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
