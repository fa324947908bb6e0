import { Schema, type Connection, type Model } from 'mongoose';
import type { Currency } from '../domain/money';
import { insertOnce } from '../persistence/insert-once';

// Statements and their content. A statement's `_id` is its id; its content is cut in chunks of at
// most CHUNK_BYTES stored under `_id` = `<id>:<n>` (FerretDB reads by `_id` alone, and a document has
// a size limit), written by the one activity that generates it, then the statement is marked ready.

export const CHUNK_BYTES = 512 * 1024;

export type StatementFormat = 'csv' | 'json';
export type StatementStatus = 'pending' | 'ready' | 'failed';

export interface Statement {
  id: string;
  merchantId: string;
  accountId: string;
  currency: Currency;
  from: Date;
  to: Date;
  format: StatementFormat;
  status: StatementStatus;
  createdAt: Date;
  readyAt: Date | null;
  /** Minor units, once ready. */
  openingBalance: number | null;
  closingBalance: number | null;
  entryCount: number | null;
  /** How many chunks hold the content, once ready. */
  chunks: number | null;
  /** Why it failed (no personal data: an internal reason for operators). */
  failure: string | null;
}

type StatementDoc = Statement & { _id: string };
const statementSchema = new Schema<StatementDoc>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    merchantId: { type: String, required: true },
    accountId: { type: String, required: true },
    currency: { type: String, required: true },
    from: { type: Date, required: true },
    to: { type: Date, required: true },
    format: { type: String, required: true },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    readyAt: { type: Date, default: null },
    openingBalance: { type: Number, default: null },
    closingBalance: { type: Number, default: null },
    entryCount: { type: Number, default: null },
    chunks: { type: Number, default: null },
    failure: { type: String, default: null },
  },
  { versionKey: false, minimize: false, collection: 'statements' },
);
const chunkSchema = new Schema<{ _id: string; data: string }>(
  { _id: { type: String, required: true }, data: { type: String, required: true } },
  { versionKey: false, collection: 'statement_chunks' },
);

const chunkKey = (id: string, n: number) => `${id}:${String(n).padStart(6, '0')}`;

export class StatementStore {
  constructor(
    private readonly statements: Model<StatementDoc>,
    private readonly chunkDocs: Model<{ _id: string; data: string }>,
  ) {}

  static on(conn: Connection): StatementStore {
    return new StatementStore(
      (conn.models.Statement as Model<StatementDoc> | undefined) ??
        conn.model<StatementDoc>('Statement', statementSchema),
      (conn.models.StatementChunk as Model<{ _id: string; data: string }> | undefined) ??
        conn.model<{ _id: string; data: string }>('StatementChunk', chunkSchema),
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.statements.init(), this.chunkDocs.init()]);
  }

  /** Inserts once: the same id (a retried request) answers the stored one. */
  async insertOrGet(st: Statement): Promise<{ created: boolean; statement: Statement }> {
    const { created, value } = await insertOnce(
      () => this.statements.create({ _id: st.id, ...st }),
      () => this.findById(st.id),
      st,
    );
    return { created, statement: value };
  }

  async findById(id: string): Promise<Statement | null> {
    return this.statements.findOne({ _id: id }, { _id: 0 }).lean<Statement>().exec();
  }

  /** A merchant's statement; another merchant's is not found. */
  async find(merchantId: string, id: string): Promise<Statement | null> {
    const st = await this.findById(id);
    return st?.merchantId === merchantId ? st : null;
  }

  /** Writes the content in chunks (idempotent: a retry replaces them with the same bytes). */
  async putContent(id: string, content: string): Promise<number> {
    const bytes = Buffer.from(content, 'utf8');
    const parts: string[] = [];
    // Cut on character boundaries: a chunk never splits a UTF-8 sequence.
    let start = 0;
    while (start < bytes.length) {
      let end = Math.min(start + CHUNK_BYTES, bytes.length);
      while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
      parts.push(bytes.subarray(start, end).toString('utf8'));
      start = end;
    }
    if (parts.length === 0) parts.push('');
    for (let n = 0; n < parts.length; n++)
      await this.chunkDocs.replaceOne({ _id: chunkKey(id, n) }, { data: parts[n] }, { upsert: true }).exec();
    return parts.length;
  }

  /** The content, chunk by chunk, each read by `_id`. */
  async *content(st: Statement): AsyncGenerator<string> {
    for (let n = 0; n < (st.chunks ?? 0); n++) {
      const doc = await this.chunkDocs
        .findOne({ _id: chunkKey(st.id, n) })
        .lean()
        .exec();
      if (!doc) throw new Error(`statement ${st.id}: chunk ${n} missing`);
      yield doc.data;
    }
  }

  async markReady(
    id: string,
    done: Pick<Statement, 'openingBalance' | 'closingBalance' | 'entryCount' | 'chunks'>,
  ): Promise<void> {
    await this.statements
      .updateOne({ _id: id }, { $set: { ...done, status: 'ready', readyAt: new Date() } })
      .exec();
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.statements.updateOne({ _id: id }, { $set: { status: 'failed', failure: reason } }).exec();
  }
}
