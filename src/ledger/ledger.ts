import { ledgerPostings } from '../infra/metrics';
import type { Connection } from 'mongoose';
import { newId } from '../domain/ids';
import type { Mode } from '../domain/modes';
import type { Currency } from '../domain/money';
import { Accounts, mainSpec, subSpec, systemSpec } from './accounts';
import { Chains } from './chain';
import { LedgerError, SourceRefConflictError } from './errors';
import { splitSharedSystemAccounts, type ModeSplitReport, type ScopeOfTransaction } from './mode-split';
import { ledgerModels, type EntryDoc, type LedgerModels, type TransferDoc } from './models';
import { duplicateKey, insertRaw } from './raw';
import { periodEntries, statement, verifyAccount, type EntriesQuery } from './statements';
import { nonNegativeSystemAccounts } from './types';
import type { Account, Leg, LedgerEntry, SystemAccountName, TransferRequest, TransferResult } from './types';

export { decodeCursor, encodeCursor } from './cursor';
export type { EntriesQuery } from './statements';

// An append-only double-entry journal that stays correct without multi-document transactions.
// Each account is a chain of entries (./chain.ts); a transfer is an intent document (`_id` =
// sourceRef), then its debit leg, then its credit leg, each unique by (sourceRef, leg): a retry
// after a crash anywhere completes the missing legs, and a replay finds them present and applies
// nothing. Which movements exist, and under which sourceRef, is written in ./postings.ts.
//
// Every hot operation names one document by `_id` (FerretDB 1.24's SQLite backend pushes only that
// filter down), and the usual path reads nothing that grows with the journal. See docs/ledger.md.
// The parts: ./accounts.ts (accounts and their indexes), ./chain.ts (appending to an account),
// ./statements.ts (reading it back).

export interface LedgerOptions {
  /**
   * Queue this process's writers per account before they race in the database: far fewer lost
   * races under load. Correctness never depends on it (other processes still race).
   */
  serializeLocally?: boolean;
}

export class Ledger {
  private readonly chains: Chains;
  private readonly accounts: Accounts;

  constructor(
    private readonly m: LedgerModels,
    private readonly conn: Connection,
    options: LedgerOptions = {},
  ) {
    this.chains = new Chains(m, conn, options.serializeLocally !== false, async (id) => {
      const doc = await this.accounts.accountDoc(id);
      if (doc?.kind !== 'system') return { mayGoNegative: false, systemName: null };
      return nonNegativeSystemAccounts.has(doc.name as SystemAccountName)
        ? { mayGoNegative: false, systemName: doc.name }
        : { mayGoNegative: true };
    });
    this.accounts = new Accounts(m, conn, this.chains);
  }

  static on(conn: Connection, options: LedgerOptions = {}): Ledger {
    return new Ledger(ledgerModels(conn), conn, options);
  }

  async init(): Promise<void> {
    await Promise.all([
      this.accounts.init(),
      this.m.entries.init(),
      this.m.transfers.init(),
      this.m.heads.init(),
    ]);
    await this.accounts.backfillAccountIndex();
  }

  // ---- accounts ----

  /** Get-or-create: the unique key makes concurrent callers end with the same single account. */
  async mainAccount(merchantId: string, currency: Currency): Promise<Account> {
    return this.accounts.withBalance(await this.accounts.accountByKey(mainSpec(merchantId, currency)));
  }

  /** The id of mainAccount() without reading its balance: all a transfer needs. */
  async mainAccountId(merchantId: string, currency: Currency): Promise<string> {
    return (await this.accounts.accountByKey(mainSpec(merchantId, currency))).id;
  }

  /** Sub-account names are unique per merchant and currency: the same name answers the same account. */
  async createSubAccount(merchantId: string, currency: Currency, name: string): Promise<Account> {
    return this.accounts.withBalance(await this.accounts.accountByKey(subSpec(merchantId, currency, name)));
  }

  /** The platform's own account of one mode: test money and live money never share one. */
  async systemAccount(name: SystemAccountName, currency: Currency, mode: Mode): Promise<Account> {
    return this.accounts.withBalance(await this.accounts.accountByKey(systemSpec(mode, name, currency)));
  }

  /** The id of systemAccount() without reading its balance: all a transfer needs. */
  async systemAccountId(name: SystemAccountName, currency: Currency, mode: Mode): Promise<string> {
    return (await this.accounts.accountByKey(systemSpec(mode, name, currency))).id;
  }

  /**
   * Moves what the system accounts shared by both modes (before they were keyed by mode) hold to the
   * account of each mode, once (./mode-split.ts). Run at every start: cheap when done, and it moves
   * what a process of the previous version posted there meanwhile.
   */
  async splitSharedSystemAccounts(scopeOfTransaction: ScopeOfTransaction): Promise<ModeSplitReport> {
    return splitSharedSystemAccounts(
      {
        m: this.m,
        conn: this.conn,
        accounts: this.accounts,
        chains: this.chains,
        transfer: (req) => this.transfer(req),
        systemAccountId: (name, currency, mode) => this.systemAccountId(name, currency, mode),
      },
      scopeOfTransaction,
    );
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const doc = await this.accounts.accountDoc(accountId);
    return doc ? this.accounts.withBalance(doc) : null;
  }

  /** The merchant's accounts, main ones first, then by creation. */
  async listAccounts(merchantId: string): Promise<Account[]> {
    return this.accounts.listAccounts(merchantId);
  }

  // ---- transfers ----

  /**
   * Moves `amount` from one account to another, once per sourceRef. Throws InsufficientFundsError
   * (and applies nothing) when a non-system `from` would go below zero, SystemAccountOverdrawnError
   * when a system account that must stay non-negative (nonNegativeSystemAccounts) would.
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
      this.accounts.accountDoc(req.fromAccountId),
      this.accounts.accountDoc(req.toAccountId),
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
    return this.chains.applyLeg(transfer, leg);
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
   * The entries of the movements recorded under these sourceRefs (./postings.ts), oldest first. Off
   * the request path (`payments transactions show`): the (sourceRef, leg) index on MongoDB, a scan on
   * FerretDB, whose entries are keyed by chain position; read the transfers by `_id` first.
   */
  async entriesOf(sourceRefs: string[]): Promise<LedgerEntry[]> {
    if (sourceRefs.length === 0) return [];
    const docs = await this.m.entries
      .find({ sourceRef: { $in: sourceRefs } }, { _id: 0 })
      .lean<EntryDoc[]>()
      .exec();
    const time = (d: EntryDoc) => new Date(d.createdAt).getTime();
    return docs.sort((a, b) => time(a) - time(b) || a.seq - b.seq);
  }

  /** The statement, newest first; `nextCursor` continues after the last entry returned. */
  async entries(
    accountId: string,
    opts: EntriesQuery = {},
  ): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
    return statement(this.chains, accountId, opts);
  }

  /** The entries of [from, to), oldest first, in batches, with the balance before them. */
  async periodEntries(accountId: string, from: Date, to: Date) {
    return periodEntries(this.chains, accountId, from, to);
  }

  /** Recomputes the balance from the entries, for tests and operators. */
  async verify(accountId: string): Promise<{ balance: number; sumOfEntries: number; entries: number }> {
    return verifyAccount(this.m, this.chains, accountId);
  }
}
