import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { HttpCore } from './core.js';
import type { WebhookEvent } from './types.js';

// The event stream (GET /v1/ws, docs/events.md): subscribe, receive events, and on a dropped
// connection reconnect and resume after the last event received (`lastEventId`), so nothing
// recorded meanwhile is missed. Node 20 has no global WebSocket, hence the `ws` package.

export interface StreamOptions {
  /** Only the events of these references (default: every transaction of the merchant). */
  references?: string[];
  /** Resume after this event: the events recorded after it come first (up to 1000). */
  lastEventId?: string;
  /** Reconnect and resume when the connection drops (default true). */
  reconnect?: boolean;
  /** Most reconnections in a row before giving up (default 10). */
  maxReconnects?: number;
}

export interface Subscribed {
  type: 'subscribed';
  references: string[] | null;
  resumedAfter: string | null;
  replayed: number;
}

type Message =
  | { type: 'ready'; heartbeatMs: number }
  | Subscribed
  | { type: 'event'; event: WebhookEvent }
  | { type: 'heartbeat'; at: string }
  | { type: 'pong' }
  | { type: 'error'; code: string; message?: string };

/**
 * Events: `event` (WebhookEvent), `subscribed` (Subscribed), `reconnecting` (attempt number),
 * `error` (Error), `close`. Also an async iterable of events: `for await (const e of stream)`.
 */
export class EventStream extends EventEmitter implements AsyncIterable<WebhookEvent> {
  /** The id of the last event received: where a resume starts. */
  lastEventId: string | undefined;
  private socket: WebSocket | undefined;
  private closed = false;
  private reconnects = 0;
  private readonly seen = new Set<string>();

  constructor(
    private readonly core: HttpCore,
    private readonly options: StreamOptions = {},
  ) {
    super();
    this.lastEventId = options.lastEventId;
  }

  /** The stream's URL (ws:// or wss://). */
  get url(): string {
    return this.core.url('openEventStream').replace(/^http/, 'ws');
  }

  /** Opens the connection; resolves once subscribed. */
  connect(): Promise<Subscribed> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, {
        headers: {
          Authorization: this.core.authorization,
          'Accept-Language': this.core.options.acceptLanguage ?? 'en',
        },
        handshakeTimeout: this.core.options.timeoutMs,
      });
      this.socket = socket;
      let subscribed = false;
      socket.on('message', (raw) => {
        let message: Message;
        try {
          message = JSON.parse((raw as Buffer).toString('utf8')) as Message;
        } catch {
          return;
        }
        switch (message.type) {
          case 'ready':
            socket.send(
              JSON.stringify({
                type: 'subscribe',
                ...(this.options.references ? { references: this.options.references } : {}),
                ...(this.lastEventId ? { lastEventId: this.lastEventId } : {}),
              }),
            );
            break;
          case 'subscribed':
            subscribed = true;
            this.reconnects = 0;
            this.emit('subscribed', message);
            resolve(message);
            break;
          case 'event':
            // A resume may send again an event seen just before the drop: deliver each once.
            if (this.seen.has(message.event.id)) break;
            this.seen.add(message.event.id);
            if (this.seen.size > 10_000) this.seen.delete(this.seen.values().next().value as string);
            this.lastEventId = message.event.id;
            this.emit('event', message.event);
            break;
          case 'error': {
            const err = new Error(`event stream: ${message.code}`);
            if (!subscribed) reject(err);
            else if (this.listenerCount('error') > 0) this.emit('error', err);
            break;
          }
          default:
            break;
        }
      });
      socket.on('error', (err) => {
        if (!subscribed) reject(err);
      });
      socket.on('close', () => {
        if (this.closed) return;
        if (!subscribed) return;
        this.scheduleReconnect();
      });
    });
  }

  private scheduleReconnect(): void {
    const max = this.options.maxReconnects ?? 10;
    if (this.options.reconnect === false || this.reconnects >= max) {
      this.closed = true;
      this.emit('close');
      return;
    }
    this.reconnects += 1;
    const delay = Math.min(10_000, 250 * 2 ** (this.reconnects - 1)) * (0.5 + Math.random() / 2);
    this.emit('reconnecting', this.reconnects);
    setTimeout(() => {
      if (this.closed) return;
      this.connect().catch(() => this.scheduleReconnect());
    }, delay).unref();
  }

  /** Drops the connection as a network failure would (tests of the resume). */
  dropConnection(): void {
    this.socket?.terminate();
  }

  /** Closes for good. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket?.close();
    this.emit('close');
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WebhookEvent> {
    const queue: WebhookEvent[] = [];
    let wake: (() => void) | undefined;
    const onEvent = (event: WebhookEvent) => {
      queue.push(event);
      wake?.();
    };
    const onClose = () => wake?.();
    this.on('event', onEvent);
    this.on('close', onClose);
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as WebhookEvent;
        if (this.closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      this.off('event', onEvent);
      this.off('close', onClose);
    }
  }
}
