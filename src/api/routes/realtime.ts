import { Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import { WS_PATH } from '../ws';
import type { WsTokenStore } from '../../persistence/ws-tokens';

// Over plain HTTP, the WebSocket side of the API: browser tokens, and a 426 for a GET without upgrade.
export function realtimeRoutes(tokens: WsTokenStore): Router {
  const router = Router();

  router.post('/v1/ws/tokens', async (req, res) => {
    // The issuing key goes with the token: revoking it closes the stream the token opens.
    const { token, expiresAt } = await tokens.issue(req.merchantId!, req.apiKey);
    res.status(201).json({ token, expiresAt: expiresAt.toISOString(), url: `${WS_PATH}?token=${token}` });
  });

  router.get(WS_PATH, () => {
    throw new ApiProblem('UPGRADE_REQUIRED', { headers: { Upgrade: 'websocket' } });
  });

  return router;
}
