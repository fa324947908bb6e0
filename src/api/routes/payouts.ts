import type { Router } from 'express';
import {
  accountPayoutRequest,
  directPayoutRequest,
  standardPayoutRequest,
} from '../../contract/schemas/payout';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../../contract/problems';
import { toPublicRecord } from '../../contract/records/payout-record';
import type { PayoutService } from '../../services/payout-service';
import { newRouter, route } from '../routing';

// Endpoints 4 to 7. A payout answers, at creation and at every read, in the shape it was created
// with: the transaction record (direct: with mobileMoney; standard shape A: without) or, for a
// standard payout with accountId (shape B), the alternative payout record.
export function payoutRoutes(payouts: PayoutService): Router {
  const router = newRouter();

  route(router, 'POST /v1/direct/payout', async (req, res) => {
    const body = parseOr400(directPayoutRequest, req.body, req);
    const { created, transaction } = await payouts.create(
      req.merchantId!,
      {
        shape: 'direct',
        reference: body.reference,
        sandboxScenario: body.sandboxScenario,
        customerName: body.customerName,
        metadata: body.metadata,
        ...body.payout,
        pathPrefix: 'payout.',
      },
      req.idempotencyKey,
      req.idempotencyFingerprint,
    );
    res.status(created ? 201 : 200).json(toPublicRecord(transaction));
  });

  route(router, 'GET /v1/direct/payout/:reference', async (req, res) => {
    const tx = await payouts.get(req.merchantId!, req.params.reference, 'direct');
    if (!tx) throw new ApiProblem('PAYOUT_NOT_FOUND');
    res.json(toPublicRecord(tx));
  });

  route(router, 'POST /v1/payout', async (req, res) => {
    // The shape follows the request: `accountId` present (even empty) means shape B.
    const withAccount = typeof req.body === 'object' && req.body !== null && 'accountId' in req.body;
    const body = withAccount
      ? { shape: 'B' as const, ...parseOr400(accountPayoutRequest, req.body, req) }
      : { shape: 'A' as const, ...parseOr400(standardPayoutRequest, req.body, req) };
    const { created, transaction } = await payouts.create(
      req.merchantId!,
      { ...body, pathPrefix: '' },
      req.idempotencyKey,
      req.idempotencyFingerprint,
    );
    res.status(created ? 201 : 200).json(toPublicRecord(transaction));
  });

  route(router, 'GET /v1/payout/:reference', async (req, res) => {
    const tx = await payouts.get(req.merchantId!, req.params.reference, 'standard');
    if (!tx) throw new ApiProblem('PAYOUT_NOT_FOUND');
    res.json(toPublicRecord(tx));
  });

  // Cancels a payout not yet sent to the operator (docs/payouts.md, "Held for the provider").
  route(router, 'POST /v1/direct/payout/:reference/cancel', async (req, res) => {
    res.json(toPublicRecord(await payouts.cancel(req.merchantId!, req.params.reference, 'direct')));
  });

  route(router, 'POST /v1/payout/:reference/cancel', async (req, res) => {
    res.json(toPublicRecord(await payouts.cancel(req.merchantId!, req.params.reference, 'standard')));
  });

  return router;
}
