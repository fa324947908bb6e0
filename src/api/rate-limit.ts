import type { IncomingMessage } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { MemoryStore, ipKeyGenerator, rateLimit, type AugmentedRequest } from 'express-rate-limit';
import { ApiProblem } from '../contract/problems';

// Requests per merchant per minute, counted in this process: with several API replicas each counts
// its own. Kept so on purpose (docs/decisions/api/rate-limit-per-merchant.md): the shared store of
// the limits that protect (src/persistence/shared-limits.ts) would cost a write on every request.

/**
 * Mounted after authentication: the key is the merchant in the mode of its key (its scope), never the
 * caller's IP, so test traffic never eats the live budget.
 */
export function merchantRateLimit(perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    // IETF draft-8: `RateLimit` and `RateLimit-Policy` (partition key hashed), plus Retry-After on 429.
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'merchant',
    keyGenerator: (req) => req.merchantId ?? '',
    handler: (_req, _res, next) => next(new ApiProblem('RATE_LIMITED')),
  });
}

const windowMs = 60_000;

/**
 * Failed authentications per client address per minute, checked before authenticating: past the
 * limit, the address gets 429 without any credential lookup. Only failures count, so a busy
 * merchant behind one address (or many merchants behind one NAT) is never throttled by it; an
 * address probing keys is. The API's 401s and the WebSocket's refused upgrades share one count.
 */
export class AddressLimiter {
  private readonly store = new MemoryStore();

  constructor(readonly perMinute: number) {
    this.store.init({ windowMs } as Parameters<MemoryStore['init']>[0]);
  }

  /** Mounted before authentication; a request that authenticated is not counted. */
  middleware(): RequestHandler {
    return rateLimit({
      windowMs,
      limit: this.perMinute,
      store: this.store,
      // The merchant limit's headers describe the caller's budget; this one is not a budget.
      standardHeaders: false,
      legacyHeaders: false,
      keyGenerator: (req) => addressKey(req.ip ?? ''),
      // addressKey applies ipKeyGenerator (the check looks for it in this function's text).
      validate: { keyGeneratorIpFallback: false },
      skipSuccessfulRequests: true,
      requestWasSuccessful: (req) => req.merchantId !== undefined,
      handler: (req, _res, next) => {
        const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + windowMs;
        const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
        next(new ApiProblem('RATE_LIMITED', { headers: { 'Retry-After': String(seconds) } }));
      },
    });
  }

  /** Whether this address used up its failures (the WebSocket upgrade asks before authenticating). */
  async refuses(address: string): Promise<boolean> {
    const info = await this.store.get(addressKey(address));
    return (info?.totalHits ?? 0) >= this.perMinute;
  }

  async failed(address: string): Promise<void> {
    await this.store.increment(addressKey(address));
  }

  shutdown(): void {
    this.store.shutdown();
  }
}

/** IPv6 clients are counted per /56, as they usually hold a whole prefix. */
function addressKey(address: string): string {
  return address ? ipKeyGenerator(address) : 'unknown';
}

/**
 * The client address of a raw request (a WebSocket upgrade never reaches express), the way express
 * computes req.ip: walk X-Forwarded-For from the peer while each hop is a trusted proxy.
 */
export function clientAddress(
  req: IncomingMessage,
  trust: ((addr: string, i: number) => boolean) | null,
): string {
  const peer = req.socket.remoteAddress ?? '';
  if (!trust) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .reverse();
  const hops = [peer, ...forwarded];
  for (let i = 0; i < hops.length - 1; i++) if (!trust(hops[i]!, i)) return hops[i]!;
  return hops[hops.length - 1]!;
}

const limiters = new WeakMap<Express, AddressLimiter>();

export function registerAddressLimiter(app: Express, limiter: AddressLimiter): void {
  limiters.set(app, limiter);
}

/** The per-address limiter of this app (none when disabled). */
export function addressLimiterOf(app: Express): AddressLimiter | undefined {
  return limiters.get(app);
}
