import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isAllowedAddress, type Resolver } from './ssrf';

// One HTTP POST of a webhook: through the SSRF guard, within a timeout, never following a
// redirect (a 3xx is a failed attempt), reading at most a little of the answer.

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  resolve?: Resolver;
}

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** From a Retry-After header, in milliseconds. */
  retryAfterMs: number | null;
}

const MAX_BODY = 4096;

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  opts: SendOptions,
): Promise<SendResult> {
  const started = Date.now();
  const done = (r: Omit<SendResult, 'latencyMs'>): SendResult => ({ ...r, latencyMs: Date.now() - started });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done({ statusCode: null, error: 'invalid URL', retryAfterMs: null });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return done({ statusCode: null, error: 'only http and https are allowed', retryAfterMs: null });
  if (url.username || url.password)
    return done({ statusCode: null, error: 'credentials in the URL are not allowed', retryAfterMs: null });
  // A literal IP never goes through `lookup`, so it is checked here.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !isAllowedAddress(literal, opts.allowPrivateNetworks))
    return done({ statusCode: null, error: `${literal} is not an allowed destination`, retryAfterMs: null });

  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(opts.allowPrivateNetworks, opts.resolve),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'momo-payments-webhooks/1',
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_BODY) res.destroy();
        });
        const statusCode = res.statusCode ?? null;
        const retryAfter: string | undefined = res.headers['retry-after'];
        const complete = () =>
          finish({
            statusCode,
            error: statusCode && statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`,
            retryAfterMs: parseRetryAfter(retryAfter),
          });
        res.on('end', complete);
        res.on('close', complete);
        res.on('error', complete);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, error: `no answer within ${opts.timeoutMs}ms`, retryAfterMs: null });
    }, opts.timeoutMs);
    req.on('error', (err) => finish({ statusCode: null, error: err.message, retryAfterMs: null }));
    req.end(body);
  });
}
