// A fake of Hub2's API (docs.hub2.io: API reference "Hub2 Service · Api", payments, transfers,
// webhooks and error management guides), written from the documentation: Hub2's own routes, the
// `ApiKey` / `MerchantId` / `Environment` headers, the standardized error body
// `{status, code, message, request_id}`, PaymentIntents with Payment attempts, Transfers, and
// webhooks signed `Hub2-Signature: s1=<hex HMAC-SHA256(secret, body)>[,s0=<same with the old secret>]`.
// It runs as its own process (main.ts) so a contract test talks to it over the network only.
//
// Behaviour by the number's last two digits (attempt: mobileMoney.msisdn; transfer: destination.msisdn):
//   | ends in | payment attempt                                  | transfer                          |
//   |---------|--------------------------------------------------|-----------------------------------|
//   | 11      | failed after ~100 ms, customer_insufficient_funds | failed at once, invalid_destination |
//   | 22      | stays processing                                 | stays pending                     |
//   | other   | successful after ~100 ms                         | pending, successful after ~100 ms |
// Orange CI asks an OTP: an attempt without one stays `action_required`; OTP `000000` fails it
// (authentication_failed).
//
// Hub2 allows several attempts on one intent and documents no idempotency for a transfer
// reference: the fake does what is asked, and records a second attempt on one intent or a second
// transfer with one reference as a defect (GET /__fake/defects) the tests check is never seen.
//
// Control endpoints (no auth), for contract tests:
//   POST /__fake/faults {count, status|hangMs, path?}: the next `count` API requests (whose path
//        matches the regular expression `path`, when given) answer `status` (500, 429…) without
//        doing anything, or are done but answered only after `hangMs`.
//   POST /__fake/expire-keys: the API key is revoked (401 from then on).
//   GET  /__fake/received: the API requests received (method, path).
//   GET  /__fake/undocumented: requests refused (400) for a field or endpoint the reference does not document.
//   GET  /__fake/defects: second attempts on one intent, second transfers with one reference.
//   GET  /__fake/state: intents and transfers held.

import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { undocumented } from '../../../src/operators/connectors/hub2/wire';

export interface Hub2FakeOptions {
  port?: number;
  apiKey: string;
  merchantId: string;
  /** The webhook's current secret (s1). */
  webhookSecret: string;
  /** The secret before a rotation (s0), when one is under way. */
  oldWebhookSecret?: string | null;
  /** Where it POSTs webhooks; none = no webhooks. */
  callbackUrl?: string | null;
  settleMs?: number;
}

interface Payment {
  id: string;
  intentId: string;
  status: 'processing' | 'action_required' | 'successful' | 'failed';
  failureCause: string | null;
  country: string;
  provider: string;
  createdAt: string;
  updatedAt: string;
}

interface Intent {
  id: string;
  merchantId: string;
  purchaseReference: string;
  customerReference: string;
  amount: number;
  currency: string;
  token: string;
  status: 'payment_required' | 'processing' | 'successful' | 'failed';
  payments: Payment[];
  mode: string;
  createdAt: string;
  updatedAt: string;
}

