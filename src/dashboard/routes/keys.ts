import express, { Router } from 'express';
import { z } from 'zod';
import { requirePermission } from '../access/guard';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { modes, modeOfApiKey } from '../../domain/modes';
import type { MerchantService } from '../../merchants/service';

// API keys of both modes (docs/dashboard.md): listed without their secrets, created (the secret is
// answered once, never stored in clear), revoked. The same MerchantService the CLI uses. The last
// active key of a mode cannot be revoked (docs/decisions/dashboard/last-active-key.md): create its
// successor first.

const createBody = z.strictObject({ mode: z.enum(modes) });

export function keyRoutes(merchants: MerchantService): Router {
  const router = Router();
  const keysOf = async (merchantId: string) =>
    (await merchants.listKeys(merchantId)).map((k) => ({
      apiKey: k.apiKey,
      mode: k.mode,
      status: k.status,
      createdAt: new Date(k.createdAt).toISOString(),
      revokedAt: k.revokedAt ? new Date(k.revokedAt).toISOString() : null,
      lastUsedAt: k.lastUsedAt ? new Date(k.lastUsedAt).toISOString() : null,
    }));

  router.get('/keys', requirePermission('developer'), async (req, res) => {
    res.json({ data: await keysOf(req.member!.merchantId) });
  });

  router.post('/keys', requirePermission('developer'), express.json({ limit: '2kb' }), async (req, res) => {
    const { mode } = parseOr400(createBody, req.body ?? {}, req);
    const issued = await merchants.rotateKeys(req.member!.merchantId, mode);
    res.status(201).set('Cache-Control', 'no-store').json({
      apiKey: issued.apiKey,
      // Shown this once: only its hash is stored.
      apiClient: issued.apiClient,
      mode,
    });
  });

  router.delete('/keys/:apiKey', requirePermission('developer'), async (req, res) => {
    const keys = await keysOf(req.member!.merchantId);
    const key = keys.find((k) => k.apiKey === req.params.apiKey);
    if (!key) throw new ApiProblem('API_KEY_NOT_FOUND');
    const mode = modeOfApiKey(key.apiKey);
    const othersActive = keys.some(
      (k) => k.mode === mode && k.status === 'active' && k.apiKey !== key.apiKey,
    );
    if (key.status === 'active' && !othersActive) throw new ApiProblem('LAST_ACTIVE_KEY');
    await merchants.revokeKey(key.apiKey);
    res.json((await keysOf(req.member!.merchantId)).find((k) => k.apiKey === key.apiKey));
  });

  return router;
}
