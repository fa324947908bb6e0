import { createHmac } from 'node:crypto';
import { Command, Option } from 'commander';
import WebSocket from 'ws';
import { CLOSE_KEY_REVOKED, CLOSE_MERCHANT_SUSPENDED, type ServerMessage } from '../api/ws-connection';
import { eventTypes, type EventType, type PublicEvent } from '../events/catalogue';
import { postWebhook, type SendResult } from '../webhooks/sender';
import { signedHeaders } from '../webhooks/signing';
import type { CliContext } from './context';

// `payments webhooks listen`: what `stripe listen` gives a merchant's developer. It follows the
// merchant's events on the API's WebSocket stream (GET /v1/ws, with the key pair), forwards each to
// a local URL signed as a webhook (Standard Webhooks, with a secret it prints), and prints the
// receiver's answer. It speaks only to the API: no database, no Temporal.

export class ListenError extends Error {}

export interface ListenOptions {
  apiUrl: string;
  apiKey: string;
  apiClient: string;
  forwardTo: string;
  /** whsec_…; derived from the key pair when omitted (deriveListenSecret). */
  secret?: string;
  /** Only these types are forwarded (all when omitted). */
  events?: EventType[];
  /** How long the receiver has to answer (the API's own default: 10 s). */
  timeoutMs?: number;
}

export interface ListenIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Aborting it stops listening: the forward under way finishes, then the promise resolves. */
  signal: AbortSignal;
}

/**
 * The signing secret of a key pair: the same at every run with the same pair, so a receiver's
 * configuration survives restarts (as `stripe listen`'s does), and it reveals nothing of the pair.
 */
export function deriveListenSecret(apiKey: string, apiClient: string): string {
  const mac = createHmac('sha256', apiClient).update(`payments webhooks listen\u0000${apiKey}`).digest();
  return `whsec_${mac.toString('base64')}`;
}

/** Comma-separated event types, each from the catalogue. */
export function parseEventFilter(text: string): EventType[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(eventTypes as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0)
    throw new ListenError(
      `unknown event type ${unknown.map((u) => `"${u}"`).join(', ') || '""'} in --events; one of: ${eventTypes.join(', ')}`,
    );
  return names as EventType[];
}

function checkSecret(secret: string): string {
  // Standard Webhooks: "whsec_" and the base64 of 24 to 64 random bytes.
  const key = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  const bytes = key ? Buffer.from(key, 'base64').length : 0;
  if (bytes < 24 || bytes > 64)
    throw new ListenError(
      '--secret must be a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 bytes',
    );
  return secret;
}

