import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Express, type Request, type RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { errorHandler, notFoundHandler, renderProblem, sendProblem } from './problem';
import { negotiateLanguage } from '../contract/i18n';
import type { Logger } from '../infra/logger';

// The codec server: the Temporal UI (from the browser) and the `temporal` CLI send it the sealed
// payloads of a history and get them back in clear, so people allowed to read histories still can
// while Temporal itself stores only ciphertext. Protocol: POST /decode and /encode with
// `{ "payloads": [...] }`, each payload in protobuf JSON form (metadata values and data base64).

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Bearer tokens accepted (CODEC_SERVER_TOKENS); only their SHA-256 is kept. */
  tokens: readonly string[];
  /** Browser origins allowed to call (the Temporal UI's), answered with CORS headers. */
  origins: readonly string[];
  /**
   * Development only (`npm start`): a caller on this machine needs no token, unless a browser says
   * it comes from a page of another origin. The embedded UI cannot add a bearer token.
   */
  openToLoopback: boolean;
  logger?: Logger;
}

// Protobuf JSON bytes: standard or URL-safe base64, padded or not (Buffer reads all four).
const bytes = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/);
const jsonPayload = z.object({
  metadata: z.record(z.string(), bytes).nullish(),
  data: bytes.nullish(),
});
const body = z.object({ payloads: z.array(jsonPayload).max(10_000) });
type JsonPayload = z.infer<typeof jsonPayload>;

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compares digests (same length whatever was sent) in constant time, against every token. */
function tokenMatcher(tokens: readonly string[]): (presented: string) => boolean {
  const digests = tokens.map(sha256);
  return (presented) => {
    const digest = sha256(presented);
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, digest) || ok;
    return ok;
  };
}

function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

export function createCodecServerApp(opts: CodecServerOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  const origins = new Set(opts.origins);
  const tokenOk = tokenMatcher(opts.tokens);

  // CORS for the UI: it sends JSON with an X-Namespace header, so the browser asks first (OPTIONS).
  const cors: RequestHandler = (req, res, next) => {
    const origin = req.get('origin');
    if (origin && origins.has(origin)) {
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Credentials': 'true',
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Namespace',
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      });
    } else res.set('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      res.status(origin && origins.has(origin) ? 204 : 403).end();
      return;
    }
    next();
  };

  const allowed = (req: Request): boolean => {
    const header = req.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m && opts.tokens.length > 0 && tokenOk(m[1]!)) return true;
    if (!opts.openToLoopback || !isLoopback(req.socket.remoteAddress)) return false;
    // A page of another site, in a browser on this machine, must not read histories through us.
    const origin = req.get('origin');
    return origin === undefined || origins.has(origin);
  };

  const authenticate: RequestHandler = (req, res, next) => {
    if (allowed(req)) return next();
    sendProblem(
      res,
      renderProblem('UNAUTHORIZED', negotiateLanguage(req), {
        detail: {
          en: 'Send Authorization: Bearer <token> with a token of the codec server.',
          fr: 'Envoyez Authorization: Bearer <jeton> avec un jeton du serveur de codec.',
        },
      }),
      { 'WWW-Authenticate': 'Bearer' },
    );
  };

  const route =
    (direction: 'encode' | 'decode'): RequestHandler =>
    async (req, res, next) => {
      const parsed = body.safeParse(req.body);
      const lang = negotiateLanguage(req);
      if (!parsed.success) {
        sendProblem(
          res,
          renderProblem('VALIDATION_ERROR', lang, {
            detail: {
              en: 'Send { "payloads": [...] }, each payload with base64 metadata values and data.',
              fr: 'Envoyez { "payloads": [...] }, chaque payload avec metadata et data en base64.',
            },
          }),
        );
        return;
      }
      try {
        const payloads = await opts.codec[direction](parsed.data.payloads.map(fromJson));
        res.json({ payloads: payloads.map(toJson) });
      } catch (err) {
        // A payload altered, or sealed with a key no longer in the ring: said without its content.
        opts.logger?.warn({ err: (err as Error).message, direction }, 'codec server: payload refused');
        if (direction === 'encode') return next(err);
        sendProblem(
          res,
          renderProblem('VALIDATION_ERROR', lang, {
            detail: {
              en: 'A payload could not be decoded (altered, or sealed with a key that is no longer configured).',
              fr: "Un payload n'a pas pu être décodé (altéré, ou scellé avec une clé qui n'est plus configurée).",
            },
          }),
        );
      }
    };

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(cors);
  app.post('/decode', authenticate, express.json({ limit: '8mb' }), route('decode'));
  app.post('/encode', authenticate, express.json({ limit: '8mb' }), route('encode'));
  app.use(notFoundHandler);
  app.use(errorHandler((err) => opts.logger?.error({ err }, 'codec server error')));
  return app;
}

export interface RunningCodecServer {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

export async function startCodecServer(
  opts: CodecServerOptions & { host: string; port: number },
): Promise<RunningCodecServer> {
  const app = createCodecServerApp(opts);
  const server = await new Promise<Server>((res, rej) => {
    const s = app.listen(opts.port, opts.host, () => res(s));
    s.once('error', rej);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    server,
    stop: () => new Promise<void>((res) => server.close(() => res())),
  };
}

/** The embedded UI's origins (`npm start`): where the browser says the UI page comes from. */
export function embeddedUiOrigins(uiPort: number): string[] {
  return [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
}
