import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isAllowedAddress, type PrivateNetworkAccess, type Resolver } from './ssrf';

// One HTTP POST of a webhook: through the SSRF guard, within a timeout, never following a
// redirect (a 3xx is a failed attempt), reading at most a little of the answer.
//
// The error of a failed attempt is shown to the merchant (GET /v1/webhooks/{id}/deliveries), so it
// is a fixed reason, never the socket's message: "connect ECONNREFUSED 10.0.0.5:443" or "resolves
// to 127.0.0.1" would tell a merchant what an internal name resolves to (a probe of our network).

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: PrivateNetworkAccess;
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

export const NOT_PUBLIC = 'the address is not public';

/** A failed connection's reason as the delivery log shows it: from the error's code, without addresses. */
export function connectionFailure(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (code === 'EFORBIDDENDEST') return NOT_PUBLIC;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return 'the name did not resolve';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/.test(code))
    return `TLS failed (${code})`;
  return 'connection failed';
}

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
    return done({ statusCode: null, error: NOT_PUBLIC, retryAfterMs: null });

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
    req.on('error', (err) => finish({ statusCode: null, error: connectionFailure(err), retryAfterMs: null }));
    req.end(body);
  });
}
