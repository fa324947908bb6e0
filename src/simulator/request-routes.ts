import type { Router as Express, Request, Response } from 'express';
import { isOffered } from '../domain/operators';
import { normalizeMsisdn } from '../domain/msisdn';
import {
  collectionRequestBody,
  disbursementRequestBody,
  refundRequestBody,
  type CallbackKind,
} from '../operators/wire';
import { magicBehaviour } from './magic-numbers';
import type { SimTransaction } from './books';
import { collected, view, type Failure, type SandboxOperator } from './operator';
import { badRequest, conflict, conflicts, notFound, operatorOf, parseBody } from './route-helpers';

// The operator API's money requests (docs/operators.md): a collection, a disbursement or a refund
// asked for, its status read, and the partner check of a collection.

const ussdCodes: Partial<Record<string, string>> = { MTN_CI: '*133#', MOOV_CI: '*155#' };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function mountRequestRoutes(
  app: Express,
  op: SandboxOperator,
  opts: { slowResponseMs: number },
): void {
  const books = op.books;
  const base = (req: Request) => `${req.protocol}://${req.get('host')}`;
  /** A status read of a transaction of this operator; a tombstone reads as the cancellation it is. */
  const statusRead = (kind: CallbackKind) => (req: Request, res: Response) => {
    const tx = books.get(kind, String(req.params.id));
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    res.json(view(tx));
  };
  const answer = async (res: Response, tx: SimTransaction, created: boolean) => {
    if (created && tx.magic === 'slow-first-answer') await sleep(opts.slowResponseMs);
    res.status(created ? 201 : 200).json(view(tx));
  };

  app.post('/operators/:code/collections', async (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const body = parseBody(collectionRequestBody, req, res);
    if (!body) return;
    if (!isOffered(operator, body.country))
      return badRequest(res, `${operator} does not operate in ${body.country}`);
    const msisdn = normalizeMsisdn(body.msisdn, body.country);
    if (!msisdn) return badRequest(res, `Not a mobile number of ${body.country}`);
    const known = books.get('collection', body.transactionId);
    if (known && conflicts(known, operator, body.amount, msisdn)) return conflict(res);

    let otpFailure: Failure | null = null;
    if (operator === 'ORANGE') {
      if (!body.otp)
        otpFailure = { code: 'OTP_REQUIRED', message: 'Orange Money needs the OTP (dial #144*82#)' };
      else if (!/^\d{4,8}$/.test(body.otp) || body.otp === '000000')
        otpFailure = { code: 'OTP_INVALID', message: 'The OTP is wrong or expired' };
    }
    const { tx, created } = op.admit(
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
    await answer(res, tx, created);
  });

  app.get('/operators/:code/collections/:id', statusRead('collection'));

  app.post('/operators/:code/collections/:id/partner-check', (req, res) => {
    const tx = books.get('collection', req.params.id);
    if (!tx || tx.operator !== req.params.code) return notFound(res);
    const found = op.partnerCheck(tx);
    res.json({
      collected: found,
      ...(found ? { operatorReference: `${tx.operatorReference}_partner` } : {}),
    });
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
    const known = books.get('disbursement', body.transactionId);
    if (known && conflicts(known, operator, body.amount, msisdn)) return conflict(res);
    const magic = magicBehaviour(msisdn);
    const { tx, created } = op.admit(
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
    await answer(res, tx, created);
  });

  app.get('/operators/:code/disbursements/:id', statusRead('disbursement'));

  app.post('/operators/:code/refunds', async (req, res) => {
    const operator = operatorOf(req, res);
    if (!operator) return;
    const body = parseBody(refundRequestBody, req, res);
    if (!body) return;
    const known = books.get('refund', body.refundId);
    if (
      known &&
      (known.operator !== operator ||
        (!known.tombstone && (known.originalId !== body.transactionId || known.amount !== body.amount)))
    )
      return conflict(res);
    const original = books.get('collection', body.transactionId);
    let refusal: Failure | null = null;
    if (!known) {
      if (!original || original.operator !== operator || !collected(original)) {
        refusal = { code: 'ORIGINAL_NOT_COLLECTED', message: 'No collected payment has this id' };
      } else {
        // Completed and still pending refunds both count against what can be reversed.
        const reserved = [...books.all()]
          .filter((t) => t.kind === 'refund' && t.originalId === original.id && t.outcome !== 'failed')
          .reduce((sum, t) => sum + t.amount, 0);
        if (reserved + body.amount > original.amount)
          refusal = { code: 'REFUND_EXCEEDS_COLLECTION', message: 'The refunds would exceed the payment' };
      }
    }
    const msisdn = original?.msisdn ?? '';
    const magic = magicBehaviour(msisdn);
    const { tx, created } = op.admit(
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
    await answer(res, tx, created);
  });

  app.get('/operators/:code/refunds/:id', statusRead('refund'));
}
