import type { Router } from 'express';
import { directPayinRequest } from '../../contract/schemas/payin';
import { payinSessionRequest } from '../../contract/schemas/payin-session';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../../contract/problems';
import { toTransactionRecord } from '../../contract/records/transaction-record';
import type { PayinService } from '../../services/payin-service';
import type { RefundService } from '../../services/refund-service';
import { newRouter, route } from '../routing';

export function payinRoutes(payins: PayinService, refunds?: RefundService): Router {
  const router = newRouter();

  route(router, 'POST /v1/direct/payin', async (req, res) => {
    const body = parseOr400(directPayinRequest, req.body, req);
    const { created, transaction } = await payins.createDirect(
      req.merchantId!,
      body,
      req.idempotencyKey,
      req.idempotencyFingerprint,
    );
    res.status(created ? 201 : 200).json(toTransactionRecord(transaction));
  });

  route(router, 'POST /v1/payin/sessions', async (req, res) => {
    const body = parseOr400(payinSessionRequest, req.body, req);
    const { created, transaction } = await payins.createSession(req.merchantId!, body, {
      idempotencyKey: req.idempotencyKey,
      requestFingerprint: req.idempotencyFingerprint,
      requestOrigin: `${req.protocol}://${req.get('host')}`,
    });
    res.status(created ? 201 : 200).json(toTransactionRecord(transaction));
  });

  route(router, 'GET /v1/payin/:reference', async (req, res) => {
    const tx = await payins.get(req.merchantId!, req.params.reference);
    if (!tx) throw new ApiProblem('PAYMENT_NOT_FOUND');
    // This read also tracks refund progress (the interface): the payin's refunds and refunded total.
    res.json(toTransactionRecord(tx, refunds ? await refunds.ofPayin(tx) : undefined));
  });

  return router;
}
