import type { Connection, mongo } from 'mongoose';
import { newId } from '../domain/ids';
import { AppendAtHead, ChainContentionError, type HintDoc } from '../persistence/append-at-head';
import { entryKey, type EntryDoc, type LedgerModels, type TransferDoc } from './models';
import { InsufficientFundsError, LedgerContentionError, SystemAccountOverdrawnError } from './errors';
import { insertRaw } from './raw';
import type { Leg } from './types';

// Each account is a chain of entries numbered 1, 2, 3..., each carrying the running balance after
// it, and each stored under `_id` = `<accountId>:<seq>`: of two writers inserting the same position
// exactly one wins. An appender builds on the head it knows, refuses a debit that would go below
// zero only against the account's real head, and inserts seq+1; a writer that lost the position
// reads the entry that won it and moves on. The chain and its head hints (`ledger_heads`, carrying
// the balance) are the one append-at-head scheme of src/persistence/append-at-head.ts, which the
// read chains use too.

const MAX_ATTEMPTS = 200;

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

export class Chains {
  private readonly chain: AppendAtHead<Head, EntryDoc>;

  constructor(
    private readonly m: LedgerModels,
    conn: Connection,
    /** Queue this process's writers per account (LedgerOptions.serializeLocally). */
    private readonly serializeLocally: boolean,
    /** Most system accounts may go below zero (they mirror money outside the ledger). */
    private readonly debitFloor: (accountId: string) => Promise<DebitFloor>,
  ) {
    this.chain = new AppendAtHead<Head, EntryDoc>(conn, {
      name: m.entries.collection.collectionName,
      hints: m.heads.collection as unknown as mongo.Collection<HintDoc>,
      entryAt: (accountId, seq) => this.entryAt(accountId, seq),
      headOf: (e) => ({ seq: e.seq, balanceAfter: e.balanceAfter }),
      // The hint's fields as they always were (`ledger_heads`).
      hintOf: (h) => ({ seq: h.seq, balanceAfter: h.balanceAfter, updatedAt: new Date() }),
      fromHint: (doc) => ({ seq: doc.seq, balanceAfter: doc.balanceAfter as number }),
      insert: (doc) => insertRaw(m.entries, doc as EntryDoc & { _id: string }),
    });
  }

  // ---- the head of a chain ----

  /**
   * The account's real head as of now: from the furthest of this process's memory and the stored
   * hint, probed forward by `_id` (src/persistence/append-at-head.ts).
   */
  async head(accountId: string): Promise<Head | null> {
    return this.chain.head(accountId);
  }

  async entryAt(accountId: string, seq: number): Promise<EntryDoc | null> {
    return this.m.entries
      .findOne({ _id: entryKey(accountId, seq) }, { _id: 0 })
      .lean<EntryDoc>()
      .exec();
  }

  // ---- appending ----

  /**
   * Appends one leg of a transfer to its account's chain, or finds it already there. `inserted` is
   * true only for the call whose insert created it.
   */
  async applyLeg(transfer: TransferDoc, leg: Leg): Promise<{ entry: EntryDoc; inserted: boolean }> {
    const accountId = leg === 'debit' ? transfer.fromAccountId : transfer.toAccountId;
    if (!this.serializeLocally) return this.appendLeg(transfer, leg, accountId);
    return this.chain.serialized(accountId, () => this.appendLeg(transfer, leg, accountId));
  }

  private async appendLeg(
    transfer: TransferDoc,
    leg: Leg,
    accountId: string,
  ): Promise<{ entry: EntryDoc; inserted: boolean }> {
    const delta = leg === 'debit' ? -transfer.amount : transfer.amount;
    const floor: DebitFloor = leg === 'credit' ? { mayGoNegative: true } : await this.debitFloor(accountId);
    // Optimistic: build on the last head this process saw, else on the probed head. Neither is
    // trusted: if the chain is longer, the insert of seq+1 fails and the writer moves on.
    const from = this.chain.knownHead(accountId) ?? (await this.chain.head(accountId));
    try {
      const placed = await this.chain.append<{ entry: EntryDoc; inserted: boolean }>(
        accountId,
        from,
        {
          attempt: async (head, seq, fresh) => {
            const balance = head?.balanceAfter ?? 0;
            if (balance + delta < 0 && !floor.mayGoNegative) {
              // Refuse only on the account's real head, and not if a replay already applied this leg.
              if (!fresh) return { probe: true };
              const applied = await this.findLeg(transfer.sourceRef, leg);
              if (applied) return { done: { entry: applied, inserted: false } };
              if (floor.systemName)
                throw new SystemAccountOverdrawnError(floor.systemName, accountId, balance, transfer.amount);
              throw new InsufficientFundsError(accountId, balance, transfer.amount);
            }
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
            return {
              doc: entry,
              head: { seq, balanceAfter: entry.balanceAfter },
              result: { entry, inserted: true },
            };
          },
          mine: (taken) =>
            taken.sourceRef === transfer.sourceRef && taken.leg === leg
              ? { entry: taken, inserted: false }
              : null,
          // The position is free, so the duplicate was this leg's own key: applied at another position.
          elsewhere: async () => {
            const existing = await this.findLeg(transfer.sourceRef, leg);
            return existing ? { entry: existing, inserted: false } : null;
          },
        },
        MAX_ATTEMPTS,
      );
      if (placed.inserted && this.chain.hintDue(placed.result.entry.seq))
        await this.chain.writeHint(accountId, {
          seq: placed.result.entry.seq,
          balanceAfter: placed.result.entry.balanceAfter,
        });
      return placed.result;
    } catch (err) {
      if (err instanceof ChainContentionError) throw new LedgerContentionError(err.message);
      throw err;
    }
  }

  /**
   * Off the usual path (a refusal's check, or a replay whose leg is further down than the append
   * looks by `_id`, NEAR_BELOW): a scan on FerretDB, an index on MongoDB.
   */
  private async findLeg(sourceRef: string, leg: Leg): Promise<EntryDoc | null> {
    return this.m.entries.findOne({ sourceRef, leg }, { _id: 0 }).lean<EntryDoc>().exec();
  }
}
