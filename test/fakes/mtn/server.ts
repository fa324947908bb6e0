import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { undocumented } from '../../../src/operators/connectors/mtn/wire';

// A fake of the MTN MoMo Open API, written from its documentation (the sections cited at the top of
// src/operators/connectors/mtn/connector.ts): its routes, Basic-then-Bearer auth per product,
// Ocp-Apim-Subscription-Key, X-Target-Environment, X-Reference-Id (UUID v4, a reused one is 409
// RESOURCE_ALREADY_EXIST), 202 then PENDING → SUCCESSFUL | FAILED with a reason, 404
// RESOURCE_NOT_FOUND on an unknown reference, and one callback per final transaction to the
// request's X-Callback-Url, unsigned, never retried.
//
// Outcomes by the last two digits of the party's MSISDN (payer for request-to-pay, payee for
// transfers; a refund follows its request-to-pay's payer):
//   …11  FAILED PAYER_NOT_FOUND (collection) / PAYEE_NOT_FOUND (transfer)
//   …12  FAILED NOT_ENOUGH_FUNDS
//   …13  FAILED APPROVAL_REJECTED
//   …14  FAILED EXPIRED
//   …22  stays PENDING (until POST /__fake/transactions/{ref})
//   …33  account holder not active (accountholder …/active → { result: false })
//   any other: SUCCESSFUL after `completeAfterMs` (100 ms by default)
//
// Control endpoints (tests only):
//   POST /__fake/faults { status, code?, count, path? }  next `count` API requests (whose path
//        contains `path`, when given) answer `status` with `{ code, message }`
//   POST /__fake/delay { ms, count, process, path? }  next `count` API requests answer after `ms`;
//        `process: true` does the work first (a lost answer), false only after the wait
//   POST /__fake/drop-callbacks { count } | { ref }  the next `count` callbacks, or the callback of
//        the transaction with that X-Reference-Id, are not sent
//   POST /__fake/expire-tokens  every token issued so far is expired
//   POST /__fake/transactions/{ref} { status, reason?, reasonAsObject? }  sets a pending
//        transaction's status (and calls back); the reason as a string or as `{ code, message }`
//   GET  /__fake/requests  what the fake received (method, path, headers, body), oldest first
//   GET  /__fake/undocumented  requests refused (400) for a field or endpoint the reference does not document
//   GET  /__fake/callbacks  callbacks sent (or dropped)
//   GET  /__fake/stats  { tokensIssued: { collection, disbursement }, transactions }
//   POST /__fake/reset  forgets requests and callbacks (transactions and tokens stay)

export type MtnProduct = 'collection' | 'disbursement';

export interface MtnFakeCredentials {
  subscriptionKey: string;
  apiUser: string;
  apiKey: string;
}

export interface MtnFakeOptions {
  port?: number;
  credentials: Record<MtnProduct, MtnFakeCredentials>;
  /** X-Target-Environment → the currency it takes. */
  environments?: Record<string, string>;
  /** Host the API user registered (providerCallbackHost); X-Callback-Url must be on it. */
  callbackHost?: string | null;
  tokenTtlSeconds?: number;
  completeAfterMs?: number;
}

type Kind = 'requesttopay' | 'transfer' | 'refund';

