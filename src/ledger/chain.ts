import type { Connection } from 'mongoose';
import { newId } from '../domain/ids';
import { entryKey, type EntryDoc, type HeadHint, type LedgerModels, type TransferDoc } from './models';
import { InsufficientFundsError, LedgerContentionError, SystemAccountOverdrawnError } from './errors';
import { duplicateKey, insertRaw, perConnection } from './raw';
import type { Leg } from './types';

// Each account is a chain of entries numbered 1, 2, 3..., each carrying the running balance after
// it, and each stored under `_id` = `<accountId>:<seq>`: of two writers inserting the same position
// exactly one wins. An appender builds on the head it knows, refuses a debit that would go below
// zero only against the account's real head, and inserts seq+1; a writer that lost the position
// reads the entry that won it and moves on. The head comes from this process's memory or from a
// per-account head hint (`ledger_heads`), and the insert itself is the check that it was the head.

const MAX_ATTEMPTS = 200;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Whether an account's debits stop at zero: a merchant's do (InsufficientFundsError), most system
 * accounts' do not, and those that must stay non-negative do (SystemAccountOverdrawnError, by name).
 */
export type DebitFloor = { mayGoNegative: true } | { mayGoNegative: false; systemName: string | null };

/** The newest entry known of a chain: its position and the balance after it. */
export interface Head {
  seq: number;
  balanceAfter: number;
}

// Per connection, so every Ledger on one connection shares the queues (API and worker wiring).
const localQueues = new WeakMap<Connection, Map<string, Promise<unknown>>>();
// Writers queued or running per account in this process: the last one writes the head hint.
const localWriters = new WeakMap<Connection, Map<string, number>>();
// The newest entry seen per account: where an appender starts and a lower bound for the head
// search; never trusted as the head (a stale one makes the insert fail and the writer move on).
const seenHeads = new WeakMap<Connection, Map<string, Head>>();

/** The further of two heads (each a real entry, or nothing). */
function newest(a: Head | null, b: Head | null): Head | null {
  if (!a) return b;
  if (!b) return a;
  return b.seq > a.seq ? b : a;
}

export class Chains {
  private readonly queues: Map<string, Promise<unknown>>;
  private readonly writers: Map<string, number>;
  private readonly heads: Map<string, Head>;

  constructor(
    private readonly m: LedgerModels,
    conn: Connection,
    /** Queue this process's writers per account (LedgerOptions.serializeLocally). */
    private readonly serializeLocally: boolean,
    /** Most system accounts may go below zero (they mirror money outside the ledger). */
    private readonly debitFloor: (accountId: string) => Promise<DebitFloor>,
  ) {
    this.queues = perConnection(localQueues, conn);
    this.writers = perConnection(localWriters, conn);
    this.heads = perConnection(seenHeads, conn);
  }

  // ---- the head of a chain ----

  /**
   * The account's real head as of now: from the furthest of this process's memory and the stored
   * hint, each next position read by `_id` until one is missing.
   */
  async head(accountId: string): Promise<Head | null> {
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

  async entryAt(accountId: string, seq: number): Promise<EntryDoc | null> {
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

  // ---- appending ----

  /**
   * Appends one leg of a transfer to its account's chain, or finds it already there. `inserted` is
   * true only for the call whose insert created it.
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
    const floor: DebitFloor = leg === 'credit' ? { mayGoNegative: true } : await this.debitFloor(accountId);
    // Optimistic: build on the last head this process saw, else on the stored hint. Neither is
    // trusted: if the chain is longer, the insert of seq+1 fails and the writer moves on.
    let head: Head | null = this.heads.get(accountId) ?? (await this.readHint(accountId));
    let fresh = false; // `head` was just confirmed to be the last entry
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const balance = head?.balanceAfter ?? 0;
      if (balance + delta < 0 && !floor.mayGoNegative) {
        // Refuse only on the account's real head, and not if a replay already applied this leg.
        if (!fresh) {
          head = await this.probeForward(accountId, head);
          fresh = true;
          continue;
        }
        const applied = await this.findLeg(transfer.sourceRef, leg);
        if (applied) return { entry: applied, inserted: false };
        if (floor.systemName)
          throw new SystemAccountOverdrawnError(floor.systemName, accountId, balance, transfer.amount);
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

  /**
   * Runs `fn` after the previous local writer of the same account is done. `last()` tells `fn`
   * whether no other local writer of the account is waiting behind it.
   */
  private async serialized<T>(accountId: string, fn: (last: () => boolean) => Promise<T>): Promise<T> {
    if (!this.serializeLocally) return fn(() => true);
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
}