interface Transfer {
  id: string;
  merchantId: string;
  reference: string;
  description: string;
  status: 'created' | 'pending' | 'successful' | 'failed';
  failureCause: string | null;
  amount: number;
  currency: string;
  destination: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString('base64url')}`;

export function signHub2(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export async function startHub2Fake(opts: Hub2FakeOptions): Promise<{ url: string; close(): Promise<void> }> {
  const settleMs = opts.settleMs ?? 100;
  let apiKey: string | null = opts.apiKey;
  const intents = new Map<string, Intent>();
  const transfers = new Map<string, Transfer>();
  const received: Array<{ method: string; path: string }> = [];
  const undocumentedRequests: string[] = [];
  const defects: string[] = [];
  let faults: { count: number; status?: number; hangMs?: number; path?: string } = { count: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const now = () => new Date().toISOString();
  const fail = (res: Response, status: number, code: string, message: string) =>
    void res.status(status).json({ status, code, message, request_id: newId('req') });

  async function sendWebhook(type: string, data: unknown): Promise<void> {
    if (!opts.callbackUrl) return;
    const body = JSON.stringify({ id: newId('evt'), type, data, createdAt: now() });
    const signature = [`s1=${signHub2(opts.webhookSecret, body)}`];
    if (opts.oldWebhookSecret) signature.push(`s0=${signHub2(opts.oldWebhookSecret, body)}`);
    try {
      await fetch(opts.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'hub2-signature': signature.join(',') },
        body,
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      // Delivery failures are not retried here: tests read status instead.
    }
  }

  const publicIntent = (i: Intent) => {
    const { token: _token, ...rest } = i;
    return rest;
  };

  function settlePayment(i: Intent, p: Payment, status: 'successful' | 'failed', cause: string | null): void {
    p.status = status;
    p.failureCause = cause;
    p.updatedAt = now();
    i.status = status;
    i.updatedAt = p.updatedAt;
    void sendWebhook(`payment_intent.${status === 'successful' ? 'succeeded' : 'failed'}`, publicIntent(i));
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
  app.post('/__fake/expire-keys', (_req, res) => {
    apiKey = null;
    res.json({ ok: true });
  });
  app.get('/__fake/received', (_req, res) => void res.json(received));
  app.get('/__fake/undocumented', (_req, res) => void res.json(undocumentedRequests));
  app.get('/__fake/defects', (_req, res) => void res.json(defects));
  app.get(
    '/__fake/state',
    (_req, res) =>
      void res.json({ intents: [...intents.values()].map(publicIntent), transfers: [...transfers.values()] }),
  );

  // ---- Hub2: authentication, documented bodies, faults ----
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path.startsWith('/__fake/')) return next();
    const path = req.originalUrl.split('?')[0]!;
    received.push({ method: req.method, path: req.originalUrl });
    const env = req.get('environment');
    if (env !== 'live' && env !== 'sandbox')
      return fail(res, 400, 'Bad Request', 'Invalid Environment header');
    if (!apiKey || req.get('apikey') !== apiKey || req.get('merchantid') !== opts.merchantId)
      return fail(res, 401, 'Unauthorized', 'Invalid api key');
    const departure = undocumented(req.method, path, req.method === 'GET' ? undefined : req.body);
    if (departure) {
      undocumentedRequests.push(departure);
      return fail(res, 400, 'Bad Request', departure);
    }
    if (faults.count > 0 && (!faults.path || new RegExp(faults.path).test(path))) {
      faults.count--;
      if (faults.status)
        return fail(
          res,
          faults.status,
          faults.status === 429
            ? 'Too Many Requests'
            : faults.status >= 500
              ? 'Internal Server Error'
              : 'Bad Request',
          'fault',
        );
      if (faults.hangMs) {
        const hang = faults.hangMs;
        const end = res.end.bind(res) as (...args: unknown[]) => Response;
        // Done now, answered late: the caller times out although Hub2 acted.
        res.end = ((...args: unknown[]) => {
          later(() => end(...args), hang);
          return res;
        }) as typeof res.end;
      }
    }
    next();
  });

  // ---- payments ----
  app.post('/payment-intents', (req, res) => {
    const b = req.body as {
      customerReference: string;
      purchaseReference: string;
      amount: number;
      currency: string;
    };
    const at = now();
    const i: Intent = {
      id: newId('pi'),
      merchantId: opts.merchantId,
      purchaseReference: b.purchaseReference,
      customerReference: b.customerReference,
      amount: b.amount,
      currency: b.currency,
      token: `eyJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(16).toString('base64url')}`,
      status: 'payment_required',
      payments: [],
      mode: req.get('environment')!,
      createdAt: at,
      updatedAt: at,
    };
    intents.set(i.id, i);
    res.status(201).json(i);
  });

  app.post('/payment-intents/:id/payments', (req, res) => {
    const i = intents.get(req.params.id);
    if (!i) return fail(res, 404, 'Not Found', 'PaymentIntent not found');
    const b = req.body as {
      token: string;
      country: string;
      provider: string;
      mobileMoney?: { msisdn: string; otp?: string };
    };
    if (b.token !== i.token) return fail(res, 403, 'Forbidden', 'Invalid token');
    if (!b.mobileMoney) return fail(res, 400, 'Bad Request', 'mobileMoney is required for mobile_money');
    if (i.payments.length > 0) defects.push(`second payment attempt on ${i.purchaseReference}`);
    const at = now();
    const p: Payment = {
      id: newId('pa'),
      intentId: i.id,
      status: 'processing',
      failureCause: null,
      country: b.country,
      provider: b.provider,
      createdAt: at,
      updatedAt: at,
    };
    i.payments.push(p);
    i.status = 'processing';
    i.updatedAt = at;
    const msisdn = b.mobileMoney.msisdn;
    if (b.provider === 'orange' && b.country === 'CI' && !b.mobileMoney.otp) p.status = 'action_required';
    else if (b.mobileMoney.otp === '000000')
      later(() => settlePayment(i, p, 'failed', 'authentication_failed'), settleMs);
    else if (msisdn.endsWith('11'))
      later(() => settlePayment(i, p, 'failed', 'customer_insufficient_funds'), settleMs);
    else if (!msisdn.endsWith('22')) later(() => settlePayment(i, p, 'successful', null), settleMs);
    res.status(201).json(publicIntent(i));
  });

  app.get('/payment-intents/:id', (req, res) => {
    const i = intents.get(req.params.id);
    if (!i) return fail(res, 404, 'Not Found', 'PaymentIntent not found');
    res.json(publicIntent(i));
  });

  // ---- transfers ----
  app.post('/transfers', (req, res) => {
    const b = req.body as {
      reference: string;
      amount: number;
      currency: string;
      description: string;
      destination: { msisdn: string };
    };
    if ([...transfers.values()].some((t) => t.reference === b.reference))
      defects.push(`second transfer with reference ${b.reference}`);
    const at = now();
    const t: Transfer = {
      id: newId('tr'),
      merchantId: opts.merchantId,
      reference: b.reference,
      description: b.description,
      status: 'pending',
      failureCause: null,
      amount: b.amount,
      currency: b.currency,
      destination: b.destination,
      createdAt: at,
      updatedAt: at,
    };
    transfers.set(t.id, t);
    const settle = (status: 'successful' | 'failed', cause: string | null) => {
      t.status = status;
      t.failureCause = cause;
      t.updatedAt = now();
      void sendWebhook(`transfer.${status === 'successful' ? 'succeeded' : 'failed'}`, t);
    };
    const msisdn = b.destination.msisdn;
    if (msisdn.endsWith('11')) {
      t.status = 'failed';
      t.failureCause = 'invalid_destination';
    } else if (!msisdn.endsWith('22')) later(() => settle('successful', null), settleMs);
    res.status(201).json(t);
  });

  app.get('/transfers', (req, res) => {
    const reference = typeof req.query.reference === 'string' ? req.query.reference : null;
    res.json([...transfers.values()].filter((t) => reference === null || t.reference === reference));
  });

  app.get('/transfers/:id', (req, res) => {
    const t = transfers.get(req.params.id);
    if (!t) return fail(res, 404, 'Not Found', 'Transfer not found');
    res.json(t);
  });

  app.use((_req: Request, res: Response) => fail(res, 404, 'Not Found', 'No such route'));

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
