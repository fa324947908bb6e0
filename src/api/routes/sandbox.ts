import { type Router, type RequestHandler } from 'express';
import { ApiProblem } from '../../contract/problems';
import { toTransactionRecord } from '../../contract/records/transaction-record';
import { toPublicRecord } from '../../contract/records/payout-record';
import { toRefundRecord } from '../../contract/records/refund-record';
import {
  sandboxCollectedRequest,
  sandboxPayinSettleRequest,
  sandboxRouteControlRequest,
  sandboxSettleRequest,
} from '../../contract/schemas/sandbox';
import { isLiveScope } from '../../domain/modes';
import type { SandboxHelpers } from '../../services/sandbox-helpers';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';

// The test helpers (docs/sandbox.md, "Test helpers on the API"): the merchant plays the operator's
// part on its own test transactions. Thin: the service finds the transaction and drives the sandbox.

/**
 * Mounted on /v1/sandbox after authentication, before the idempotency claim: a live key is told
 * what is wrong whatever else the request lacks, and claims no key.
 */
export const testModeOnly: RequestHandler = (req, _res, next) => {
  next(isLiveScope(req.merchantId!) ? new ApiProblem('TEST_MODE_ONLY') : undefined);
};

export function sandboxRoutes(helpers: SandboxHelpers): Router {
  const router = newRouter();

  route(router, 'POST /v1/sandbox/payins/:reference/settle', async (req, res) => {
    const body = parseOr400(sandboxPayinSettleRequest, req.body, req);
    res.json(toTransactionRecord(await helpers.settlePayin(req.merchantId!, req.params.reference, body)));
  });

  route(router, 'POST /v1/sandbox/payins/:reference/collected', async (req, res) => {
    parseOr400(sandboxCollectedRequest, req.body ?? {}, req);
    res.json(toTransactionRecord(await helpers.markCollected(req.merchantId!, req.params.reference)));
  });

  route(router, 'POST /v1/sandbox/payouts/:reference/settle', async (req, res) => {
    const body = parseOr400(sandboxSettleRequest, req.body, req);
    res.json(toPublicRecord(await helpers.settlePayout(req.merchantId!, req.params.reference, body)));
  });

  route(router, 'POST /v1/sandbox/refunds/:reference/settle', async (req, res) => {
    const body = parseOr400(sandboxSettleRequest, req.body, req);
    res.json(toRefundRecord(await helpers.settleRefund(req.merchantId!, req.params.reference, body)));
  });

  route(router, 'POST /v1/sandbox/routes', async (req, res) => {
    const body = parseOr400(sandboxRouteControlRequest, req.body, req);
    res.json({ data: await helpers.controlRoute(req.merchantId!, body) });
  });

  route(router, 'GET /v1/sandbox/routes', async (req, res) => {
    res.json({ data: await helpers.routeControls(req.merchantId!) });
  });

  return router;
}