function checkForwardTo(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ListenError(`--forward-to is not a URL: "${text}" (e.g. http://localhost:8000/hook)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ListenError('--forward-to must be an http or https URL');
  return url;
}

function wsUrlOf(apiUrl: string): string {
  let url: URL;
  try {
    url = new URL('/v1/ws', apiUrl);
  } catch {
    throw new ListenError(`--api-url is not a URL: "${apiUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ListenError('--api-url must be an http or https URL');
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

const clock = () => new Date().toISOString().slice(11, 19);

/** The receiver's answer, as the line shows it. */
export function describeAnswer(sent: SendResult): string {
  const took = `${sent.latencyMs} ms`;
  if (sent.statusCode !== null) return `[${sent.statusCode}] (${took})`;
  return `[failed: ${sent.error ?? 'no answer'}] (${took})`;
}

/**
 * Listens until `io.signal` aborts (resolves) or the API refuses the key pair, cannot be reached at
 * the start, or closes the stream for good (rejects with a ListenError). A lost connection is
 * reopened and resumes after the last event seen, so nothing is missed in between.
 */
export async function listen(opts: ListenOptions, io: ListenIo): Promise<void> {
  const target = checkForwardTo(opts.forwardTo);
  const wsUrl = wsUrlOf(opts.apiUrl);
  if (!opts.apiKey || !opts.apiClient)
    throw new ListenError(
      'an API key pair is needed: set API_KEY and API_CLIENT, or pass --api-key and --api-client',
    );
  const secret =
    opts.secret !== undefined ? checkSecret(opts.secret) : deriveListenSecret(opts.apiKey, opts.apiClient);
  const only = opts.events ? new Set<string>(opts.events) : null;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const authorization = `Basic ${Buffer.from(`${opts.apiKey}:${opts.apiClient}`).toString('base64')}`;
  const mode = opts.apiKey.startsWith('mk_live_') ? 'live' : 'test';

  let lastEventId: string | undefined;
  let everSubscribed = false;
  let forwarding: Promise<void> = Promise.resolve();
  let ws: WebSocket | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;

  const forward = async (event: PublicEvent): Promise<void> => {
    const body = JSON.stringify(event);
    // The event id is the message id, as the API's own deliveries sign it.
    const headers = signedHeaders(event.id, body, [secret]);
    const sent = await postWebhook(target.toString(), headers, body, {
      timeoutMs,
      // The receiver is the developer's own machine: loopback and private addresses are the point.
      allowPrivateNetworks: true,
    });
    io.stdout(`${clock()}  --> ${event.type} [${event.id}]  <-- ${describeAnswer(sent)}`);
  };

  return new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      if (retryTimer) clearTimeout(retryTimer);
      io.signal.removeEventListener('abort', onAbort);
      ws?.removeAllListeners();
      ws?.on('error', () => undefined);
      if (ws && ws.readyState !== WebSocket.CLOSED) ws.close(1000, 'bye');
      // What was already received is still forwarded, then the promise settles.
      void forwarding.then(() => (err ? reject(err) : resolve()));
    };
    const onAbort = () => finish();
    if (io.signal.aborted) return finish();
    io.signal.addEventListener('abort', onAbort);

    const reconnect = (why: string) => {
      if (done) return;
      failures++;
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));
      io.stderr(`${clock()}  ${why}; reconnecting in ${Math.round(delay / 1000)} s`);
      retryTimer = setTimeout(connect, delay);
    };

    const connect = () => {
      if (done) return;
      const socket = new WebSocket(wsUrl, { headers: { authorization }, handshakeTimeout: 10_000 });
      ws = socket;
      socket.on('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        socket.removeAllListeners('close');
        socket.on('error', () => undefined);
        socket.terminate();
        if (status === 401)
          return finish(
            new ListenError(
              `the API at ${opts.apiUrl} refused the key pair (401): check API_KEY and API_CLIENT (or --api-key, --api-client)`,
            ),
          );
        if (!everSubscribed)
          return finish(new ListenError(`the API at ${opts.apiUrl} answered ${status} to ${wsUrl}`));
        reconnect(`the API answered ${status}`);
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        // Followed by `close`, which reconnects; only a first connection that fails ends here.
        if (!everSubscribed)
          finish(
            new ListenError(
              `cannot reach the API at ${opts.apiUrl} (${err.code ?? err.message}); is \`npm start\` running, or --api-url (API_URL) set?`,
            ),
          );
      });
      socket.on('close', (code: number, reason: Buffer) => {
        if (done) return;
        if (code === CLOSE_KEY_REVOKED || code === CLOSE_MERCHANT_SUSPENDED)
          return finish(new ListenError(`the API closed the stream: ${reason.toString() || code}`));
        if (!everSubscribed) return;
        reconnect(`connection lost (${code})`);
      });
      socket.on('message', (data: Buffer) => {
        let msg: ServerMessage;
        try {
          msg = JSON.parse(data.toString('utf8')) as ServerMessage;
        } catch {
          return;
        }
        if (msg.type === 'ready') {
          // After a reconnection, resume after the last event seen: the API replays what was missed.
          socket.send(JSON.stringify({ type: 'subscribe', ...(lastEventId ? { lastEventId } : {}) }));
        } else if (msg.type === 'subscribed') {
          failures = 0;
          if (!everSubscribed) {
            everSubscribed = true;
            io.stdout(
              `Ready! Forwarding ${mode}-mode events${only ? ` (${[...only].join(', ')})` : ''} to ${target.toString()}`,
            );
            io.stdout(`Your webhook signing secret is ${secret} (^C to quit)`);
          } else if (msg.replayed > 0)
            io.stderr(`${clock()}  reconnected; ${msg.replayed} missed events follow`);
          else io.stderr(`${clock()}  reconnected`);
        } else if (msg.type === 'event') {
          const event = msg.event;
          lastEventId = event.id;
          if (only && !only.has(event.type)) return;
          // One at a time, in the order the stream gave them, as a receiver would get them.
          forwarding = forwarding
            .then(() => forward(event))
            .catch((err: unknown) => {
              io.stderr(`${clock()}  could not forward ${event.id}: ${(err as Error).message}`);
            });
        } else if (msg.type === 'error') io.stderr(`${clock()}  the API says ${msg.code}: ${msg.message}`);
      });
    };
    connect();
  });
}

export function webhooksCommand(ctx: CliContext): Command {
  const webhooks = new Command('webhooks').description(
    "Webhook tools for a merchant's developer; they use the API only (your key pair), never the database.",
  );
  webhooks
    .command('listen')
    .description(
      'Forward your events, as they happen, to a local URL, signed like webhooks; print each with the answer.',
    )
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:8000/hook')
    .addOption(
      new Option('--api-url <url>', 'the payments API').env('API_URL').default('http://localhost:3000'),
    )
    .addOption(new Option('--api-key <key>', 'your API key (mk_test_…)').env('API_KEY'))
    .addOption(new Option('--api-client <secret>', 'its secret (sk_test_…)').env('API_CLIENT'))
    .option(
      '--secret <whsec>',
      'sign with this secret (default: one derived from the key pair, the same at every run)',
    )
    .option('--events <types>', `only these types, comma-separated (${eventTypes.join(', ')})`)
    .action(
      async (opts: {
        forwardTo: string;
        apiUrl: string;
        apiKey?: string;
        apiClient?: string;
        secret?: string;
        events?: string;
      }) => {
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          await listen(
            {
              apiUrl: opts.apiUrl,
              apiKey: opts.apiKey ?? '',
              apiClient: opts.apiClient ?? '',
              forwardTo: opts.forwardTo,
              ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
              ...(opts.events !== undefined ? { events: parseEventFilter(opts.events) } : {}),
            },
            {
              stdout: (line) => ctx.stdout(line),
              stderr: (line) => process.stderr.write(`${line}\n`),
              signal: stop.signal,
            },
          );
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      },
    );
  return webhooks;
}
