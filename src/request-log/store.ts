import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { ReadChains, type ChainEntry } from '../persistence/read-chains';

// Every API request of a merchant, kept 30 days (docs/decisions/dashboard/request-log-retention-and-masking.md).
// FerretDB pushes down exact `_id` filters only, so the log is read chains (src/persistence/
// read-chains.ts): one stream per scope per UTC day (`<scope>:<YYYY-MM-DD>`), in one collection per
// UTC month (`request_log_YYYY_MM`). An append is one insert (no position document: nobody looks a
// request up by its id), a page is `_id` reads below a cursor, and retention drops whole months.

export const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const COLLECTION_PREFIX = 'request_log_';
/** Positions read for one page at most, whatever the filters: a sparse filter answers a short page. */
const PAGE_BUDGET = 1_000;
/** A cursor position above any head: the walk starts at the head. */
const FROM_HEAD = Number.MAX_SAFE_INTEGER;

export interface RequestLogEntry {
  /** `req_` and 24 hex digits. */
  id: string;
  /** The scope (merchant and mode) the request acted for. */
  scope: string;
  method: string;
  /** The path, query values that may hold personal data or credentials redacted. */
  path: string;
  status: number;
  /** The problem's `type` and `code` when the answer was an error. */
  problemType: string | null;
  problemCode: string | null;
  idempotencyKey: string | null;
  durationMs: number;
  requestId: string | null;
  /** The api_key used, or 'dashboard' for a member's call through /dashboard/api/v1. */
  apiKey: string;
  at: Date;
  requestBody: string | null;
  responseBody: string | null;
  /** A body was cut at MAX_BODY_BYTES. */
  truncated: boolean;
}

export interface RequestLogQuery {
  statusClass?: '2xx' | '3xx' | '4xx' | '5xx';
  method?: string;
  pathPrefix?: string;
  idempotencyKey?: string;
  limit: number;
}

/** Where a page stopped: a day and a position in its stream. */
export interface RequestLogCursor {
  d: string;
  s: number;
}

export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);
const collectionOf = (day: string): string => `${COLLECTION_PREFIX}${day.slice(0, 7).replace('-', '_')}`;
const streamOf = (scope: string, day: string): string => `${scope}:${day}`;

export function newRequestLogId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

export class RequestLogStore {
  private readonly months = new Map<string, Promise<ReadChains<RequestLogEntry>>>();
  private prunedOn: string | null = null;

  private constructor(
    private readonly conn: Connection,
    private readonly now: () => Date,
  ) {}

  static on(conn: Connection, opts: { now?: () => Date } = {}): RequestLogStore {
    return new RequestLogStore(conn, opts.now ?? (() => new Date()));
  }

  /** The month's chains, their indexes created once per process. */
  private chains(day: string): Promise<ReadChains<RequestLogEntry>> {
    const name = collectionOf(day);
    let chains = this.months.get(name);
    if (!chains) {
      const c = new ReadChains<RequestLogEntry>(this.conn, name, { positions: false });
      chains = c.init().then(() => c);
      // A failed init is tried again by the next request.
      chains.catch(() => this.months.delete(name));
      this.months.set(name, chains);
    }
    return chains;
  }

  /** Appends one request: one insert (a hint upsert one time in eight). */
  async record(entry: RequestLogEntry): Promise<void> {
    const day = dayOf(entry.at);
    const chains = await this.chains(day);
    await chains.append(streamOf(entry.scope, day), entry.id, entry.at, entry, { fresh: true });
    if (this.prunedOn !== dayOf(this.now())) await this.prune();
  }

  /**
   * Drops the months whose every day is older than RETENTION_DAYS (once a day per process, from
   * the write path; the listing never shows days past retention anyway). Answers what it dropped.
   */
  async prune(): Promise<string[]> {
    const today = this.now();
    this.prunedOn = dayOf(today);
    const oldest = collectionOf(dayOf(new Date(today.getTime() - RETENTION_DAYS * DAY_MS)));
    const names = (await this.conn.db!.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const dropped: string[] = [];
    for (const name of names) {
      const month = /^request_log_(\d{4}_\d{2})(_heads|_holes|_positions)?$/.exec(name)?.[1];
      if (!month || `${COLLECTION_PREFIX}${month}` >= oldest) continue;
      await this.conn.db!.dropCollection(name).catch(() => undefined);
      this.months.delete(`${COLLECTION_PREFIX}${month}`);
      dropped.push(name);
    }
    return dropped;
  }

  /**
   * Newest first, day by day from today back RETENTION_DAYS, below the cursor; the filters are
   * checked on each entry read, at most PAGE_BUDGET of them per page.
   */
  async list(
    scope: string,
    q: RequestLogQuery,
    cursor?: RequestLogCursor,
  ): Promise<{ entries: RequestLogEntry[]; next: RequestLogCursor | null }> {
    const today = this.now();
    const oldest = dayOf(new Date(today.getTime() - RETENTION_DAYS * DAY_MS));
    let day = cursor?.d ?? dayOf(today);
    let before: number | undefined = cursor?.s;
    const entries: RequestLogEntry[] = [];
    let read = 0;
    const keep = (e: ChainEntry<RequestLogEntry>) => {
      const d = e.doc;
      return (
        (!q.statusClass || `${String(d.status)[0]}xx` === q.statusClass) &&
        (!q.method || d.method === q.method) &&
        (!q.pathPrefix || d.path.startsWith(q.pathPrefix)) &&
        (!q.idempotencyKey || d.idempotencyKey === q.idempotencyKey)
      );
    };
    const previousDay = (d: string) => dayOf(new Date(new Date(`${d}T00:00:00.000Z`).getTime() - DAY_MS));
    while (day >= oldest) {
      if (entries.length >= q.limit || read >= PAGE_BUDGET)
        return { entries, next: { d: day, s: before ?? FROM_HEAD } };
      const chains = await this.chains(day);
      const stream = streamOf(scope, day);
      const top = Math.min((before ?? FROM_HEAD) - 1, await chains.head(stream));
      const walked = await chains.walkDown(stream, {
        before: top + 1,
        keep,
        limit: q.limit - entries.length,
        budget: PAGE_BUDGET - read,
      });
      entries.push(...walked.entries.map((e) => e.doc));
      read += top - (walked.next ?? 1) + 1;
      if (walked.next !== null) before = walked.next;
      else [day, before] = [previousDay(day), undefined];
    }
    return { entries, next: null };
  }
}
