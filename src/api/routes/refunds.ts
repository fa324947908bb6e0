import type { Router } from 'express';
import { refundRequest } from '../../contract/schemas/refund';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../../contract/problems';
import { parseBasic } from '../auth';
import { toRefundRecord } from '../../contract/records/refund-record';
import type { RefundService } from '../../services/refund-service';
import { newRouter, route } from '../routing';

export function refundRoutes(refunds: RefundService): Router {
  const router = newRouter();

  route(router, 'POST /v1/payin/:reference/refund', async (req, res) => {
    const body = parseOr400(refundRequest, req.body, req);
    const { created, refund } = await refunds.create(
      {
        merchantId: req.merchantId!,
        // Authenticated already: the header is well formed. Kept for the audit trail.
        apiKey: parseBasic(req.headers.authorization)?.apiKey ?? null,
        idempotencyKey: req.idempotencyKey ?? null,
        requestFingerprint: req.idempotencyFingerprint ?? null,
      },
      req.params.reference,
      body,
    );
    res.status(created ? 201 : 200).json(toRefundRecord(refund));
  });

  route(router, 'GET /v1/refunds/:reference', async (req, res) => {
    const refund = await refunds.get(req.merchantId!, req.params.reference);
    if (!refund) throw new ApiProblem('REFUND_NOT_FOUND');
    res.json(toRefundRecord(refund));
  });

  return router;
}
