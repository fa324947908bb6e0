import type { Client } from '@temporalio/client';
import type { Connection, Model } from 'mongoose';
import { Schema } from 'mongoose';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { metricsRegistry } from '../infra/metrics';
import type { StoredEvent } from '../events/catalogue';
import { EventFeed } from '../events/event-feed';
import { onEventRecorded, type EventStore } from '../events/event-store';
import { webhookDeliveryWorkflowId } from '../temporal/workflow-ids';
import { attemptWebhook, type AttemptDeps } from './attempt';
import type { EndpointStore, WebhookEndpoint } from './endpoint-store';
import type { DrainInput, DrainResult, OutboxCursor } from './messages';

// The drain of an endpoint's outbox (docs/events.md, Delivery and retries): the merchant's events in the order of its
// chain `m|`, after the endpoint's cursor, one HTTP attempt each, in order. It runs for its
// dispatcher workflow (workflows/webhooks/webhook-dispatcher.ts) as an activity completed asynchronously:
// the activity hands its task token here and frees its slot, so a thousand idle endpoints hold no
// worker slot a payin needs. The loop heartbeats its cursor through the task token (a worker lost:
// the retry resumes from the last heartbeat) and completes the activity only on a failure, on park
// or after RUN_MS; while the merchant records nothing it waits on this process's wake-ups, not on
// Temporal, so a delivered event adds no workflow history.

/** How long one drain runs before handing back to its workflow (which may continue as new). */
export const DRAIN_RUN_MS = 60 * 60_000;
/** Idle heartbeat period (the activity's heartbeat timeout is a minute). */
const HEARTBEAT_MS = 10_000;
/** A wait with no wake-up ends with one read anyway: a wake-up lost is late by this much at most. */
const FALLBACK_POLL_MS = 60_000;
/** Within a long burst, an endpoint's settings (URL, secrets, status) are read again this often. */
const ENDPOINT_TTL_MS = 10_000;
/**
 * A position missing while later ones exist is waited for this long before it is called a hole: an
 * append in flight may still land there (a writer that read the head, then stalled).
 */
export const OUTBOX_HOLE_GRACE_MS = 30_000;
/** Events recorded in this process kept for its drains (several endpoints each deliver them). */
const RECENT_KEPT = 10_000;
/** While idle, the chain's head is read at most this often to notice a hole below it. */
const HOLE_CHECK_MS = 10_000;

export const webhookOutboxHoles = new Counter({
  name: 'payments_webhook_outbox_holes_total',
  help: "Positions of a merchant's event chain a webhook drain found missing below the head past the grace period (skipped, noted for the recovery sweep, which lists the event again at the head)",
  registers: [metricsRegistry],
});

