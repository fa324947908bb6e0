import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { parseBasic, type Authenticator } from './auth';
import { addressLimiterOf, clientAddress, type AddressLimiter } from './rate-limit';
import {
  CLOSE_KEY_REVOKED,
  CLOSE_MERCHANT_SUSPENDED,
  closeClient,
  deliver,
  flushed,
  send,
  tooSlow,
  type Client,
} from './ws-connection';
import { languageOf, refuse, refuseProblem, socketMessages, tooManyConnections } from './ws-refusals';
import type { Language } from '../contract/i18n';
import { toPublicEvent } from '../events/catalogue';
import type { EventFeed } from '../events/event-feed';
import type { EventStore, FeedEntry } from '../events/event-store';
import type { WsTokenStore } from '../persistence/ws-tokens';

// GET /v1/ws: the merchant's events, live. Authenticated like the API (Basic) or, from a browser,
// with a single-use token (?token=, from POST /v1/ws/tokens). The client subscribes to all its
// transactions or to references, optionally resuming after the last event id it saw; events come
// from the durable feed (see events/event-feed.ts), never from another merchant.
//
// Multi-tenant bounds (RealtimeLimits): connections per merchant in this process, messages left
// unsent per connection (a slow consumer is closed with 1013 and resumes from its last event id),
// and every connection's key and merchant re-checked on a timer, so that revoking the key or
// suspending the merchant closes it (4001, 4003) within AUTH_CACHE_TTL.

export const WS_PATH = '/v1/ws';
const MAX_REPLAY = 1000;

// The connection's close codes and message types are part of this module's interface.
export {
  CLOSE_KEY_REVOKED,
  CLOSE_MERCHANT_SUSPENDED,
  CLOSE_TRY_AGAIN_LATER,
  type ServerMessage,
} from './ws-connection';

/** What a connection re-checks: its key (null for a token whose key is unknown) and merchant. */
export type AccessChecker = (
  merchantId: string,
  apiKey: string | null,
  maxAgeMs: number,
) => Promise<'allowed' | 'key_revoked' | 'merchant_suspended'>;

export interface RealtimeLimits {
  /** Open connections per merchant in this process (WS_MAX_CONNECTIONS_PER_MERCHANT). */
  maxConnectionsPerMerchant: number;
  /** Messages handed to a connection and not yet written to its socket (WS_MAX_QUEUED_MESSAGES). */
  maxQueuedMessages: number;
  /** Re-checks every open connection's key and merchant; omitted, connections are never re-checked. */
  access?: { check: AccessChecker; withinMs: number };
}

const defaultLimits: RealtimeLimits = { maxConnectionsPerMerchant: 20, maxQueuedMessages: 1000 };

const clientMessage = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('subscribe'),
    /** Omitted: every transaction of the merchant. */
    references: z.array(z.string().min(1).max(100)).max(1000).optional(),
    lastEventId: z.string().max(100).optional(),
  }),
  z.strictObject({ type: z.literal('ping') }),
]);

export interface RealtimeDeps {
  authenticate: Authenticator;
  tokens: WsTokenStore;
  events: EventStore;
  feed: EventFeed;
  heartbeatMs: number;
  logger: Logger;
}

