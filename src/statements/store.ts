import { Schema, type Connection, type Model } from 'mongoose';
import type { Currency } from '../domain/money';
import { insertOnce } from '../persistence/insert-once';

// Statements and their content. A statement's `_id` is its id; its content is cut in chunks of at
// most CHUNK_BYTES stored under `_id` = `<id>:<generation>:<n>` (FerretDB reads by `_id` alone, and a
// document has a size limit). Two generations of one statement can run at once (an activity attempt
// retried while the first still runs) and may read different entries (a period not over yet): each
// writes its own chunks, and the statement's end (ready with one generation, or failed) is decided
// once by an insert under the statement's id in `statement_decisions`; the loser's chunks are removed.

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
  /** The generation whose chunks are the content; absent on statements made before generations. */
  generation?: string | null;
}

/** How a statement ended, decided once (the unique `_id`): the values its record then shows. */
export type StatementDecision =
  | ({ status: 'ready'; generation: string; readyAt: Date } & Pick<
      Statement,
      'openingBalance' | 'closingBalance' | 'entryCount' | 'chunks'
    >)
  | { status: 'failed'; failure: string };
type DecisionDoc = { _id: string; decision: StatementDecision };

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
    generation: { type: String, default: null },
  },
  { versionKey: false, minimize: false, collection: 'statements' },
);
// The list of a merchant's statements, newest first (GET /v1/statements).
statementSchema.index({ merchantId: 1, createdAt: -1, _id: -1 });
const decisionSchema = new Schema<DecisionDoc>(
  { _id: { type: String, required: true }, decision: { type: Schema.Types.Mixed, required: true } },
  { versionKey: false, collection: 'statement_decisions' },
);
const chunkSchema = new Schema<{ _id: string; data: string }>(
  { _id: { type: String, required: true }, data: { type: String, required: true } },
  { versionKey: false, collection: 'statement_chunks' },
);

const chunkKey = (id: string, n: number, generation?: string | null) =>
  `${id}:${generation ? `${generation}:` : ''}${String(n).padStart(6, '0')}`;

export class StatementStore {
  constructor(
    private readonly statements: Model<StatementDoc>,
    private readonly chunkDocs: Model<{ _id: string; data: string }>,
    private readonly decisions: Model<DecisionDoc>,
  ) {}

  static on(conn: Connection): StatementStore {
    return new StatementStore(
      (conn.models.Statement as Model<StatementDoc> | undefined) ??
        conn.model<StatementDoc>('Statement', statementSchema),
      (conn.models.StatementChunk as Model<{ _id: string; data: string }> | undefined) ??
        conn.model<{ _id: string; data: string }>('StatementChunk', chunkSchema),
      (conn.models.StatementDecision as Model<DecisionDoc> | undefined) ??
        conn.model<DecisionDoc>('StatementDecision', decisionSchema),
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.statements.init(), this.chunkDocs.init(), this.decisions.init()]);
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

  /** Newest first; `before` the position of the last one of the previous page. */
  async list(
    merchantId: string,
    opts: { limit: number; accountId?: string; before?: { createdAt: Date; id: string } },
  ): Promise<{ statements: Statement[]; more: boolean }> {
    const filter: Record<string, unknown> = { merchantId };
    if (opts.accountId) filter.accountId = opts.accountId;
    if (opts.before)
      filter.$or = [
        { createdAt: { $lt: opts.before.createdAt } },
        { createdAt: opts.before.createdAt, _id: { $lt: opts.before.id } },
      ];
    const docs = await this.statements
      .find(filter, { _id: 0 })
      .sort({ createdAt: -1, _id: -1 })
      .limit(opts.limit + 1)
      .lean<Statement[]>()
      .exec();
    return { statements: docs.slice(0, opts.limit), more: docs.length > opts.limit };
  }

  /** Writes one generation's content in chunks (a retry of it replaces them with the same bytes). */
  async putContent(id: string, content: string, generation?: string): Promise<number> {
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
      await this.chunkDocs
        .replaceOne({ _id: chunkKey(id, n, generation) }, { data: parts[n] }, { upsert: true })
        .exec();
    return parts.length;
  }

  /** Removes a generation's chunks (one that lost the decision). */
  async discardContent(id: string, generation: string, chunks: number): Promise<void> {
    const ids = Array.from({ length: chunks }, (_, n) => chunkKey(id, n, generation));
    if (ids.length) await this.chunkDocs.deleteMany({ _id: { $in: ids } }).exec();
  }

  /** The content, chunk by chunk, each read by `_id`. */
  async *content(st: Statement): AsyncGenerator<string> {
    for (let n = 0; n < (st.chunks ?? 0); n++) {
      const doc = await this.chunkDocs
        .findOne({ _id: chunkKey(st.id, n, st.generation) })
        .lean()
        .exec();
      if (!doc) throw new Error(`statement ${st.id}: chunk ${n} missing`);
      yield doc.data;
    }
  }

  /**
   * Ends the statement as `proposed` unless it already ended: the first decision stands (an insert
   * once under the statement's id), and the record is set to it; answers the decision that stands.
   * Every writer sets the same values, so FerretDB's read-then-replace cannot mix two outcomes.
   */
  async decide(id: string, proposed: StatementDecision): Promise<StatementDecision> {
    const { value } = await insertOnce(
      () => this.decisions.create({ _id: id, decision: proposed }),
      async () => (await this.decisions.findOne({ _id: id }).lean<DecisionDoc>().exec())?.decision ?? null,
      proposed,
    );
    const decided: StatementDecision =
      value.status === 'ready' ? { ...value, readyAt: new Date(value.readyAt) } : value;
    await this.statements.updateOne({ _id: id }, { $set: decided }).exec();
    return decided;
  }

  async markFailed(id: string, reason: string): Promise<StatementDecision> {
    return this.decide(id, { status: 'failed', failure: reason });
  }
}
