import express, { type Router } from 'express';
import { z } from 'zod';
import { requireLiveKeyPower } from '../access/guard';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { modes, modeOfApiKey } from '../../domain/modes';
import type { MerchantService } from '../../merchants/service';
import { newRouter, route } from '../../api/routing';

// API keys of both modes (docs/dashboard.md): listed without their secrets, created (the secret is
// answered once, never stored in clear), revoked. The same MerchantService the CLI uses. The last
// active key of a mode cannot be revoked (docs/decisions/dashboard/last-active-key.md): create its
// successor first. Developers manage test keys; a live key needs `live_keys` (owner, admin), a live
// session and a step-up (docs/decisions/dashboard/live-money-second-factor.md).

const createBody = z.strictObject({ mode: z.enum(modes) });

export function keyRoutes(merchants: MerchantService): Router {
  const router = newRouter('/dashboard/api');
  const keysOf = async (merchantId: string) =>
    (await merchants.listKeys(merchantId)).map((k) => ({
      apiKey: k.apiKey,
      mode: k.mode,
      status: k.status,
      createdAt: new Date(k.createdAt).toISOString(),
      revokedAt: k.revokedAt ? new Date(k.revokedAt).toISOString() : null,
      lastUsedAt: k.lastUsedAt ? new Date(k.lastUsedAt).toISOString() : null,
    }));

  route(router, 'GET /dashboard/api/keys', async (req, res) => {
    res.json({ data: await keysOf(req.member!.merchantId) });
  });

  route(router, 'POST /dashboard/api/keys', express.json({ limit: '2kb' }), async (req, res) => {
    const { mode } = parseOr400(createBody, req.body ?? {}, req);
    // A live key refunds and pays out: its maker holds those powers and proved a second factor now.
    if (mode === 'live') requireLiveKeyPower(req);
    const issued = await merchants.rotateKeys(req.member!.merchantId, mode);
    res.status(201).set('Cache-Control', 'no-store').json({
      apiKey: issued.apiKey,
      // Shown this once: only its hash is stored.
      apiClient: issued.apiClient,
      mode,
    });
  });

  route(router, 'DELETE /dashboard/api/keys/:apiKey', async (req, res) => {
    const keys = await keysOf(req.member!.merchantId);
    const key = keys.find((k) => k.apiKey === req.params.apiKey);
    if (!key) throw new ApiProblem('API_KEY_NOT_FOUND');
    const mode = modeOfApiKey(key.apiKey);
    // Revoking the live key production uses is as grave as minting one.
    if (mode === 'live') requireLiveKeyPower(req);
    const othersActive = keys.some(
      (k) => k.mode === mode && k.status === 'active' && k.apiKey !== key.apiKey,
    );
    if (key.status === 'active' && !othersActive) throw new ApiProblem('LAST_ACTIVE_KEY');
    await merchants.revokeKey(key.apiKey);
    res.json((await keysOf(req.member!.merchantId)).find((k) => k.apiKey === key.apiKey));
  });

  return router;
}
