import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { z } from 'zod';
import { ReadChains } from '../../persistence/read-chains';
import type { TransactionNote } from './shapes';

// Staff's notes on a transaction (docs/decisions/dashboard/transaction-notes.md): append-only, one
// read chain per transaction of a scope, so the newest-first list is read by `_id` alone and a
// note is inserted, never updated. The text is the merchant's own data: it is stored and shown to
// the team, never logged nor copied into the audit log.

/** Characters a note holds at most. */
export const NOTE_MAX_CHARS = 1_000;
/** Notes a transaction holds at most: the timeline shows them all. */
export const NOTES_PER_TRANSACTION = 100;

export const noteBody = z.strictObject({
  text: z.string().trim().min(1).max(NOTE_MAX_CHARS),
});

interface NoteDoc {
  text: string;
  authorId: string;
  authorName: string;
}

const stream = (scope: string, transactionId: string) => `note:${scope}:${transactionId}`;

export class NoteStore {
  constructor(private readonly chains: ReadChains<NoteDoc>) {}

  static on(conn: Connection): NoteStore {
    return new NoteStore(new ReadChains<NoteDoc>(conn, 'dashboard_notes', { positions: false }));
  }

  init(): Promise<void> {
    return this.chains.init();
  }

  /** How many notes the transaction has (its chain's head: one read, then memory). */
  count(scope: string, transactionId: string): Promise<number> {
    return this.chains.head(stream(scope, transactionId));
  }

  async add(
    scope: string,
    transactionId: string,
    author: { id: string; name: string },
    text: string,
  ): Promise<TransactionNote> {
    const id = `note_${randomBytes(12).toString('hex')}`;
    const at = new Date();
    await this.chains.append(
      stream(scope, transactionId),
      id,
      at,
      { text, authorId: author.id, authorName: author.name },
      { fresh: true },
    );
    return { id, text, author, at: at.toISOString() };
  }

  /** Newest first, every note (at most NOTES_PER_TRANSACTION). */
  async list(scope: string, transactionId: string): Promise<TransactionNote[]> {
    const page = await this.chains.walkDown(stream(scope, transactionId), { limit: NOTES_PER_TRANSACTION });
    return page.entries.map((e) => ({
      id: e.member,
      text: e.doc.text,
      author: { id: e.doc.authorId, name: e.doc.authorName },
      at: new Date(e.at).toISOString(),
    }));
  }
}
