import type { WebSocket } from 'ws';
import type { Language } from '../contract/i18n';
import type { PublicEvent } from '../events/catalogue';
import type { FeedEntry } from '../events/event-store';

// One WebSocket connection of the realtime hub (ws.ts) and what is written to it: each message
// counted until the socket took it, so that a slow consumer is closed instead of piling up memory.

/** Application close codes (RFC 6455 4000-4999 are private use); reasons never carry a secret. */
export const CLOSE_KEY_REVOKED = 4001;
export const CLOSE_MERCHANT_SUSPENDED = 4003;
/** Try again later (RFC 6455): too slow a consumer; it reconnects and resumes with lastEventId. */
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** A client that lets this much pile up is dropped; it resumes with its last event id. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export type ServerMessage =
  | { type: 'ready'; heartbeatMs: number }
  | { type: 'subscribed'; references: string[] | null; resumedAfter: string | null; replayed: number }
  | { type: 'event'; event: PublicEvent }
  | { type: 'heartbeat'; at: string }
  | { type: 'pong' }
  | { type: 'error'; code: string; message: string };

export interface Client {
  ws: WebSocket;
  merchantId: string;
  /** The key it authenticated with (null: a browser token issued before keys were recorded). */
  apiKey: string | null;
  /** The language of the upgrade's Accept-Language: `error` messages are written in it. */
  lang: Language;
  /** Messages given to ws.send whose write has not completed (the slow-consumer bound). */
  unsent: number;
  maxQueued: number;
  /** Waiting for every message sent so far to be written (see flushed). */
  drained: (() => void)[];
  alive: boolean;
  references: Set<string> | null;
  subscribed: boolean;
  /** While a resumption replays, live events wait here. */
  pending: FeedEntry[] | null;
  sent: Set<string>;
  queue: Promise<void>;
}

export function send(client: Client, msg: ServerMessage): void {
  if (client.ws.readyState !== client.ws.OPEN) return;
  // Writes complete asynchronously, so a burst counts as unsent until the next tick even when the
  // kernel took it all: the client is slow only if bytes are also waiting in this process.
  const waiting = client.ws.bufferedAmount;
  if (client.unsent >= client.maxQueued && waiting > 0) return tooSlow(client, 'messages');
  if (waiting > MAX_BUFFERED_BYTES) return tooSlow(client, 'bytes');
  client.unsent++;
  // The callback runs once the frame is written to the socket (or the socket failed).
  client.ws.send(JSON.stringify(msg), () => {
    client.unsent--;
    if (client.unsent === 0) for (const wake of client.drained.splice(0)) wake();
  });
}

/** Resolves once every message sent so far is written to the socket, or the connection closed. */
export function flushed(client: Client): Promise<void> {
  if (client.unsent === 0 || client.ws.readyState !== client.ws.OPEN) return Promise.resolve();
  return new Promise((resolve) => client.drained.push(resolve));
}

/** Messages pile up faster than the client reads them: drop it; it resumes from its last event id. */
export function tooSlow(client: Client, what: 'messages' | 'bytes'): void {
  closeClient(
    client,
    CLOSE_TRY_AGAIN_LATER,
    `too many unsent ${what}: reconnect and resume with lastEventId`,
  );
}

/**
 * Sends a close frame. A client that does not read it (a slow one: the frame waits behind what it
 * has not read) is cut off by ws itself 30 s later, which frees what was queued for it.
 */
export function closeClient(client: Client, code: number, reason: string): void {
  if (client.ws.readyState === client.ws.OPEN) client.ws.close(code, reason);
}

/** Each event once per connection, whether it came from the replay or the live feed. */
export function deliver(client: Client, event: PublicEvent): void {
  if (client.sent.has(event.id)) return;
  client.sent.add(event.id);
  if (client.sent.size > 10_000) client.sent.delete(client.sent.values().next().value!);
  send(client, { type: 'event', event });
}