export class RealtimeHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly byMerchant = new Map<string, Set<Client>>();
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly servers: Server[] = [];
  private limits: RealtimeLimits = defaultLimits;
  private addressLimiter: AddressLimiter | null = null;
  private trustProxy: ((addr: string, i: number) => boolean) | null = null;
  private accessTimer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(private readonly deps: RealtimeDeps) {}

  /** Bounds and the access re-check (see RealtimeLimits); settings of the process, set once. */
  configure(limits: Partial<RealtimeLimits>): void {
    this.limits = { ...this.limits, ...limits };
  }

  /** Failed upgrades count against the same per-address limit as the API's 401s (rate-limit.ts). */
  limitAddresses(limiter: AddressLimiter | null, trustProxy: (addr: string, i: number) => boolean): void {
    this.addressLimiter = limiter;
    this.trustProxy = trustProxy;
  }

  /** Open connections of this merchant in this process. */
  connectionsOf(merchantId: string): number {
    return this.byMerchant.get(merchantId)?.size ?? 0;
  }

  /** Handles upgrades on this server; the feed is tailed from the first client on. */
  attach(server: Server): void {
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(req, socket, head);
    };
    server.on('upgrade', onUpgrade);
    this.servers.push(server);
  }

  /**
   * Tailing costs the database a query every poll whether anyone listens or not (on FerretDB a
   * scan of the feed), so an API process that never had a WebSocket client does not tail at all.
   */
  private startTailing(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.feed.subscribe((entry) => this.fanOut(entry));
    this.deps.feed.start();
    this.heartbeat = setInterval(() => this.beat(), this.deps.heartbeatMs);
    this.heartbeat.unref();
    const access = this.limits.access;
    if (access) {
      // Every half bound, with lookups at most half a bound old: a change is seen within the bound.
      const half = Math.max(50, Math.floor(access.withinMs / 2));
      this.accessTimer = setInterval(() => void this.recheck(access.check, half), half);
      this.accessTimer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.accessTimer) clearInterval(this.accessTimer);
    this.unsubscribe?.();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((res) => this.wss.close(() => res()));
    await this.deps.feed.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return refuse(socket, 404, 'Not Found');
    const lang = languageOf(req);
    const address = clientAddress(req, this.trustProxy);
    const limiter = this.addressLimiter;
    // Before any lookup: an address that failed too often is refused without touching MongoDB.
    if (limiter && (await limiter.refuses(address)))
      return refuseProblem(socket, WS_PATH, 'RATE_LIMITED', lang, {}, { 'Retry-After': '60' });
    let grant: { merchantId: string; apiKey: string | null } | null = null;
    try {
      const token = url.searchParams.get('token');
      const basic = parseBasic(req.headers.authorization);
      if (basic) {
        const merchantId = await this.deps.authenticate(basic.apiKey, basic.apiClient);
        grant = merchantId ? { merchantId, apiKey: basic.apiKey } : null;
      } else if (token) grant = await this.deps.tokens.consumeGrant(token);
    } catch (err) {
      this.deps.logger.error({ err }, 'websocket authentication failed');
      return refuse(socket, 503, 'Service Unavailable');
    }
    if (!grant) {
      await limiter?.failed(address);
      return refuse(socket, 401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="payments"' });
    }
    // Counted and added without an await in between (handleUpgrade calls back synchronously), so
    // concurrent upgrades of one merchant cannot all pass the check.
    if (this.connectionsOf(grant.merchantId) >= this.limits.maxConnectionsPerMerchant)
      return refuseProblem(
        socket,
        WS_PATH,
        'RATE_LIMITED',
        lang,
        { detail: tooManyConnections },
        { 'Retry-After': '60' },
      );
    const { merchantId, apiKey } = grant;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, merchantId, apiKey, lang));
  }

  /** Closes the connections whose key was revoked or whose merchant was suspended. */
  private async recheck(check: AccessChecker, maxAgeMs: number): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      // One check per (merchant, key) pair, however many connections share it.
      const groups = new Map<string, Client[]>();
      for (const set of this.byMerchant.values())
        for (const client of set) {
          const id = `${client.merchantId}\u0000${client.apiKey ?? ''}`;
          const group = groups.get(id);
          if (group) group.push(client);
          else groups.set(id, [client]);
        }
      for (const clients of groups.values()) {
        const { merchantId, apiKey } = clients[0]!;
        let verdict: Awaited<ReturnType<AccessChecker>>;
        try {
          verdict = await check(merchantId, apiKey, maxAgeMs);
        } catch (err) {
          // MongoDB unreachable: keep the connections; the next round checks again.
          this.deps.logger.warn({ err }, 'websocket access re-check failed');
          return;
        }
        if (verdict === 'allowed') continue;
        const [code, reason] =
          verdict === 'key_revoked'
            ? [CLOSE_KEY_REVOKED, 'api key revoked']
            : [CLOSE_MERCHANT_SUSPENDED, 'merchant suspended'];
        for (const client of clients) closeClient(client, code, reason);
      }
    } finally {
      this.checking = false;
    }
  }

  private connected(ws: WebSocket, merchantId: string, apiKey: string | null, lang: Language): void {
    this.startTailing();
    const client: Client = {
      ws,
      merchantId,
      apiKey,
      lang,
      unsent: 0,
      drained: [],
      maxQueued: this.limits.maxQueuedMessages,
      alive: true,
      references: null,
      subscribed: false,
      pending: null,
      sent: new Set(),
      queue: Promise.resolve(),
    };
    let set = this.byMerchant.get(merchantId);
    if (!set) this.byMerchant.set(merchantId, (set = new Set()));
    set.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('close', () => {
      for (const wake of client.drained.splice(0)) wake();
      set.delete(client);
      if (set.size === 0) this.byMerchant.delete(merchantId);
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (data: Buffer, isBinary) => {
      client.alive = true;
      // One message at a time per client: a resumption finishes before the next subscribe.
      client.queue = client.queue
        .then(() => this.onMessage(client, isBinary ? null : data.toString('utf8')))
        .catch((err: unknown) => {
          this.deps.logger.error({ err }, 'websocket message failed');
          send(client, {
            type: 'error',
            code: 'INTERNAL_ERROR',
            message: socketMessages.internal[client.lang],
          });
        });
    });
    send(client, { type: 'ready', heartbeatMs: this.deps.heartbeatMs });
  }

  private async onMessage(client: Client, text: string | null): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text ?? '');
    } catch {
      return send(client, {
        type: 'error',
        code: 'MALFORMED_JSON',
        message: socketMessages.notJson[client.lang],
      });
    }
    const parsed = clientMessage.safeParse(json);
    if (!parsed.success)
      return send(client, {
        type: 'error',
        code: 'VALIDATION_ERROR',
        message: socketMessages.invalid[client.lang],
      });
    const msg = parsed.data;
    if (msg.type === 'ping') return send(client, { type: 'pong' });

    client.references = msg.references ? new Set(msg.references) : null;
    client.subscribed = true;
    if (!msg.lastEventId) {
      send(client, {
        type: 'subscribed',
        references: msg.references ?? null,
        resumedAfter: null,
        replayed: 0,
      });
      return;
    }
    // Resumption: live events wait while what was missed is read from the durable record.
    client.pending = [];
    try {
      const last = await this.deps.events.findById(client.merchantId, msg.lastEventId);
      if (!last) {
        send(client, {
          type: 'error',
          code: 'EVENT_NOT_FOUND',
          message: socketMessages.unknownLastEvent[client.lang],
        });
        send(client, {
          type: 'subscribed',
          references: msg.references ?? null,
          resumedAfter: null,
          replayed: 0,
        });
        return;
      }
      const missed = (await this.deps.events.since(client.merchantId, last, MAX_REPLAY)).filter(
        (e) => !client.references || client.references.has(e.reference),
      );
      send(client, {
        type: 'subscribed',
        references: msg.references ?? null,
        resumedAfter: last.id,
        replayed: missed.length,
      });
      for (const e of missed) {
        if (client.ws.readyState !== client.ws.OPEN) break;
        deliver(client, toPublicEvent(e));
        // A replay goes at the client's pace (a burst would look like a slow consumer); live
        // events wait in `pending`, whose bound drops a client that does not keep up.
        if (client.ws.bufferedAmount > 0) await flushed(client);
      }
    } finally {
      const pending = client.pending;
      client.pending = null;
      for (const entry of pending) this.offer(client, entry);
    }
  }

  private fanOut(entry: FeedEntry): void {
    for (const client of this.byMerchant.get(entry.merchantId) ?? []) this.offer(client, entry);
  }

  private offer(client: Client, entry: FeedEntry): void {
    if (!client.subscribed || client.merchantId !== entry.merchantId) return;
    if (client.references && !client.references.has(entry.reference)) return;
    if (client.pending) {
      // Live events wait for a resumption to finish; a client that lets too many pile up is slow.
      if (client.pending.length >= client.maxQueued) return tooSlow(client, 'messages');
      client.pending.push(entry);
      return;
    }
    deliver(client, entry.event);
  }

  private beat(): void {
    const at = new Date().toISOString();
    for (const set of this.byMerchant.values())
      for (const client of set) {
        // No pong since the last beat: the connection is dead, whatever TCP says.
        if (!client.alive) {
          client.ws.terminate();
          continue;
        }
        client.alive = false;
        client.ws.ping();
        send(client, { type: 'heartbeat', at });
      }
  }
}

const hubs = new WeakMap<Express, RealtimeHub>();

/** The hub that buildApi made for this app; the caller attaches it to the listening server. */
export function realtimeOf(app: Express): RealtimeHub | undefined {
  return hubs.get(app);
}

/**
 * Registers the hub of this app: failed upgrades count against the app's per-address limit (with
 * its trusted proxies), and `limits` bound connections and re-check their access.
 */
export function registerRealtime(app: Express, hub: RealtimeHub, limits: Partial<RealtimeLimits> = {}): void {
  hub.configure(limits);
  hub.limitAddresses(
    addressLimiterOf(app) ?? null,
    app.get('trust proxy fn') as (addr: string, i: number) => boolean,
  );
  hubs.set(app, hub);
}
