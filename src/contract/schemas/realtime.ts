import { z } from 'zod';

/** POST /v1/ws/tokens: a single-use browser token for the WebSocket stream, valid 60 s. */
export const wsTokenRecord = z.object({
  token: z.string().startsWith('wst_'),
  expiresAt: z.string(),
  /** Path to open as a WebSocket, token included. */
  url: z.string(),
});