interface Tx {
  kind: Kind;
  ref: string;
  product: MtnProduct;
  environment: string;
  amount: string;
  currency: string;
  externalId: string;
  party?: { partyIdType: string; partyId: string };
  payerMessage?: string;
  payeeNote?: string;
  referenceIdToRefund?: string;
  status: 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  reason?: string;
  /** Write the reason as the swagger's ErrorReason object `{ code, message }` instead of a string. */
  reasonAsObject?: boolean;
  financialTransactionId?: string;
  callbackUrl?: string;
}

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export async function startMtnFake(opts: MtnFakeOptions): Promise<{ url: string; close(): Promise<void> }> {
  const environments = opts.environments ?? { mtnivorycoast: 'XOF', mtncameroon: 'XAF', sandbox: 'EUR' };
  const ttlMs = (opts.tokenTtlSeconds ?? 3600) * 1000;
  const completeAfterMs = opts.completeAfterMs ?? 100;
  const tokens = new Map<string, { product: MtnProduct; expiresAt: number }>();
  const tokensIssued: Record<MtnProduct, number> = { collection: 0, disbursement: 0 };
  const txs = new Map<string, Tx>();
  const received: Array<{ method: string; path: string; headers: Record<string, unknown>; body: unknown }> =
    [];
  const callbacks: Array<{ url: string; body: unknown; dropped: boolean; status?: number }> = [];
  const undocumentedRequests: string[] = [];
  let faults: { status: number; code?: string; count: number; path?: string } | null = null;
  let delay: { ms: number; count: number; process: boolean; path?: string } | null = null;
  let dropCallbacks = 0;
  const dropRefs = new Set<string>();
  let ftid = 1_000_000;

  const app = express();
  app.use(express.json({ type: () => true }));

  // ---- control ----
  app.post('/__fake/faults', (req, res) => {
    faults = req.body as typeof faults;
    res.json({ ok: true });
  });
  app.post('/__fake/delay', (req, res) => {
    delay = req.body as typeof delay;
    res.json({ ok: true });
  });
  app.post('/__fake/drop-callbacks', (req, res) => {
    const b = req.body as { count?: number; ref?: string };
    if (b.ref) dropRefs.add(b.ref);
    else dropCallbacks = Number(b.count ?? 1);
    res.json({ ok: true });
  });
  app.post('/__fake/expire-tokens', (_req, res) => {
    for (const t of tokens.values()) t.expiresAt = 0;
    res.json({ ok: true });
  });
  app.post('/__fake/transactions/:ref', (req, res) => {
    const tx = txs.get(String(req.params.ref));
    if (!tx) return res.status(404).json({ code: 'RESOURCE_NOT_FOUND' });
    const b = req.body as { status: Tx['status']; reason?: string; reasonAsObject?: boolean };
    tx.reasonAsObject = b.reasonAsObject === true;
    finish(tx, b.status, b.reason);
    return res.json({ ok: true });
  });
  app.get('/__fake/requests', (_req, res) => res.json(received));
  app.get('/__fake/undocumented', (_req, res) => res.json(undocumentedRequests));
  app.get('/__fake/callbacks', (_req, res) => res.json(callbacks));
  app.get('/__fake/stats', (_req, res) => res.json({ tokensIssued, transactions: txs.size }));
  app.post('/__fake/reset', (_req, res) => {
    received.length = 0;
    callbacks.length = 0;
    faults = null;
    delay = null;
    dropCallbacks = 0;
    res.json({ ok: true });
  });

  // ---- the API ----
  const api = express.Router();
  api.use((req, res, next) => {
    received.push({
      method: req.method,
      path: req.originalUrl,
      headers: { ...req.headers },
      body: req.body as unknown,
    });
    // Only what the reference documents for the endpoint (src/operators/connectors/mtn/wire.ts); a
    // refusal is kept for the connector's conformance test, and survives /__fake/reset.
    const departure = undocumented(req.method, req.originalUrl.split('?')[0]!, req.body);
    if (departure) {
      undocumentedRequests.push(departure);
      return res.status(400).json({ code: 'INVALID_REQUEST', message: departure });
    }
    if (faults && faults.count > 0 && (!faults.path || req.path.includes(faults.path))) {
      faults.count--;
      const f = faults;
      return res.status(f.status).json({
        code: f.code ?? (f.status === 429 ? 'TOO_MANY_REQUESTS' : 'INTERNAL_PROCESSING_ERROR'),
        message: 'fault injected',
      });
    }
    if (delay && delay.count > 0 && (!delay.path || req.path.includes(delay.path))) {
      delay.count--;
      const d = delay;
      if (d.process) {
        // Do the work now, answer after the client gave up: its answer is lost.
        const realJson = res.json.bind(res);
        const realEnd = res.end.bind(res) as (...a: unknown[]) => Response;
        res.json = ((b: unknown) => {
          setTimeout(() => realJson(b), d.ms);
          return res;
        }) as typeof res.json;
        res.end = ((...a: unknown[]) => {
          setTimeout(() => realEnd(...a), d.ms);
          return res;
        }) as typeof res.end;
        return next();
      }
      return void setTimeout(next, d.ms);
    }
    return next();
  });

  function error(res: Response, status: number, code: string, message: string): void {
    res.status(status).json({ code, message });
  }

  // Token: Basic api user:api key + the product's subscription key.
  api.post('/:product/token/', (req, res) => {
    const product = productParam(req);
    if (!product) return error(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found');
    const creds = opts.credentials[product];
    if (req.header('ocp-apim-subscription-key') !== creds.subscriptionKey)
      return res.status(401).json({
        statusCode: 401,
        message:
          'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
      });
    const basic = /^Basic (.+)$/.exec(req.header('authorization') ?? '');
    const [user, key] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':') : [];
    if (user !== creds.apiUser || key !== creds.apiKey)
      return error(res, 401, 'UNAUTHORIZED', 'Invalid API user or key');
    const token = `tok_${product}_${randomUUID()}`;
    tokens.set(token, { product, expiresAt: Date.now() + ttlMs });
    tokensIssued[product]++;
    return res.json({ access_token: token, token_type: 'access_token', expires_in: ttlMs / 1000 });
  });

  /** Subscription key, Bearer token of the same product, target environment. */
  function authed(req: Request, res: Response, next: NextFunction): void {
    const product = productParam(req);
    if (!product) return error(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found');
    if (req.header('ocp-apim-subscription-key') !== opts.credentials[product].subscriptionKey) {
      res.status(401).json({
        statusCode: 401,
        message:
          'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
      });
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(req.header('authorization') ?? '')?.[1];
    const t = bearer ? tokens.get(bearer) : undefined;
    if (!t || t.product !== product || t.expiresAt <= Date.now()) {
      res.status(401).json({ statusCode: 401, message: 'Access token is missing, invalid or expired.' });
      return;
    }
    const env = req.header('x-target-environment');
    if (!env || !environments[env])
      return error(res, 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.');
    res.locals.product = product;
    res.locals.environment = env;
    next();
  }

  function create(kind: Kind, req: Request, res: Response): void {
    const ref = req.header('x-reference-id') ?? '';
    if (!uuidV4.test(ref)) return error(res, 400, 'BAD_REQUEST', 'X-Reference-Id must be a UUID version 4.');
    const b = (req.body ?? {}) as Record<string, unknown>;
    const env = res.locals.environment as string;
    if (
      typeof b.amount !== 'string' ||
      !/^\d+(\.\d{1,2})?$/.test(b.amount) ||
      typeof b.currency !== 'string' ||
      typeof b.externalId !== 'string'
    )
      return error(res, 400, 'BAD_REQUEST', 'Request does not follow the specification.');
    if (b.currency !== environments[env])
      return error(res, 500, 'INVALID_CURRENCY', 'Currency not supported.');
    const callbackUrl = req.header('x-callback-url');
    if (callbackUrl && opts.callbackHost && new URL(callbackUrl).host !== opts.callbackHost)
      return error(
        res,
        500,
        'INVALID_CALLBACK_URL_HOST',
        'Callback URL with different host name to configured for API User.',
      );
    if (txs.has(ref))
      return error(
        res,
        409,
        'RESOURCE_ALREADY_EXIST',
        'Duplicated reference id. Creation of resource failed.',
      );
    const partyBody = (kind === 'requesttopay' ? b.payer : b.payee) as Tx['party'];
    if (
      kind !== 'refund' &&
      (!partyBody || partyBody.partyIdType !== 'MSISDN' || !/^\d{6,15}$/.test(partyBody.partyId))
    )
      return error(res, 400, 'BAD_REQUEST', 'Invalid party.');
    const tx: Tx = {
      kind,
      ref,
      product: res.locals.product as MtnProduct,
      environment: env,
      amount: b.amount,
      currency: b.currency,
      externalId: b.externalId,
      ...(partyBody ? { party: partyBody } : {}),
      ...(typeof b.payerMessage === 'string' ? { payerMessage: b.payerMessage } : {}),
      ...(typeof b.payeeNote === 'string' ? { payeeNote: b.payeeNote } : {}),
      ...(typeof b.referenceIdToRefund === 'string' ? { referenceIdToRefund: b.referenceIdToRefund } : {}),
      status: 'PENDING',
      ...(callbackUrl ? { callbackUrl } : {}),
    };
    txs.set(ref, tx);
    schedule(tx);
    res.status(202).end();
  }

  function schedule(tx: Tx): void {
    let digits: string | undefined = tx.party?.partyId.slice(-2);
    if (tx.kind === 'refund') {
      const original = tx.referenceIdToRefund ? txs.get(tx.referenceIdToRefund) : undefined;
      if (!original || original.kind !== 'requesttopay' || original.status !== 'SUCCESSFUL')
        return void setTimeout(() => finish(tx, 'FAILED', 'RESOURCE_NOT_FOUND'), completeAfterMs);
      const refunded = [...txs.values()]
        .filter(
          (t) =>
            t.kind === 'refund' &&
            t.referenceIdToRefund === original.ref &&
            t.status !== 'FAILED' &&
            t !== tx,
        )
        .reduce((s, t) => s + Number(t.amount), 0);
      if (refunded + Number(tx.amount) > Number(original.amount))
        return void setTimeout(() => finish(tx, 'FAILED', 'NOT_ALLOWED'), completeAfterMs);
      digits = original.party?.partyId.slice(-2);
    }
    const failures: Record<string, string> = {
      '11': tx.kind === 'requesttopay' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND',
      '12': 'NOT_ENOUGH_FUNDS',
      '13': 'APPROVAL_REJECTED',
      '14': 'EXPIRED',
    };
    if (digits === '22') return;
    const reason = digits ? failures[digits] : undefined;
    setTimeout(() => finish(tx, reason ? 'FAILED' : 'SUCCESSFUL', reason), completeAfterMs);
  }

  function finish(tx: Tx, status: Tx['status'], reason?: string): void {
    if (tx.status !== 'PENDING' && status !== 'PENDING') return;
    tx.status = status;
    if (status === 'SUCCESSFUL') tx.financialTransactionId = String(ftid++);
    if (status === 'FAILED') tx.reason = reason ?? 'INTERNAL_PROCESSING_ERROR';
    if (status !== 'PENDING' && tx.callbackUrl) void callBack(tx);
  }

  /** Sent once, never retried, as the documentation says. */
  async function callBack(tx: Tx): Promise<void> {
    const body = view(tx);
    const url = tx.callbackUrl!;
    const byRef = dropRefs.delete(tx.ref);
    if (byRef || dropCallbacks > 0) {
      if (!byRef) dropCallbacks--;
      callbacks.push({ url, body, dropped: true });
      return;
    }
    const entry: (typeof callbacks)[number] = { url, body, dropped: false };
    callbacks.push(entry);
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(2000),
      });
      entry.status = r.status;
    } catch {
      entry.status = 0;
    }
  }

  /** The status read's body (the callback's too). */
  function view(tx: Tx): Record<string, unknown> {
    return {
      amount: tx.amount,
      currency: tx.currency,
      ...(tx.financialTransactionId ? { financialTransactionId: tx.financialTransactionId } : {}),
      externalId: tx.externalId,
      ...(tx.party ? { [tx.kind === 'requesttopay' ? 'payer' : 'payee']: tx.party } : {}),
      ...(tx.payerMessage ? { payerMessage: tx.payerMessage } : {}),
      ...(tx.payeeNote ? { payeeNote: tx.payeeNote } : {}),
      status: tx.status,
      ...(tx.reason
        ? { reason: tx.reasonAsObject ? { code: tx.reason, message: tx.reason.toLowerCase() } : tx.reason }
        : {}),
    };
  }

  function read(kind: Kind, req: Request, res: Response): void {
    const tx = txs.get(String(req.params.ref));
    if (!tx || tx.kind !== kind || tx.environment !== res.locals.environment)
      return error(res, 404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    res.json(view(tx));
  }

  const onlyProduct =
    (product: MtnProduct) =>
    (req: Request, res: Response, next: NextFunction): void =>
      productParam(req) === product ? next() : error(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found');

  api.post('/:product/v1_0/requesttopay', onlyProduct('collection'), authed, (req, res) =>
    create('requesttopay', req, res),
  );
  api.get('/:product/v1_0/requesttopay/:ref', onlyProduct('collection'), authed, (req, res) =>
    read('requesttopay', req, res),
  );
  api.post('/:product/v1_0/transfer', onlyProduct('disbursement'), authed, (req, res) =>
    create('transfer', req, res),
  );
  api.get('/:product/v1_0/transfer/:ref', onlyProduct('disbursement'), authed, (req, res) =>
    read('transfer', req, res),
  );
  api.post('/:product/v2_0/refund', onlyProduct('disbursement'), authed, (req, res) =>
    create('refund', req, res),
  );
  api.get('/:product/v1_0/refund/:ref', onlyProduct('disbursement'), authed, (req, res) =>
    read('refund', req, res),
  );

  api.get('/:product/v1_0/accountholder/msisdn/:msisdn/active', authed, (req, res) => {
    res.json({ result: !String(req.params.msisdn).endsWith('33') });
  });
  api.get('/:product/v1_0/accountholder/msisdn/:msisdn/basicuserinfo', authed, (req, res) => {
    const msisdn = String(req.params.msisdn);
    if (msisdn.endsWith('33'))
      return error(res, 404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    const n = { given_name: 'Awa', family_name: `Kone ${msisdn.slice(-2)}` };
    return res.json({
      sub: '0',
      name: `${n.given_name} ${n.family_name}`,
      given_name: n.given_name,
      family_name: n.family_name,
      locale: 'fr_CI',
      updated_at: 1700000000,
    });
  });

  app.use(api);

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function productParam(req: Request): MtnProduct | null {
  const p = String(req.params.product);
  return p === 'collection' || p === 'disbursement' ? p : null;
}
