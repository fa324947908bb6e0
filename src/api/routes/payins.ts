import { Router } from 'express';
import { directPayinRequest } from '../schemas/payin';
import { parseOr400 } from '../validate';
import { ApiProblem } from '../problem';
import { toTransactionRecord } from '../../domain/transaction-record';
import type { PayinService } from '../../services/payin-service';

export function payinRoutes(payins: PayinService): Router {
  const router = Router();

  router.post('/v1/direct/payin', async (req, res) => {
    const body = parseOr400(directPayinRequest, req.body, req);
    const { created, transaction } = await payins.createDirect(req.merchantId!, body);
    res.status(created ? 201 : 200).json(toTransactionRecord(transaction));
  });

  router.get('/v1/payin/:reference', async (req, res) => {
    const tx = await payins.get(req.merchantId!, req.params.reference);
    if (!tx) throw new ApiProblem('PAYMENT_NOT_FOUND');
    res.json(toTransactionRecord(tx));
  });

  return router;
}
