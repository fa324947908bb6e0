import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { parseBasic, type Authenticator } from './auth';
import { toPublicEvent, type PublicEvent } from '../events/catalogue';
import type { EventFeed } from '../events/event-feed';
import type { EventStore, FeedEntry } from '../events/event-store';
import type { WsTokenStore } from '../persistence/ws-tokens';

// GET /v1/ws: the merchant's events, live. Authenticated like the API (Basic) or, from a browser,
// with a single-use token (?token=, from POST /v1/ws/tokens). The client subscribes to all its
// transactions or to references, optionally resuming after the last event id it saw; events come
// from the durable feed (see events/event-feed.ts), never from another merchant.

export const WS_PATH = '/v1/ws';
const MAX_REPLAY = 1000;
/** A client that lets this much pile up is dropped; it resumes with its last event id. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

const clientMessage = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('subscribe'),
    /** Omitted: every transaction of the merchant. */
    references: z.array(z.string().min(1).max(100)).max(1000).optional(),
    lastEventId: z.string().max(100).optional(),
  }),
  z.strictObject({ type: z.literal('ping') }),
]);

export type ServerMessage =
  | { type: 'ready'; heartbeatMs: number }
  | { type: 'subscribed'; references: string[] | null; resumedAfter: string | null; replayed: number }
  | { type: 'event'; event: PublicEvent }
  | { type: 'heartbeat'; at: string }
  | { type: 'pong' }
  | { type: 'error'; code: string; message: string };

interface Client {
  ws: WebSocket;
  merchantId: string;
  alive: boolean;
  references: Set<string> | null;
  subscribed: boolean;
  /** While a resumption replays, live events wait here. */
  pending: FeedEntry[] | null;
  sent: Set<string>;
  queue: Promise<void>;
}

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

  constructor(private readonly deps: RealtimeDeps) {}

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
  }

  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.unsubscribe?.();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((res) => this.wss.close(() => res()));
    await this.deps.feed.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return refuse(socket, 404, 'Not Found');
    let merchantId: string | null = null;
    try {
      const token = url.searchParams.get('token');
      const basic = parseBasic(req.headers.authorization);
      if (basic) merchantId = await this.deps.authenticate(basic.apiKey, basic.apiClient);
      else if (token) merchantId = await this.deps.tokens.consume(token);
    } catch (err) {
      this.deps.logger.error({ err }, 'websocket authentication failed');
      return refuse(socket, 503, 'Service Unavailable');
    }
    if (!merchantId)
      return refuse(socket, 401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="payments"' });
    const id = merchantId;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, id));
  }

  private connected(ws: WebSocket, merchantId: string): void {
    this.startTailing();
    const client: Client = {
      ws,
      merchantId,
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
          send(client, { type: 'error', code: 'INTERNAL_ERROR', message: 'Server error; reconnect later.' });
        });
    });
    send(client, { type: 'ready', heartbeatMs: this.deps.heartbeatMs });
  }

  private async onMessage(client: Client, text: string | null): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text ?? '');
    } catch {
      return send(client, { type: 'error', code: 'MALFORMED_JSON', message: 'Send JSON text messages.' });
    }
    const parsed = clientMessage.safeParse(json);
    if (!parsed.success)
      return send(client, {
        type: 'error',
        code: 'VALIDATION_ERROR',
        message:
          'Expected {"type":"subscribe","references"?:[...],"lastEventId"?:"evt_..."} or {"type":"ping"}.',
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
          message: 'Unknown lastEventId: live events only; read GET /v1/events for history.',
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
      for (const e of missed) deliver(client, toPublicEvent(e));
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

function send(client: Client, msg: ServerMessage): void {
  if (client.ws.readyState !== client.ws.OPEN) return;
  if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
    client.ws.close(1013, 'too slow: reconnect and resume with lastEventId');
    return;
  }
  client.ws.send(JSON.stringify(msg));
}

/** Each event once per connection, whether it came from the replay or the live feed. */
function deliver(client: Client, event: PublicEvent): void {
  if (client.sent.has(event.id)) return;
  client.sent.add(event.id);
  if (client.sent.size > 10_000) client.sent.delete(client.sent.values().next().value!);
  send(client, { type: 'event', event });
}

function refuse(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
}

const hubs = new WeakMap<Express, RealtimeHub>();

/** The hub that buildApi made for this app; the caller attaches it to the listening server. */
export function realtimeOf(app: Express): RealtimeHub | undefined {
  return hubs.get(app);
}

export function registerRealtime(app: Express, hub: RealtimeHub): void {
  hubs.set(app, hub);
}