/** Where an endpoint's queue stopped, saved when it parks: enabling it again resumes there. */
interface CursorDoc extends OutboxCursor {
  _id: string;
  updatedAt: Date;
}
const cursorSchema = new Schema<CursorDoc>(
  {
    _id: { type: String, required: true },
    cursor: { type: Number, required: true },
    attempts: { type: Number, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_outbox_cursors' },
);

export function outboxCursors(conn: Connection): Model<CursorDoc> {
  return (
    (conn.models.WebhookOutboxCursor as Model<CursorDoc> | undefined) ??
    conn.model<CursorDoc>('WebhookOutboxCursor', cursorSchema)
  );
}

/**
 * This process's wake-ups, per merchant: the events it records itself (with their position, so a
 * drain reads exactly up to it) and, from the capped feed it tails once, those recorded elsewhere.
 */
export class OutboxWaker {
  private readonly heads = new Map<string, number>();
  /**
   * The events this process recorded, by merchant and chain position (bounded): the chain entry a
   * drain would read there holds this very event (appended once, never changed), so a drain in
   * the recording process delivers it without reading it back.
   */
  private readonly recent = new Map<string, StoredEvent>();
  private readonly unknown = new Set<string>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly local = new Set<string>();
  private feed: EventFeed | null = null;

  private readonly watched = new WeakSet<Connection>();

  constructor() {
    onEventRecorded((event, position) => {
      this.local.add(event.id);
      if (this.local.size > 10_000) this.local.delete(this.local.values().next().value!);
      this.heads.set(event.merchantId, Math.max(position, this.heads.get(event.merchantId) ?? 0));
      this.recent.set(`${event.merchantId}|${position}`, event);
      if (this.recent.size > RECENT_KEPT) this.recent.delete(this.recent.keys().next().value!);
      this.wake(event.merchantId);
    });
  }

  /** Tails the feed (once): events other processes record wake this one's drains. */
  tail(conn: Connection, logger?: Pick<Logger, 'warn'>): void {
    if (!this.watched.has(conn)) {
      this.watched.add(conn);
      // Closing the store wakes every drain, which then stops.
      conn.on('close', () => {
        for (const set of [...this.waiters.values()]) for (const w of [...set]) w();
      });
    }
    if (this.feed?.running) return;
    this.feed = new EventFeed(conn, { pollMs: 500, untilClosed: true, ...(logger ? { logger } : {}) });
    this.feed.subscribe((entry) => {
      if (this.local.has(entry._id)) return;
      this.unknown.add(entry.merchantId);
      this.wake(entry.merchantId);
    });
    this.feed.start();
  }

  async close(): Promise<void> {
    await this.feed?.close();
    this.feed = null;
  }

  /** The event this process recorded at the merchant's chain position, if it still remembers it. */
  recorded(merchantId: string, position: number): StoredEvent | undefined {
    return this.recent.get(`${merchantId}|${position}`);
  }

  /** The furthest position known recorded for the merchant, and whether more may be (feed wake-up). */
  known(merchantId: string): { head: number; probe: boolean } {
    const probe = this.unknown.delete(merchantId);
    return { head: this.heads.get(merchantId) ?? 0, probe };
  }

  /** Resolves true on a wake-up for the merchant (or one since `head` was read), false after `ms`. */
  wait(merchantId: string, head: number, ms: number): Promise<boolean> {
    if ((this.heads.get(merchantId) ?? 0) > head || this.unknown.has(merchantId))
      return Promise.resolve(true);
    return new Promise((resolve) => {
      let set = this.waiters.get(merchantId);
      if (!set) this.waiters.set(merchantId, (set = new Set()));
      const done = (woken: boolean) => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(merchantId) === set) this.waiters.delete(merchantId);
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      timer.unref();
      set.add(wake);
    });
  }

  private wake(merchantId: string): void {
    for (const w of [...(this.waiters.get(merchantId) ?? [])]) w();
  }
}

export interface OutboxDeps extends AttemptDeps {
  events: EventStore;
  endpoints: EndpointStore;
  cursors: Model<CursorDoc>;
  waker: OutboxWaker;
  runMs?: number;
  /** How long a missing position is waited for before it is reported (OUTBOX_HOLE_GRACE_MS). */
  holeGraceMs?: number;
  /** Where a hole is reported: ids and positions only, never an event's content. */
  logger?: { warn(message: string, meta?: Record<string, unknown>): void };
}

/** The activity's lease, by its task token: heartbeats throw once Temporal gave the drain up. */
export interface DrainLease {
  heartbeat(details: OutboxCursor): Promise<void>;
  complete(result: DrainResult): Promise<void>;
  fail(err: unknown): Promise<void>;
}

export function leaseOf(client: Client, taskToken: Uint8Array): DrainLease {
  return {
    heartbeat: (details) => client.activity.heartbeat(taskToken, details),
    complete: (result) => client.activity.complete(taskToken, result),
    fail: (err) => client.activity.fail(taskToken, err instanceof Error ? err : new Error(String(err))),
  };
}

const closing = (events: EventStore) => [0, 3].includes(events.connection.readyState);

const subscribes = (endpoint: WebhookEndpoint, event: StoredEvent) =>
  endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(event.type);

/** The drains this process runs, by endpoint: a newer drain of one endpoint retires the older. */
const running = new Map<string, symbol>();

/** Saves where the queue stopped (on park): one write. */
export async function saveCursor(cursors: Model<CursorDoc>, endpointId: string, at: OutboxCursor) {
  await cursors
    .updateOne(
      { _id: endpointId },
      { $set: { cursor: at.cursor, attempts: at.attempts, updatedAt: new Date() } },
      { upsert: true },
    )
    .exec();
}

/**
 * Fixes where an endpoint's queue starts when nothing fixed it yet (an endpoint from before
 * dispatchers): insert-once, so a second sweep or a drain already running never moves it on. A
 * drain that read the head itself when it started would skip the events recorded in between.
 */
export async function saveCursorOnce(
  cursors: Model<CursorDoc>,
  endpointId: string,
  at: () => Promise<OutboxCursor>,
): Promise<void> {
  if (await cursors.exists({ _id: endpointId }).exec()) return;
  const start = await at();
  await cursors
    .create({ _id: endpointId, cursor: start.cursor, attempts: start.attempts, updatedAt: new Date() })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 11000) throw err; // another process fixed it first
    });
}

