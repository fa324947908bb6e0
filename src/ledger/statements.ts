import type { Chains } from './chain';
import { decodeCursor, encodeCursor } from './cursor';
import { LedgerError } from './errors';
import type { EntryDoc, LedgerModels } from './models';
import type { LedgerEntry } from './types';

// Reads of an account's journal: the statement pages (each entry read by its `_id`, its chain
// position) and the operators' check that a balance is the sum of its entries.

/** Entries read at most for one statement page with time bounds; past it the page is short. */
const STATEMENT_BUDGET = 2_000;
/** Parallel `_id` reads per round trip while walking a statement. */
const STATEMENT_BATCH = 25;

export interface EntriesQuery {
  limit?: number;
  cursor?: string;
  /** Inclusive bounds on createdAt. */
  from?: Date;
  to?: Date;
}

/**
 * The statement, newest first; `nextCursor` continues after the last entry returned. The chain's
 * positions below the cursor (or the head), each read by `_id`; with time bounds, `to` starts the
 * walk where a binary search over the chain puts it and the walk stops below `from` (entries are
 * appended in time order, to within the milliseconds two writers race by, so each is also checked).
 */
export async function statement(
  chains: Pick<Chains, 'head' | 'entryAt'>,
  accountId: string,
  opts: EntriesQuery = {},
): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 50), 1), 500);
  let top = (await chains.head(accountId))?.seq ?? 0;
  if (opts.cursor !== undefined) {
    const cursor = decodeCursor(opts.cursor);
    if (!cursor) throw new LedgerError('invalid cursor');
    top = Math.min(top, cursor.seq - 1);
  }
  const time = (d: EntryDoc) => new Date(d.createdAt).getTime();
  const from = opts.from?.getTime();
  const to = opts.to?.getTime();
  if (to !== undefined) top = Math.min(top, await lastEntryAtOrBefore(chains, accountId, top, to));
  const docs: EntryDoc[] = [];
  let seq = top;
  let read = 0;
  walk: while (seq >= 1 && docs.length <= limit && read < STATEMENT_BUDGET) {
    const n = Math.min(STATEMENT_BATCH, seq, limit + 1 - docs.length + 1);
    const batch = await Promise.all(Array.from({ length: n }, (_, k) => chains.entryAt(accountId, seq - k)));
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

/**
 * An account's entries of a period, oldest first, in batches (a statement's content): positions
 * from the first created at or after `from` to the last created before `to`, found by binary search
 * and read by `_id`. `opening` is the balance just before the first (0 for a new account). Positions
 * are the journal's order, so opening + the entries' amounts = the last entry's balance, whatever
 * the milliseconds two writers raced by.
 */
export async function periodEntries(
  chains: Pick<Chains, 'head' | 'entryAt'>,
  accountId: string,
  from: Date,
  to: Date,
): Promise<{ opening: number; first: number; last: number; batches: AsyncGenerator<LedgerEntry[]> }> {
  const top = (await chains.head(accountId))?.seq ?? 0;
  const before = await lastEntryAtOrBefore(chains, accountId, top, from.getTime() - 1);
  const last = await lastEntryAtOrBefore(chains, accountId, top, to.getTime() - 1);
  const opening = before >= 1 ? ((await chains.entryAt(accountId, before))?.balanceAfter ?? 0) : 0;
  async function* batches(): AsyncGenerator<LedgerEntry[]> {
    for (let seq = before + 1; seq <= last; seq += STATEMENT_BATCH * 4) {
      const n = Math.min(STATEMENT_BATCH * 4, last - seq + 1);
      const docs = await Promise.all(Array.from({ length: n }, (_, k) => chains.entryAt(accountId, seq + k)));
      yield docs.map((d, k) => {
        if (!d) throw new LedgerError(`entry ${seq + k} of ${accountId} missing below the head`);
        return {
          ...d,
          transactionId: d.transactionId ?? null,
          metadata: d.metadata ?? null,
          createdAt: new Date(d.createdAt),
        };
      });
    }
  }
  return { opening, first: before + 1, last, batches: batches() };
}

/** The highest position up to `top` created at or before `to`: a binary search of `_id` reads. */
async function lastEntryAtOrBefore(
  chains: Pick<Chains, 'entryAt'>,
  accountId: string,
  top: number,
  to: number,
): Promise<number> {
  let lo = 0;
  let hi = top + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const d = await chains.entryAt(accountId, mid);
    if (d && new Date(d.createdAt).getTime() <= to) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Recomputes the balance from the entries, for tests and operators. */
export async function verifyAccount(
  m: LedgerModels,
  chains: Pick<Chains, 'head'>,
  accountId: string,
): Promise<{ balance: number; sumOfEntries: number; entries: number }> {
  // Counted apart: FerretDB's $group answers 0 for { $sum: 1 }.
  const [[agg], count, head] = await Promise.all([
    m.entries
      .aggregate<{ sum: number }>([
        { $match: { accountId } },
        { $group: { _id: null, sum: { $sum: '$amount' } } },
      ])
      .exec(),
    m.entries.countDocuments({ accountId }).exec(),
    chains.head(accountId),
  ]);
  return { balance: head?.balanceAfter ?? 0, sumOfEntries: agg?.sum ?? 0, entries: count };
}
