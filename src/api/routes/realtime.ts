import type { Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import { WS_PATH } from '../ws';
import type { WsTokenStore } from '../../persistence/ws-tokens';
import { newRouter, route } from '../routing';

// Over plain HTTP, the WebSocket side of the API: browser tokens, and a 426 for a GET without upgrade.
export function realtimeRoutes(tokens: WsTokenStore): Router {
  const router = newRouter();

  route(router, 'POST /v1/ws/tokens', async (req, res) => {
    // The issuing key goes with the token: revoking it closes the stream the token opens.
    const { token, expiresAt } = await tokens.issue(req.merchantId!, req.apiKey);
    res.status(201).json({ token, expiresAt: expiresAt.toISOString(), url: `${WS_PATH}?token=${token}` });
  });

  // WS_PATH, asked without an upgrade (the route key and WS_PATH are the same path).
  route(router, 'GET /v1/ws', () => {
    throw new ApiProblem('UPGRADE_REQUIRED', { headers: { Upgrade: 'websocket' } });
  });

  return router;
}