/** Runs one drain to its result and completes the activity with it; never throws. */
export function startDrain(deps: OutboxDeps, lease: DrainLease, input: DrainInput): void {
  const me = Symbol(input.endpointId);
  running.set(input.endpointId, me);
  const current = () => running.get(input.endpointId) === me;
  void drain(deps, lease, input, current)
    .then(async (result) => {
      if (result && current()) await lease.complete(result);
    })
    .catch(async (err: unknown) => {
      // The activity fails and is retried from its last heartbeat; a lease already lost fails here too.
      if (current()) await lease.fail(err).catch(() => undefined);
    })
    .finally(() => {
      if (current()) running.delete(input.endpointId);
    });
}

/** Null: the lease was lost (another drain of this endpoint runs now), nothing to report. */
async function drain(
  deps: OutboxDeps,
  lease: DrainLease,
  input: DrainInput,
  current: () => boolean,
): Promise<DrainResult | null> {
  const { events, endpoints, waker, merchantId } = { ...deps, merchantId: input.merchantId };
  const deadline = Date.now() + (deps.runMs ?? DRAIN_RUN_MS);
  let endpoint = await endpoints.get(merchantId, input.endpointId);
  let endpointAt = Date.now();
  let at: OutboxCursor | null = input.from;
  if (!at) {
    const saved = await deps.cursors.findOne({ _id: input.endpointId }).lean<CursorDoc>().exec();
    // No saved cursor (an endpoint from before dispatchers): from now on; earlier events had their
    // own delivery workflows.
    at = saved
      ? { cursor: saved.cursor, attempts: saved.attempts }
      : { cursor: await events.outboxHead(merchantId), attempts: 0 };
  }
  const park = async (reason: 'disabled' | 'deleted'): Promise<DrainResult> => {
    if (reason === 'disabled') await saveCursor(deps.cursors, input.endpointId, at!);
    return { state: 'parked', reason, ...at! };
  };
  let heartbeatAt = 0;
  const beat = async () => {
    heartbeatAt = Date.now();
    try {
      await lease.heartbeat(at!);
      return true;
    } catch {
      return false; // given up by Temporal (timed out, cancelled): a retry may run elsewhere
    }
  };
  // Reading on (a backlog, a feed wake-up) until a read finds nothing; otherwise this process's own
  // records say how far to read, so a delivered event costs no read that finds nothing.
  let probe = true;
  let probedAt = Date.now();
  // The settings are read again at the start of each burst (after an idle wait): a secret rotated or
  // a URL changed applies from the next event, and a burst pays one read for all its events.
  let fresh = true;
  const holeGraceMs = deps.holeGraceMs ?? OUTBOX_HOLE_GRACE_MS;
  // A position found missing while later ones exist, and since when (the grace runs from there).
  let missingSince = null as { position: number; since: number } | null;
  let headCheckedAt = 0;
  for (;;) {
    // The process is closing its store (a worker's shutdown): leave it to the heartbeat timeout.
    if (!current() || closing(events)) return null;
    if (!endpoint) return park('deleted');
    if (endpoint.status !== 'enabled') return park('disabled');
    if (Date.now() >= deadline) return { state: 'rested', ...at };
    if (Date.now() - heartbeatAt >= HEARTBEAT_MS && !(await beat())) return null;
    const next: number = at.cursor + 1;
    const known = waker.known(merchantId);
    if (known.probe) probe = true;
    waker.tail(events.connection);
    if (!probe && known.head < next) {
      await waker.wait(merchantId, known.head, Math.min(HEARTBEAT_MS, Math.max(0, deadline - Date.now())));
      fresh = false;
      // Wake-ups are best effort: one read now and then anyway.
      if (Date.now() - probedAt >= FALLBACK_POLL_MS) probe = true;
      continue;
    }
    probedAt = Date.now();
    // Recorded in this process: its entry is known, no read (one per event and endpoint otherwise).
    const local = waker.recorded(merchantId, next);
    const entry = local ? { hole: undefined, doc: local } : await events.outboxAt(merchantId, next);
    if (!entry) {
      probe = false;
      // Past the head, or a position lost below it. Whether later positions exist is read when this
      // process recorded one, and otherwise now and then (events recorded elsewhere); once a
      // position is found missing below the head, it is watched until its grace ends.
      if (missingSince?.position !== next) {
        missingSince = null;
        if (known.head <= next && Date.now() - headCheckedAt < HOLE_CHECK_MS) continue;
        headCheckedAt = Date.now();
        if ((await events.outboxHead(merchantId)) <= next) continue;
        missingSince = { position: next, since: Date.now() };
      }
      const waited = Date.now() - missingSince.since;
      if (waited < holeGraceMs) {
        // An append in flight may still land there: wait (heartbeating) before calling it a hole.
        await new Promise((r) => setTimeout(r, Math.min(holeGraceMs - waited, HEARTBEAT_MS / 2)));
        probe = true;
        continue;
      }
      // A hole: reported, noted for the recovery sweep (which lists its event again at the head, so
      // this drain delivers it later, out of order), and skipped so the queue goes on.
      webhookOutboxHoles.inc();
      deps.logger?.warn('webhook outbox: a position of the event chain is missing below its head; skipped', {
        merchantId,
        endpointId: input.endpointId,
        position: next,
        waitedMs: waited,
      });
      await events.noteOutboxHole(merchantId, next);
      missingSince = null;
      at = { cursor: next, attempts: 0 };
      probe = true;
      continue;
    }
    missingSince = null;
    if (entry.hole || !subscribes(endpoint, entry.doc)) {
      at = { cursor: next, attempts: 0 };
      continue;
    }
    if (!fresh || Date.now() - endpointAt >= ENDPOINT_TTL_MS) {
      endpoint = await endpoints.get(merchantId, input.endpointId);
      endpointAt = Date.now();
      fresh = true;
      // The entry just read stays valid (entries never change): it is not read again, unless the
      // endpoint changed so that it is not sent now (the loop's checks park or skip it then).
      if (!endpoint || endpoint.status !== 'enabled' || !subscribes(endpoint, entry.doc)) continue;
    }
    // Still ours, right before sending: a drain given up does not send beside its successor.
    if (!(await beat())) return null;
    const event = entry.doc;
    const attempt = at.attempts + 1;
    const sent = await attemptWebhook(deps, endpoint, event, {
      deliveryId: webhookDeliveryWorkflowId(event.id, endpoint.id),
      attempt,
      trigger: 'event',
      log: 'listed',
    });
    if (sent.succeeded) {
      at = { cursor: next, attempts: 0 };
      continue;
    }
    at = { cursor: at.cursor, attempts: attempt };
    if (sent.statusCode === 410) {
      await endpoints.setStatus(merchantId, endpoint.id, 'disabled', 'the endpoint answered 410 Gone');
      return park('disabled');
    }
    return { state: 'failed', eventId: event.id, retryAfterMs: sent.retryAfterMs, ...at };
  }
}
