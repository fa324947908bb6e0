import type { Router } from 'express';
import { createPayoutBatchRequest } from '../../contract/schemas/payout-batch';
import { toPayoutBatchRecord } from '../../contract/records/payout-batch-record';
import { negotiateLanguage } from '../../contract/i18n';
import { renderProblem } from '../../contract/render-problem';
import type { PayoutBatchService } from '../../services/payout-batch-service';
import type { PayoutBatch } from '../../persistence/payout-batches';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';

/** POST /v1/payouts/bulk and GET /v1/payouts/bulk/{id} (docs/bulk-payouts.md). */
export function payoutBatchRoutes(batches: PayoutBatchService): Router {
  const router = newRouter();
  const record = async (batch: PayoutBatch, req: Parameters<typeof negotiateLanguage>[0]) =>
    toPayoutBatchRecord(batch, await batches.payoutsOf(batch), negotiateLanguage(req), renderProblem);

  route(router, 'POST /v1/payouts/bulk', async (req, res) => {
    const body = parseOr400(createPayoutBatchRequest, req.body, req);
    const { created, batch } = await batches.create(
      req.merchantId!,
      body,
      req.idempotencyKey!,
      req.idempotencyFingerprint,
    );
    res.status(created ? 201 : 200).json(await record(batch, req));
  });

  route(router, 'GET /v1/payouts/bulk/:id', async (req, res) => {
    res.json(await record(await batches.get(req.merchantId!, req.params.id), req));
  });

  return router;
}
