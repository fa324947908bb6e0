import type { Model } from 'mongoose';
import type { ReplayDoc, WebhookReplay } from '../webhooks/replay-store';
import type { EventQuery, EventStore } from '../events/event-store';
import type { StoredEvent } from '../events/catalogue';
import type { DeliveryAttempt, DeliveryLog } from '../webhooks/delivery-log';
import { publicAttemptError } from '../webhooks/delivery-log';
import type { EndpointStore, WebhookEndpoint } from '../webhooks/endpoint-store';
import { REPLAY_MAX_EVENTS, type ReplayRequest, type WebhookHealth } from '../contract/schemas/webhooks';
import { ApiProblem } from '../contract/problems';
import { idOfKey } from '../domain/ids';
import { insertOnce } from '../persistence/insert-once';

// Webhooks at scale (docs/events.md): an endpoint's health over the last 24 hours, the events that
// did not reach every endpoint, and replays of a period to one endpoint. Each reads by `_id` only
// (chains, outcome documents), so its cost follows the page or the period asked, not the store.

const DAY_MS = 86_400_000;
/** Attempts read at most for one health figure (the newest of the 24 hours). */
export const HEALTH_READ_BUDGET = 5_000;
/** Events examined at most for one page of undelivered events; the page may be short. */
const UNDELIVERED_BUDGET = 400;
const WALK_PAGE = 200;

const subscribes = (endpoint: WebhookEndpoint, event: StoredEvent) =>
  endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(event.type);
/** Whether the endpoint existed, enabled and subscribed, when the event was recorded. */
const owed = (endpoint: WebhookEndpoint, event: StoredEvent) =>
  endpoint.status === 'enabled' &&
  subscribes(endpoint, event) &&
  new Date(endpoint.createdAt).getTime() <= new Date(event.createdAt).getTime();

type EventFilter = Pick<EventQuery, 'type' | 'reference' | 'from' | 'to' | 'legacyChain'>;

export interface WebhookOperationsDeps {
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  replays: Model<ReplayDoc>;
  /** Starts a replay's workflow (once per replay id). */
  startReplay: (merchantId: string, replayId: string) => Promise<unknown>;
}

export class WebhookOperations {
  constructor(private readonly deps: WebhookOperationsDeps) {}

  async health(merchantId: string, endpoint: WebhookEndpoint, now = new Date()): Promise<WebhookHealth> {
    const since = new Date(now.getTime() - DAY_MS);
    const { attempts, complete } = await this.deps.deliveries.recent(
      merchantId,
      endpoint.id,
      since,
      HEALTH_READ_BUDGET,
    );
    return healthOf(attempts, since, complete);
  }

  /**
   * Events newest first whose delivery state is `delivered` (true: every endpoint owed it got it;
   * false: at least one did not), walking the merchant's events from `before` with a read budget.
   */
  async listByDelivery(
    merchantId: string,
    q: EventFilter & { delivered: boolean; before?: number; limit: number },
  ): Promise<{ events: StoredEvent[]; positions: number[]; next: number | null }> {
    const endpoints = await this.deps.endpoints.list(merchantId);
    const { delivered, limit, ...filter } = q;
    const events: StoredEvent[] = [];
    const positions: number[] = [];
    let before = q.before;
    let examined = 0;
    while (examined < UNDELIVERED_BUDGET) {
      const want = Math.min(WALK_PAGE, UNDELIVERED_BUDGET - examined);
      const page = await this.deps.events.list(merchantId, {
        ...filter,
        ...(before !== undefined ? { before } : {}),
        limit: want,
      });
      for (const [i, event] of page.events.entries()) {
        examined++;
        before = page.positions[i]!;
        if ((await this.reachedAll(event, endpoints)) !== delivered) continue;
        events.push(event);
        positions.push(before);
        if (events.length === limit) return { events, positions, next: before };
      }
      // Fewer than asked: the walk reached the end, or the store's own budget cut it (go on below).
      if (page.events.length < want) {
        if (page.next === null) return { events, positions, next: null };
        before = page.next;
      }
    }
    // This request's budget is spent: the cursor goes on below what was read.
    return { events, positions, next: before ?? null };
  }

