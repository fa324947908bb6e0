import express, { type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import { isOffered, operatorCodes, type Country, type OperatorCode } from '../domain/operators';
import { normalizeMsisdn } from '../domain/msisdn';
import type { SandboxScenario } from '../domain/transaction';
import {
  collectionRequestBody,
  disbursementRequestBody,
  refundRequestBody,
  type CallbackKind,
  type OperatorCallbackBody,
  type OperatorStatusBody,
} from '../operators/wire';
import { signCallback, signatureHeader } from '../operators/signature';
import { magicBehaviour, type MagicBehaviour } from './magic-numbers';

// The sandbox operator, a separate HTTP service: it answers `pending`, reaches the outcome the
// request's sandboxScenario names after a short delay, then calls the service back, signed with the
// operator's secret. State lives in memory: a restart forgets every transaction.

export interface SimulatorOptions {
  /** Per-operator HMAC secrets for the callbacks (the service verifies with the same). */
  callbackSecrets: Record<OperatorCode, string>;
  /** Where callbacks go when a request names no callbackUrl: the service's base URL. */
  callbackBaseUrl?: string | null;
  /** Time from a request to its final outcome. */
  settleDelayMs?: number;
  /** How long the first answer to a 9904 number takes (longer than the gateway waits). */
  slowResponseMs?: number;
  /** The partner check of a 9902 number finds the funds at this call. */
  partnerChecksBeforeCollected?: number;
  /** Waits before each callback delivery attempt. */
  callbackRetryDelaysMs?: number[];
}

export interface SimTransaction {
  kind: CallbackKind;
  id: string;
  operator: OperatorCode;
  country: Country;
  msisdn: string;
  amount: number;
  currency: string;
  scenario: SandboxScenario;
  magic: MagicBehaviour | null;
  outcome: 'pending' | 'completed' | 'failed';
  failure: { code: string; message: string } | null;
  operatorReference: string;
  paymentUrl: string | null;
  ussdCode: string | null;
  callbackUrl: string | null;
  /** Refunds: the collection they reverse. */
  originalId: string | null;
  /** Requests received for this id; one transaction whatever the count. */
  requests: number;
  partnerChecks: number;
  partnerCollected: boolean;
  createdAt: string;
}

export interface CallbackDelivery {
  kind: CallbackKind;
  id: string;
  operator: OperatorCode;
  url: string;
  attempts: number;
  status: number | null;
  delivered: boolean;
}

export interface Simulator {
  app: Express;
  setCallbackBaseUrl(url: string | null): void;
  transactions: ReadonlyMap<string, SimTransaction>;
  callbacks: readonly CallbackDelivery[];
  /** Cancels pending timers (settlements, callback retries). */
  close(): void;
}

const failures: Record<CallbackKind, { code: string; message: string }> = {
  collection: { code: 'PAYER_DECLINED', message: 'The customer declined the payment' },
  disbursement: { code: 'PAYEE_REJECTED', message: 'The beneficiary account cannot receive this transfer' },
  refund: { code: 'REFUND_REJECTED', message: 'The operator refused the reversal' },
};
const operatorTimeout = {
  code: 'OPERATOR_TIMEOUT',
  message: 'The operator did not confirm the debit in time',
};
const ussdCodes: Partial<Record<string, string>> = { MTN_CI: '*133#', MOOV_CI: '*155#' };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createSimulatorApp(opts: SimulatorOptions): Simulator {
  const settleDelayMs = opts.settleDelayMs ?? 200;
  const slowResponseMs = opts.slowResponseMs ?? 3_000;
  const checksBeforeCollected = opts.partnerChecksBeforeCollected ?? 3;
  const retryDelays = opts.callbackRetryDelaysMs ?? [0, 500, 2_000];
  let callbackBaseUrl = opts.callbackBaseUrl ?? null;
  const txs = new Map<string, SimTransaction>();
  const callbacks: CallbackDelivery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const later = (ms: number, fn: () => void) => {
    if (closed) return;
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  // Transactions are keyed by kind and our id: the idempotency key of every request.
  const key = (kind: CallbackKind, id: string) => `${kind}:${id}`;

  const view = (tx: SimTransaction): OperatorStatusBody => ({
    id: tx.id,
    outcome: tx.outcome,
    operatorReference: tx.operatorReference,
    failure: tx.failure,
    paymentUrl: tx.paymentUrl,
    ussdCode: tx.ussdCode,
  });

  async function deliver(tx: SimTransaction): Promise<void> {
    const url =
      tx.callbackUrl ?? (callbackBaseUrl ? `${callbackBaseUrl}/operator-callbacks/${tx.operator}` : null);
    if (!url) return;
    const payload: OperatorCallbackBody = {
      kind: tx.kind,
      id: tx.id,
      ...(tx.originalId ? { transactionId: tx.originalId } : {}),
      outcome: tx.outcome,
      operatorReference: tx.operatorReference,
    };
    const body = JSON.stringify(payload);
    const record: CallbackDelivery = {
      kind: tx.kind,
      id: tx.id,
      operator: tx.operator,
      url,
      attempts: 0,
      status: null,
      delivered: false,
    };
    callbacks.push(record);
    for (const wait of retryDelays) {
      if (wait > 0) await sleep(wait);
      if (closed) return;
      record.attempts++;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [signatureHeader]: signCallback(opts.callbackSecrets[tx.operator], body),
          },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        record.status = res.status;
        await res.arrayBuffer();
        // 2xx is received; another 4xx will not get better by retrying.
        if (res.status < 500 && res.status !== 429) {
          record.delivered = res.ok;
          return;
        }
      } catch {
        record.status = null;
      }
    }
  }

  function settle(tx: SimTransaction): void {
    if (tx.outcome !== 'pending') return;
    if (
      tx.kind === 'collection' &&
      (tx.magic === 'partner-collects-on-signal' || tx.magic === 'partner-collects-after-checks')
    ) {
      tx.outcome = 'failed';
      tx.failure = operatorTimeout;
    } else if (tx.scenario === 'pending') {
      return; // stays pending for ever, so the service's expiry is what ends it
    } else if (tx.scenario === 'failed') {
      tx.outcome = 'failed';
      tx.failure = failures[tx.kind];
    } else {
      tx.outcome = 'completed';
    }
    if (tx.magic !== 'no-callback') void deliver(tx);
  }

  /** Records a new transaction (or returns the known one) and schedules its outcome. */
  function admit(
    draft: Omit<
      SimTransaction,
      'requests' | 'partnerChecks' | 'partnerCollected' | 'createdAt' | 'outcome' | 'failure'
    >,
    immediateFailure: { code: string; message: string } | null,
  ): { tx: SimTransaction; created: boolean } {
    const k = key(draft.kind, draft.id);
    const known = txs.get(k);
    if (known) {
      known.requests++;
      return { tx: known, created: false };
    }
    const tx: SimTransaction = {
      ...draft,
      outcome: immediateFailure ? 'failed' : 'pending',
      failure: immediateFailure,
      requests: 1,
      partnerChecks: 0,
      partnerCollected: false,
      createdAt: new Date().toISOString(),
    };
    txs.set(k, tx);
    if (!immediateFailure) later(settleDelayMs, () => settle(tx));
    return { tx, created: true };
  }

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));

  const badRequest = (res: Response, message: string, issues?: unknown) =>
    res.status(400).json({ error: 'INVALID_REQUEST', message, ...(issues ? { issues } : {}) });
  const notFound = (res: Response) =>
    res.status(404).json({ error: 'NOT_FOUND', message: 'Unknown transaction' });

  function operatorOf(req: Request, res: Response): OperatorCode | null {
    const code = operatorCodes.find((c) => c === req.params.code);
    if (!code) {
      res.status(404).json({ error: 'UNKNOWN_OPERATOR', message: `Operators: ${operatorCodes.join(', ')}` });
      return null;
    }
    return code;
  }

  function parseBody<S extends z.ZodType>(schema: S, req: Request, res: Response): z.infer<S> | null {
    const parsed = schema.safeParse(req.body);
    if (!parsed.success) {
      badRequest(res, 'Invalid body', parsed.error.issues);
      return null;
    }
    return parsed.data;
  }

  /** The same id with other terms is a conflict, as at real operators. */
  function conflicts(tx: SimTransaction, amount: number, msisdn: string | null): boolean {
    return tx.amount !== amount || (msisdn !== null && tx.msisdn !== msisdn);
  }

  const base = (req: Request) => `${req.protocol}://${req.get('host')}`;

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.post('/operators/:code/collections', async (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const body = parseBody(collectionRequestBody, req, res);
    if (!body) return;
    if (!isOffered(operator, body.country))
      return badRequest(res, `${operator} does not operate in ${body.country}`);
    const msisdn = normalizeMsisdn(body.msisdn, body.country);
    if (!msisdn) return badRequest(res, `Not a mobile number of ${body.country}`);
    const known = txs.get(key('collection', body.transactionId));
    if (known && (known.operator !== operator || conflicts(known, body.amount, msisdn)))
      return res.status(409).json({ error: 'CONFLICT', message: 'This id was used with other terms' });

    let otpFailure: { code: string; message: string } | null = null;
    if (operator === 'ORANGE') {
      if (!body.otp)
        otpFailure = { code: 'OTP_REQUIRED', message: 'Orange Money needs the OTP (dial #144*82#)' };
      else if (!/^\d{4,8}$/.test(body.otp) || body.otp === '000000')
        otpFailure = { code: 'OTP_INVALID', message: 'The OTP is wrong or expired' };
    }
    const { tx, created } = admit(
      {
        kind: 'collection',
        id: body.transactionId,
        operator,
        country: body.country,
        msisdn,
        amount: body.amount,
        currency: body.currency,
        scenario: body.sandboxScenario ?? 'completed',
        magic: magicBehaviour(msisdn),
        operatorReference: `${operator.toLowerCase()}_${body.transactionId}`,
        paymentUrl:
          operator === 'WAVE' ? `${base(req)}/wave/checkout/${encodeURIComponent(body.transactionId)}` : null,
        ussdCode: ussdCodes[`${operator}_${body.country}`] ?? null,
        callbackUrl: body.callbackUrl ?? null,
        originalId: null,
      },
      otpFailure,
    );
    if (created && tx.magic === 'slow-first-answer') await sleep(slowResponseMs);
    res.status(created ? 201 : 200).json(view(tx));
  });

  app.get('/operators/:code/collections/:id', (req, res) => {
    const tx = txs.get(key('collection', req.params.id));
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    res.json(view(tx));
  });

  app.post('/operators/:code/collections/:id/partner-check', (req, res) => {
    const tx = txs.get(key('collection', req.params.id));
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    tx.partnerChecks++;
    if (tx.magic === 'partner-collects-after-checks' && tx.partnerChecks >= checksBeforeCollected)
      tx.partnerCollected = true;
    const collected = tx.outcome === 'completed' || tx.partnerCollected;
    res.json({ collected, ...(collected ? { operatorReference: `${tx.operatorReference}_partner` } : {}) });
  });

  app.post('/operators/:code/disbursements', async (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const body = parseBody(disbursementRequestBody, req, res);
    if (!body) return;
    if (!isOffered(operator, body.country))
      return badRequest(res, `${operator} does not operate in ${body.country}`);
    const msisdn = normalizeMsisdn(body.msisdn, body.country);
    if (!msisdn) return badRequest(res, `Not a mobile number of ${body.country}`);
    const known = txs.get(key('disbursement', body.transactionId));
    if (known && (known.operator !== operator || conflicts(known, body.amount, msisdn)))
      return res.status(409).json({ error: 'CONFLICT', message: 'This id was used with other terms' });
    const magic = magicBehaviour(msisdn);
    const { tx, created } = admit(
      {
        kind: 'disbursement',
        id: body.transactionId,
        operator,
        country: body.country,
        msisdn,
        amount: body.amount,
        currency: body.currency,
        scenario: body.sandboxScenario ?? 'completed',
        // The partner-check numbers are about collections; a payout to them behaves normally.
        magic: magic === 'no-callback' || magic === 'slow-first-answer' ? magic : null,
        operatorReference: `${operator.toLowerCase()}_${body.transactionId}`,
        paymentUrl: null,
        ussdCode: null,
        callbackUrl: body.callbackUrl ?? null,
        originalId: null,
      },
      null,
    );
    if (created && tx.magic === 'slow-first-answer') await sleep(slowResponseMs);
    res.status(created ? 201 : 200).json(view(tx));
  });

  app.get('/operators/:code/disbursements/:id', (req, res) => {
    const tx = txs.get(key('disbursement', req.params.id));
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    res.json(view(tx));
  });

  app.post('/operators/:code/refunds', async (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const body = parseBody(refundRequestBody, req, res);
    if (!body) return;
    const known = txs.get(key('refund', body.refundId));
    if (
      known &&
      (known.operator !== operator || known.originalId !== body.transactionId || known.amount !== body.amount)
    )
      return res.status(409).json({ error: 'CONFLICT', message: 'This id was used with other terms' });
    const original = txs.get(key('collection', body.transactionId));
    let refusal: { code: string; message: string } | null = null;
    if (!known) {
      if (
        !original ||
        original.operator !== operator ||
        !(original.outcome === 'completed' || original.partnerCollected)
      ) {
        refusal = { code: 'ORIGINAL_NOT_COLLECTED', message: 'No collected payment has this id' };
      } else {
        // Completed and still pending refunds both count against what can be reversed.
        const reserved = [...txs.values()]
          .filter((t) => t.kind === 'refund' && t.originalId === original.id && t.outcome !== 'failed')
          .reduce((sum, t) => sum + t.amount, 0);
        if (reserved + body.amount > original.amount)
          refusal = { code: 'REFUND_EXCEEDS_COLLECTION', message: 'The refunds would exceed the payment' };
      }
    }
    const msisdn = original?.msisdn ?? '';
    const magic = magicBehaviour(msisdn);
    const { tx, created } = admit(
      {
        kind: 'refund',
        id: body.refundId,
        operator,
        country: body.country,
        msisdn,
        amount: body.amount,
        currency: body.currency,
        scenario: body.sandboxScenario ?? 'completed',
        magic: magic === 'no-callback' || magic === 'slow-first-answer' ? magic : null,
        operatorReference: `${operator.toLowerCase()}_${body.refundId}`,
        paymentUrl: null,
        ussdCode: null,
        callbackUrl: body.callbackUrl ?? null,
        originalId: body.transactionId,
      },
      refusal,
    );
    if (created && tx.magic === 'slow-first-answer') await sleep(slowResponseMs);
    res.status(created ? 201 : 200).json(view(tx));
  });

  app.get('/operators/:code/refunds/:id', (req, res) => {
    const tx = txs.get(key('refund', req.params.id));
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    res.json(view(tx));
  });

  // Wave sends the customer to its own page; the sandbox's stands in for it.
  app.get('/wave/checkout/:id', (req, res) => {
    const tx = txs.get(key('collection', req.params.id));
    if (!tx) return notFound(res);
    const amount = `${tx.amount} ${tx.currency}`;
    res
      .type('html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
          `<title>Wave sandbox</title></head><body><main><h1>Wave (sandbox)</h1>` +
          `<p>Payment of ${amount}: <strong data-testid="wave-status">${tx.outcome}</strong>.</p>` +
          `<p>In the sandbox the outcome follows sandboxScenario; nothing to do on this page.</p></main></body></html>`,
      );
  });

  // Test controls, not part of any operator's API.
  app.post('/_sandbox/collections/:id/collected', (req, res) => {
    const tx = txs.get(key('collection', req.params.id));
    if (!tx) return notFound(res);
    tx.partnerCollected = true;
    res.json({ id: tx.id, partnerCollected: true });
  });

  app.get('/_sandbox/transactions/:kind/:id', (req, res) => {
    const tx = txs.get(`${req.params.kind}:${req.params.id}`);
    if (!tx) return notFound(res);
    res.json(tx);
  });

  app.get('/_sandbox/callbacks', (_req, res) => {
    res.json(callbacks);
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: 'NOT_FOUND', message: 'No such route' });
  });
  app.use((err: { type?: string }, _req: Request, res: Response, _next: express.NextFunction) => {
    if (err.type === 'entity.parse.failed') return badRequest(res, 'Malformed JSON');
    res.status(500).json({ error: 'INTERNAL', message: 'Simulator error' });
  });

  return {
    app,
    setCallbackBaseUrl: (url) => {
      callbackBaseUrl = url;
    },
    transactions: txs,
    callbacks,
    close: () => {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
