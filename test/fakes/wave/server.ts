// A faithful fake of Wave's Checkout and Payout APIs (docs.wave.com/checkout, /payout, /webhook):
// Wave's own routes, Bearer API keys, error bodies `{ code, message }`, statuses and webhooks signed
// `Wave-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + body)>`. It runs as its own process
// (main.ts) so a contract test talks to it over the network only.
//
// Behaviour by the phone number's last two digits (checkout: restrict_payer_mobile; payout: mobile):
//   | ends in | checkout session                                   | payout                               |
//   |---------|----------------------------------------------------|--------------------------------------|
//   | 11      | payment attempt fails (insufficient-funds) after   | failed at once (recipient-limit-     |
//   |         | ~100 ms, session expired, payment_failed webhook   | exceeded)                            |
//   | 22      | stays open (processing) until expired              | stays processing                     |
//   | other   | paid after ~100 ms (complete/succeeded), completed | processing, succeeded after ~100 ms  |
//   |         | webhook                                            |                                      |
// Refunds (POST /v1/checkout/sessions/:id/refund) refund the whole session at once and show it as
// payment_status `refunded` (docs/connectors/wave.md says why this is our reading).
//
// Control endpoints (no auth), for contract tests:
//   POST /__fake/faults {count, status|hangMs, path?}: the next `count` API requests (to `path`
//        only, when given) answer `status` (500, 429…) without doing anything, or are done but
//        answered only after `hangMs`.
//   POST /__fake/drop-callbacks {count}: the next `count` webhooks are not sent.
//   POST /__fake/expire-keys: the current API key is revoked (401 invalid-auth from then on).
//   GET  /__fake/received: the API requests received (method, path, idempotency key).
//   GET  /__fake/undocumented: requests refused (400) for a field or endpoint the reference does not document.
//   GET  /__fake/state: sessions and payouts held.

import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { undocumented } from '../../../src/operators/connectors/wave/wire';

export interface WaveFakeOptions {
  port?: number;
  /** The Bearer key the fake accepts (both APIs). */
  apiKey: string;
  /** The webhook signing secret it signs with. */
  webhookSecret: string;
  /** Where it POSTs webhooks; none = no webhooks. */
  callbackUrl?: string | null;
  /** Delay before a number's scripted outcome (default 100 ms). */
  settleMs?: number;
}

interface Session {
  id: string;
  amount: string;
  currency: string;
  client_reference: string | null;
  checkout_status: 'open' | 'complete' | 'expired';
  payment_status: 'processing' | 'succeeded' | 'cancelled' | 'refunded';
  last_payment_error: { code: string; message: string } | null;
  transaction_id: string | null;
  success_url: string;
  error_url: string;
  restrict_payer_mobile: string | null;
  business_name: string;
  wave_launch_url: string;
  when_created: string;
  when_completed: string | null;
  when_expires: string;
}

interface Payout {
  id: string;
  currency: string;
  receive_amount: string;
  fee: string;
  mobile: string;
  client_reference: string | null;
  status: 'processing' | 'succeeded' | 'failed' | 'reversed';
  payout_error: { error_code: string; error_message: string } | null;
  timestamp: string;
}

const newId = (prefix: string) => `${prefix}-${randomBytes(7).toString('hex')}`;
const fail = (res: Response, status: number, code: string, message: string) =>
  void res.status(status).json({ code, message });