  private async reachedAll(event: StoredEvent, endpoints: WebhookEndpoint[]): Promise<boolean> {
    for (const endpoint of endpoints) {
      if (owed(endpoint, event) && !(await this.deps.deliveries.delivered(event.id, endpoint.id)))
        return false;
    }
    return true;
  }

  /**
   * Selects the period's events for the endpoint (only those it never got, with `onlyFailed`), and
   * unless a dry run, stores the replay and starts its paced workflow. The idempotency key names the
   * replay: a retried request answers the same replay and sends nothing twice.
   */
  async replay(
    merchantId: string,
    endpoint: WebhookEndpoint,
    body: ReplayRequest,
    idempotencyKey: string,
  ): Promise<{ id: string | null; count: number }> {
    if (endpoint.status !== 'enabled') throw new ApiProblem('WEBHOOK_DISABLED');
    const id = idOfKey('rp', merchantId, idempotencyKey);
    const known = await this.deps.replays.findOne({ _id: id }, { _id: 0 }).lean<WebhookReplay>().exec();
    if (known) {
      await this.deps.startReplay(merchantId, id);
      return { id, count: known.eventIds.length };
    }
    const selected = await this.select(merchantId, endpoint, body);
    if (body.dryRun) return { id: null, count: selected.length };
    const replay: WebhookReplay = {
      id,
      merchantId,
      endpointId: endpoint.id,
      from: new Date(body.from),
      to: new Date(body.to),
      onlyFailed: body.onlyFailed,
      eventIds: selected.reverse(),
      createdAt: new Date(),
    };
    const stored = await insertOnce(
      () => this.deps.replays.create({ _id: id, ...replay }),
      () => this.deps.replays.findOne({ _id: id }, { _id: 0 }).lean<WebhookReplay>().exec(),
      replay,
    );
    await this.deps.startReplay(merchantId, id);
    // Stored by a twin request meanwhile (the same key), maybe from another selection (an event
    // delivered in between): its replay is the one sent, so its count answers both.
    return { id, count: stored.value.eventIds.length };
  }

  /** The period's events owed to the endpoint, newest first; more than REPLAY_MAX_EVENTS is refused. */
  private async select(
    merchantId: string,
    endpoint: WebhookEndpoint,
    body: ReplayRequest,
  ): Promise<string[]> {
    const chosen: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.deps.events.list(merchantId, {
        from: new Date(body.from),
        to: new Date(body.to),
        ...(before !== undefined ? { before } : {}),
        limit: WALK_PAGE,
      });
      for (const [i, event] of page.events.entries()) {
        before = page.positions[i]!;
        if (!subscribes(endpoint, event)) continue;
        if (
          body.onlyFailed &&
          (!owed(endpoint, event) || (await this.deps.deliveries.delivered(event.id, endpoint.id)))
        )
          continue;
        chosen.push(event.id);
        if (chosen.length > REPLAY_MAX_EVENTS) throw new ApiProblem('REPLAY_TOO_LARGE');
      }
      if (page.events.length < WALK_PAGE) {
        if (page.next === null) return chosen;
        before = page.next;
      }
    }
  }
}

/** The figures of GET /v1/webhooks/{id}'s `health`, from the period's attempts (newest first). */
export function healthOf(attempts: DeliveryAttempt[], since: Date, complete: boolean): WebhookHealth {
  const latencies = attempts.map((a) => a.latencyMs).sort((a, b) => a - b);
  const rank = (p: number) => (latencies.length ? latencies[Math.ceil(p * latencies.length) - 1]! : null);
  const failed = attempts.find((a) => !a.succeeded);
  const firstSuccess = attempts.findIndex((a) => a.succeeded);
  return {
    since: since.toISOString(),
    attempts: attempts.length,
    successRate: attempts.length ? attempts.filter((a) => a.succeeded).length / attempts.length : null,
    latencyP50Ms: rank(0.5),
    latencyP99Ms: rank(0.99),
    lastError: failed
      ? {
          at: new Date(failed.attemptedAt).toISOString(),
          statusCode: failed.statusCode,
          error: publicAttemptError(failed.error),
        }
      : null,
    consecutiveFailures: firstSuccess === -1 ? attempts.length : firstSuccess,
    complete,
  };
}
