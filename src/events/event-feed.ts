import { mongo, type Connection } from 'mongoose';
import type { Logger } from 'pino';
import { FEED_COLLECTION, type FeedEntry } from './event-store';

// Each API process tails the capped feed with one tailable/awaitData cursor and fans entries out
// to its own WebSocket clients: the stream comes from the durable record, not from the memory of
// the worker that caused it, so every API process behind a load balancer sees every event.
// FerretDB has no change streams; it does have tailable cursors on capped collections.
//
// Tailable, not awaitData: FerretDB 1.24 answers an awaitData getMore by re-running the cursor's
// query every 10 ms until maxTimeMS, then cancels the query in flight; its SQLite driver may
// deliver that cancellation to another client's query on the same pooled connection, which then
// fails with "interrupted (9)" (the benchmark saw hundreds of such failed activities, and pooled
// connections that failed every query after). A plain tailable getMore runs the query once and
// answers at once, so this process waits between empty answers itself.

export type FeedListener = (entry: FeedEntry) => void;

export interface EventFeedOptions {
  /** How long to wait after an empty getMore before asking again. */
  pollMs?: number;
  /** Re-reads this far back when (re)opening the cursor; duplicates are dropped by event id. */
  overlapMs?: number;
  logger?: Pick<Logger, 'warn'>;
  /**
   * Stops when the connection is closed (a worker's wake-ups: whoever tails again reopens it), and
   * its waits do not keep the process alive.
   */
  untilClosed?: boolean;
}

const RECENT_IDS = 10_000;

export class EventFeed {
  private readonly listeners = new Set<FeedListener>();
  private readonly recent = new Set<string>();
  private stopped = false;
  private loop: Promise<void> | null = null;
  private lastAt = Date.now();
  private opened = false;

  constructor(
    private readonly conn: Connection,
    private readonly opts: EventFeedOptions = {},
  ) {}

  /** Tails from now on: the first cursor reads no entry older than this call. */
  start(): void {
    if (this.loop) return;
    this.lastAt = Date.now();
    this.loop = this.run();
  }

  /** Tailing, not closed nor stopped with its connection. */
  get running(): boolean {
    return this.loop !== null && !this.stopped;
  }

  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private emit(entries: FeedEntry[]): void {
    for (const entry of entries) {
      if (entry.at.getTime() > this.lastAt) this.lastAt = entry.at.getTime();
      if (this.recent.has(entry._id)) continue;
      this.recent.add(entry._id);
      if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value!);
      for (const l of this.listeners) l(entry);
    }
  }

  private async run(): Promise<void> {
    const db = this.conn.db!;
    const pollMs = this.opts.pollMs ?? 250;
    const overlapMs = this.opts.overlapMs ?? 30_000;
    const pause = (ms: number) =>
      new Promise((r) => {
        const t = setTimeout(r, ms);
        if (this.opts.untilClosed) t.unref();
      });
    while (!this.stopped) {
      if (this.opts.untilClosed && (this.conn.readyState as number) === 0) {
        this.stopped = true;
        break;
      }
      let cursorId: mongo.Long | null = null;
      try {
        // The first cursor starts where tailing began; a reopened one re-reads a margin.
        const from = this.opened ? this.lastAt - overlapMs : this.lastAt;
        this.opened = true;
        // batchSize 0: FerretDB closes a tailable cursor whose first batch drained the collection.
        const first = (await db.command({
          find: FEED_COLLECTION,
          filter: { at: { $gte: new Date(from) } },
          tailable: true,
          batchSize: 0,
        })) as { cursor: { id: unknown; firstBatch: FeedEntry[] } };
        this.emit(first.cursor.firstBatch);
        cursorId = mongo.Long.fromValue(first.cursor.id as number);
        while (!this.stopped && !cursorId.isZero()) {
          const more = (await db.command({
            getMore: cursorId,
            collection: FEED_COLLECTION,
            batchSize: 500,
          })) as { cursor: { id: unknown; nextBatch: FeedEntry[] } };
          this.emit(more.cursor.nextBatch);
          cursorId = mongo.Long.fromValue(more.cursor.id as number);
          if (more.cursor.nextBatch.length === 0 && !this.stopped) await pause(pollMs);
        }
      } catch (err) {
        if (!this.stopped) this.opts.logger?.warn({ err }, 'event feed cursor failed; reopening');
      }
      if (this.stopped && cursorId && !cursorId.isZero()) {
        await db.command({ killCursors: FEED_COLLECTION, cursors: [cursorId] }).catch(() => undefined);
      }
      // A dead cursor (empty capped collection on MongoDB, a restart) is reopened shortly.
      if (!this.stopped) await pause(200);
    }
  }
}
