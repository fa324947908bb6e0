import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { requireMerchant, type Authenticator } from './auth';
import { errorHandler, notFoundHandler } from './problem';
import { healthRoutes, type HealthChecks } from './routes/health';
import { payinRoutes } from './routes/payins';
import type { PayinService } from '../services/payin-service';

export interface AppDeps {
  logger: Logger;
  health: HealthChecks;
  authenticate: Authenticator;
  payins: PayinService;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');

  app.use(healthRoutes(deps.health));
  app.use(express.json({ limit: '32kb', type: ['application/json', 'application/*+json'] }));

  // Every /v1 route is the calling merchant's; routers declare full paths, as the interface writes them.
  app.use('/v1', requireMerchant(deps.authenticate));
  app.use(payinRoutes(deps.payins));

  app.use(notFoundHandler);
  app.use(errorHandler((err) => deps.logger.error({ err }, 'unhandled error')));
  return app;
}