export function signWave(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}${body}`).digest('hex');
}

export async function startWaveFake(opts: WaveFakeOptions): Promise<{ url: string; close(): Promise<void> }> {
  const settleMs = opts.settleMs ?? 100;
  let apiKey: string | null = opts.apiKey;
  const sessions = new Map<string, Session>();
  const payouts = new Map<string, Payout>();
  const idempotency = new Map<string, { body: string; id: string }>();
  const received: Array<{ method: string; path: string; idempotencyKey: string | null }> = [];
  const undocumentedRequests: string[] = [];
  let faults: { count: number; status?: number; hangMs?: number; path?: string } = { count: 0 };
  let dropCallbacks = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  async function sendWebhook(type: string, s: Session): Promise<void> {
    if (!opts.callbackUrl) return;
    if (dropCallbacks > 0) {
      dropCallbacks--;
      return;
    }
    const body = JSON.stringify({ id: newId('EV'), type, data: s });
    const t = Math.floor(Date.now() / 1000);
    try {
      await fetch(opts.callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'wave-signature': `t=${t},v1=${signWave(opts.webhookSecret, t, body)}`,
        },
        body,
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      // Wave retries failed deliveries; the fake does not (tests read status instead).
    }
  }

  const app = express();
  app.use(express.json());

  // ---- control ----
  app.post('/__fake/faults', (req, res) => {
    faults = {
      count: Number(req.body?.count ?? 1),
      status: req.body?.status,
      hangMs: req.body?.hangMs,
      path: req.body?.path,
    };
    res.json({ ok: true });
  });
  app.post('/__fake/drop-callbacks', (req, res) => {
    dropCallbacks = Number(req.body?.count ?? 1);
    res.json({ ok: true });
  });
  app.post('/__fake/expire-keys', (_req, res) => {
    apiKey = null;
    res.json({ ok: true });
  });
  app.get('/__fake/received', (_req, res) => void res.json(received));
  app.get('/__fake/undocumented', (_req, res) => void res.json(undocumentedRequests));
  app.get(
    '/__fake/state',
    (_req, res) => void res.json({ sessions: [...sessions.values()], payouts: [...payouts.values()] }),
  );

  // ---- Wave: authentication, faults ----
  app.use('/v1', (req: Request, res: Response, next: NextFunction) => {
    received.push({
      method: req.method,
      path: req.originalUrl,
      idempotencyKey: req.get('idempotency-key') ?? null,
    });
    const auth = req.get('authorization');
    if (!auth) return fail(res, 401, 'missing-auth-header', 'Missing Authorization header');
    if (!apiKey || auth !== `Bearer ${apiKey}`) return fail(res, 401, 'invalid-auth', 'Invalid API key');
    // Only what the reference documents for the endpoint (src/operators/connectors/wave/wire.ts);
    // a refusal is kept for the connector's conformance test.
    const departure = undocumented(req.method, req.originalUrl.split('?')[0]!, req.body);
    if (departure) {
      undocumentedRequests.push(departure);
      return fail(res, 400, 'request-validation-error', departure);
    }
    if (faults.count > 0 && (!faults.path || req.originalUrl.split('?')[0] === faults.path)) {
      faults.count--;
      if (faults.status)
        return fail(
          res,
          faults.status,
          faults.status === 429 ? 'rate-limit-exceeded' : 'internal-server-error',
          'fault',
        );
      if (faults.hangMs) {
        const hang = faults.hangMs;
        const end = res.end.bind(res) as (...args: unknown[]) => Response;
        // Done now, answered late: the caller times out although Wave acted.
        res.end = ((...args: unknown[]) => {
          later(() => end(...args), hang);
          return res;
        }) as typeof res.end;
      }
    }
    next();
  });

  /** Idempotency-Key: the same key with the same body answers the first result; another body, 409. */
  function replay(
    req: Request,
    res: Response,
    kind: 'session' | 'payout',
  ): { key: string | null } | 'answered' {
    const key = req.get('idempotency-key');
    if (!key) return { key: null };
    const body = JSON.stringify(req.body);
    const seen = idempotency.get(`${kind}:${key}`);
    if (!seen) return { key };
    if (seen.body !== body) {
      fail(res, 409, 'idempotency-mismatch', 'Idempotency key reused with a different request');
      return 'answered';
    }
    res.json(kind === 'session' ? sessions.get(seen.id) : payouts.get(seen.id));
    return 'answered';
  }

  // ---- Checkout API ----
  app.post('/v1/checkout/sessions', (req, res) => {
    const b = req.body ?? {};
    const replayed = replay(req, res, 'session');
    if (replayed === 'answered') return;
    const key = replayed.key;
    if (typeof b.amount !== 'string' || !/^\d+$/.test(b.amount) || Number(b.amount) <= 0)
      return fail(res, 400, 'request-validation-error', 'amount must be a positive integer string for XOF');
    if (b.currency !== 'XOF') return fail(res, 400, 'request-validation-error', 'unsupported currency');
    for (const f of ['success_url', 'error_url'])
      if (typeof b[f] !== 'string' || !b[f].startsWith('https://'))
        return fail(res, 400, 'request-validation-error', `${f} must be an https URL`);
    if (b.restrict_payer_mobile !== undefined && !/^\+\d{8,15}$/.test(String(b.restrict_payer_mobile)))
      return fail(res, 400, 'request-validation-error', 'restrict_payer_mobile must be E.164');
    const now = new Date();
    const id = newId('cos');
    const s: Session = {
      id,
      amount: b.amount,
      currency: b.currency,
      client_reference: b.client_reference ?? null,
      checkout_status: 'open',
      payment_status: 'processing',
      last_payment_error: null,
      transaction_id: null,
      success_url: b.success_url,
      error_url: b.error_url,
      restrict_payer_mobile: b.restrict_payer_mobile ?? null,
      business_name: 'Fake Business',
      wave_launch_url: `https://pay.wave.com/c/${id}`,
      when_created: now.toISOString(),
      when_completed: null,
      when_expires: new Date(now.getTime() + 30 * 60_000).toISOString(),
    };
    sessions.set(id, s);
    if (key) idempotency.set(`session:${key}`, { body: JSON.stringify(req.body), id });
    const ending = (s.restrict_payer_mobile ?? '').slice(-2);
    if (ending === '11')
      later(() => {
        if (s.checkout_status !== 'open') return;
        s.last_payment_error = { code: 'insufficient-funds', message: 'Insufficient funds' };
        s.checkout_status = 'expired';
        s.payment_status = 'cancelled';
        void sendWebhook('checkout.session.payment_failed', s);
      }, settleMs);
    else if (ending !== '22')
      later(() => {
        if (s.checkout_status !== 'open') return;
        s.checkout_status = 'complete';
        s.payment_status = 'succeeded';
        s.transaction_id = `T${randomBytes(6).toString('hex').toUpperCase()}`;
        s.when_completed = new Date().toISOString();
        void sendWebhook('checkout.session.completed', s);
      }, settleMs);
    res.json(s);
  });

  app.get('/v1/checkout/sessions/search', (req, res) => {
    const ref = req.query.client_reference;
    if (typeof ref !== 'string')
      return fail(res, 400, 'request-validation-error', 'client_reference required');
    res.json({ result: [...sessions.values()].filter((s) => s.client_reference === ref) });
  });

  app.get('/v1/checkout/sessions/:id', (req, res) => {
    const s = sessions.get(req.params.id);
    if (!s) return fail(res, 404, 'checkout-session-not-found', 'Checkout session not found');
    res.json(s);
  });

  app.post('/v1/checkout/sessions/:id/expire', (req, res) => {
    const s = sessions.get(req.params.id);
    if (!s) return fail(res, 404, 'checkout-session-not-found', 'Checkout session not found');
    if (s.checkout_status !== 'open')
      return fail(res, 400, 'checkout-session-not-open', 'Only an open checkout session can be expired');
    s.checkout_status = 'expired';
    s.payment_status = 'cancelled';
    res.status(200).end();
  });

  app.post('/v1/checkout/sessions/:id/refund', (req, res) => {
    const s = sessions.get(req.params.id);
    if (!s) return fail(res, 404, 'checkout-session-not-found', 'Checkout session not found');
    // Refunding twice makes no second refund: the call answers 200 again.
    if (s.payment_status === 'refunded') return void res.status(200).end();
    if (s.payment_status !== 'succeeded')
      return fail(res, 400, 'checkout-refund-failed', 'Only a paid checkout session can be refunded');
    s.payment_status = 'refunded';
    res.status(200).end();
  });

  // ---- Payout API ----
  app.post('/v1/payout', (req, res) => {
    const b = req.body ?? {};
    if (!req.get('idempotency-key'))
      return fail(res, 400, 'missing-idempotency-key', 'The idempotency-key header is required');
    const replayed = replay(req, res, 'payout');
    if (replayed === 'answered') return;
    const key = replayed.key;
    if (
      typeof b.receive_amount !== 'string' ||
      !/^\d+$/.test(b.receive_amount) ||
      Number(b.receive_amount) <= 0
    )
      return fail(res, 400, 'request-validation-error', 'receive_amount must be a positive integer string');
    if (b.currency !== 'XOF') return fail(res, 400, 'request-validation-error', 'unsupported currency');
    if (typeof b.mobile !== 'string' || !/^\+\d{8,15}$/.test(b.mobile))
      return fail(res, 400, 'request-validation-error', 'mobile must be E.164');
    const p: Payout = {
      id: newId('pt'),
      currency: b.currency,
      receive_amount: b.receive_amount,
      fee: String(Math.ceil(Number(b.receive_amount) / 100)),
      mobile: b.mobile,
      client_reference: b.client_reference ?? null,
      status: 'processing',
      payout_error: null,
      timestamp: new Date().toISOString(),
    };
    payouts.set(p.id, p);
    idempotency.set(`payout:${key}`, { body: JSON.stringify(req.body), id: p.id });
    const ending = p.mobile.slice(-2);
    if (ending === '11') {
      p.status = 'failed';
      p.payout_error = { error_code: 'recipient-limit-exceeded', error_message: 'Recipient limit exceeded' };
    } else if (ending !== '22')
      later(() => {
        if (p.status === 'processing') p.status = 'succeeded';
      }, settleMs);
    res.json(p);
  });

  app.get('/v1/payouts/search', (req, res) => {
    const ref = req.query.client_reference;
    if (typeof ref !== 'string')
      return fail(res, 400, 'request-validation-error', 'client_reference required');
    res.json({ result: [...payouts.values()].filter((p) => p.client_reference === ref) });
  });

  app.get('/v1/payout/:id', (req, res) => {
    const p = payouts.get(req.params.id);
    if (!p) return fail(res, 404, 'payout-not-found', 'Payout not found');
    res.json(p);
  });

  app.post('/v1/payout/:id/reverse', (req, res) => {
    const p = payouts.get(req.params.id);
    if (!p) return fail(res, 404, 'payout-not-found', 'Payout not found');
    if (p.status === 'reversed') return void res.status(200).end();
    if (p.status !== 'succeeded')
      return fail(res, 400, 'payout-reversal-failed', 'Only a succeeded payout can be reversed');
    p.status = 'reversed';
    res.status(200).end();
  });

  app.use((_req: Request, res: Response) => fail(res, 404, 'not-found', 'No such route'));

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
