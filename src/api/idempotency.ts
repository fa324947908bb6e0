import type { Request, RequestHandler, Response } from 'express';
import { ApiProblem } from '../contract/problems';
import { fieldMessages, problemAt, refundConflict } from '../contract/field-messages';
import { MAX_JSON_DEPTH, tooDeep } from './json-body';
import type { IdempotencyRecord, IdempotencyStore } from '../persistence/idempotency-keys';
import type { KeyRing } from '../security/key-ring';
import { fingerprintKid, fingerprintOf } from '../security/request-fingerprint';

// X-Idempotency-Key on every POST: the first request with a key runs; a retry of the same request
// gets the stored answer; a different request with that key, or one while the first runs, gets 409.

declare module 'express-serve-static-core' {
  interface Request {
    /** The (lower-cased) X-Idempotency-Key of a POST that owns its claim. */
    idempotencyKey?: string;
    /**
     * requestFingerprint() of that POST, for the handler to keep on what it creates: once the
     * idempotency record is gone (24 h, or released after a 5xx), a same-key retry with another
     * body is still told apart from the request that created the resource.
     */
    idempotencyFingerprint?: string;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const headerPath = 'headers.x-idempotency-key';

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /**
   * How long a claim stays locked without news of its owner: renewed every third of it while the
   * request runs, so only a claim whose process died (or stalled that long) is taken over.
   */
  lockMs?: number;
  /** A request still running after this long stops renewing its claim (a handler that hangs). */
  maxHoldMs?: number;
  /** Expired records are swept at most this often, lazily, on the back of a POST. */
  sweepEveryMs?: number;
  log?: (err: unknown) => void;
  /** Keys the request fingerprints (DATA_ENCRYPTION_KEYS); without them a plain SHA-256. */
  fingerprintKeys?: KeyRing;
}

/**
 * JSON with object keys sorted at every depth: the same body however its keys were ordered.
 * Bodies are limited to MAX_JSON_DEPTH where they are parsed; the walk refuses deeper values
 * itself too, so a caller that skipped the parser cannot overflow the stack.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value !== null && typeof value === 'object' && depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestFingerprint(
  req: Pick<Request, 'method' | 'originalUrl' | 'body'>,
  keys?: KeyRing,
  kid?: string,
): string {
  return fingerprintOf(`${req.method}\n${req.originalUrl}\n${canonicalJson(req.body)}`, keys, kid);
}

/** Whether a stored claim's fingerprint is this request's, made again under the key it was made with. */
function sameRequest(stored: string, req: Request, keys: KeyRing | undefined, current: string): boolean {
  const kid = fingerprintKid(stored);
  if (kid === fingerprintKid(current)) return stored === current;
  if (kid && keys?.has(kid)) return stored === requestFingerprint(req, keys, kid);
  // Made before keys, or under a key since dropped: only a plain hash can still be compared.
  return !kid && stored === requestFingerprint(req);
}

/**
 * Which answers are kept for replay. A 400 means the request was refused before anything began,
 * so the key is given back and the client may fix the body and retry with it; a 5xx (and a 429)
 * is given back too, so a retry runs again (our handlers are idempotent by business reference,
 * so a retry after a partial effect completes it). Everything else, 2xx and business 4xx, is kept.
 */
export function isReplayable(status: number): boolean {
  return status < 500 && status !== 400 && status !== 429;
}

export function idempotency(opts: IdempotencyOptions): RequestHandler {
  const lockMs = opts.lockMs ?? 30_000;
  const maxHoldMs = opts.maxHoldMs ?? 60 * 60_000;
  const sweepEveryMs = opts.sweepEveryMs ?? 60 * 60 * 1000;
  const log = opts.log ?? (() => undefined);
  let lastSweep = 0;
  // Kept answers being stored by this process, by merchant and key: a retry reaching this process
  // while its answer is stored waits for it rather than meeting the in-progress claim.
  const storing = new Map<string, Promise<unknown>>();

  const replay = (res: Response, record: IdempotencyRecord): void => {
    res.status(record.status!).set('Idempotent-Replayed', 'true');
    if (record.contentType) res.set('Content-Type', record.contentType);
    res.send(record.body ?? '');
  };

  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    const run = async (): Promise<void> => {
      const key = readKey(req);
      const merchantId = req.merchantId;
      if (!merchantId) throw new Error('idempotency middleware mounted before authentication');
      const fingerprint = requestFingerprint(req, opts.fingerprintKeys);

      if (Date.now() - lastSweep > sweepEveryMs) {
        lastSweep = Date.now();
        opts.store.sweepExpired().catch(log);
      }

      const pending = storing.get(`${merchantId}\n${key}`);
      if (pending) await pending;
      let claim = await opts.store.claim(merchantId, key, fingerprint, lockMs);
      while (claim.outcome === 'existing') {
        const record = claim.record;
        if (!sameRequest(record.fingerprint, req, opts.fingerprintKeys, fingerprint)) throw keyReused(req);
        if (record.state === 'completed') return replay(res, record);
        if (record.lockedUntil.getTime() > Date.now()) {
          // The first request usually ends within milliseconds: retrying after a second is enough.
          throw new ApiProblem('REQUEST_IN_PROGRESS', { headers: { 'Retry-After': '1' } });
        }
        claim = await opts.store.takeOver(record, fingerprint, lockMs);
      }

      const owned = { claimId: claim.claimId, lockedUntil: claim.lockedUntil };
      // The claim is renewed while the handler runs: a same-key retry arriving after the first lock
      // period would otherwise take it over and run beside a request that is merely slow (a bulk
      // payout). Renewals are chained and awaited before the answer is stored: FerretDB's updates
      // replace the whole document, so a renewal overlapping the completion could undo it.
      let renewing: Promise<unknown> = Promise.resolve();
      const startedAt = Date.now();
      const heartbeat = setInterval(() => {
        if (Date.now() - startedAt > maxHoldMs) return clearInterval(heartbeat);
        renewing = renewing
          .then(() => opts.store.renew(merchantId, key, owned, lockMs))
          .then((renewed) => {
            if (renewed) owned.lockedUntil = renewed.lockedUntil;
          })
          .catch(log);
      }, lockMs / 3);
      heartbeat.unref();
      // An answer sent without res.send (res.end) ends the request too; a client that went away
      // does not: its handler still runs, so its claim is kept.
      res.once('finish', () => clearInterval(heartbeat));
      const stopRenewing = (): Promise<unknown> => {
        clearInterval(heartbeat);
        return renewing;
      };
      req.idempotencyKey = key;
      req.idempotencyFingerprint = fingerprint;
      // A kept answer is stored as it is sent, not before: creation answers after three round trips
      // to the store, not four. A retry reaching this process meanwhile waits for it (`storing`);
      // one reaching another process in those milliseconds meets the in-progress claim, a 409 with
      // Retry-After. A released key is released before the answer, so a corrected retry finds it free.
      const send = res.send.bind(res);
      let settled = false;
      res.send = (body?: unknown) => {
        if (settled || !(typeof body === 'string' || Buffer.isBuffer(body) || body === undefined)) {
          // Objects go through res.json, which calls res.send again with the serialized string.
          return send(body);
        }
        settled = true;
        const status = res.statusCode;
        const text = body === undefined ? '' : typeof body === 'string' ? body : body.toString('utf8');
        const contentType = res.get('Content-Type') ?? null;
        // If storing fails the claim stays in progress until its lock expires; then a retry runs
        // the request again, which our idempotent handlers answer with the same resource.
        if (isReplayable(status)) {
          const id = `${merchantId}\n${key}`;
          const stored = stopRenewing()
            .then(() => opts.store.complete(merchantId, key, owned, { status, contentType, body: text }))
            .catch(log)
            .finally(() => {
              if (storing.get(id) === stored) storing.delete(id);
            });
          storing.set(id, stored);
          send(body);
          return res;
        }
        void stopRenewing()
          .then(() => opts.store.release(merchantId, key, owned))
          .catch(log)
          .then(() => send(body))
          .catch(log);
        return res;
      };
      next();
    };
    run().catch(next);
  };
}

// The refund interface names this case itself: 409 "Duplicate refund; use a different idempotency
// key" (docs/decisions/refunds/conflicts-answer-duplicate-refund.md); every other POST answers
// IDEMPOTENCY_KEY_REUSED.
const refundPath = /^\/v1\/payin\/[^/]+\/refund\/?$/;
function keyReused(req: Request): ApiProblem {
  return refundPath.test(req.originalUrl.split('?')[0]!)
    ? refundConflict.keyReused()
    : new ApiProblem('IDEMPOTENCY_KEY_REUSED');
}

function readKey(req: Request): string {
  const raw = req.get('X-Idempotency-Key')?.trim();
  if (!raw) {
    throw problemAt('IDEMPOTENCY_KEY_MISSING', headerPath, fieldMessages.required);
  }
  if (!uuidPattern.test(raw)) {
    throw problemAt('IDEMPOTENCY_KEY_INVALID', headerPath, fieldMessages.notAUuid);
  }
  return raw.toLowerCase();
}
