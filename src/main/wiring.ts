import type { Client } from '@temporalio/client';
import type { Connection } from 'mongoose';
import type { Express } from 'express';
import type { Config } from '../config';
import type { Logger } from '../infra/logger';
import { createApp } from '../api/app';
import type { Authenticator } from '../api/auth';
import { pingMongo } from '../persistence/mongo';
import { TransactionStore } from '../persistence/transactions';
import { PayinService } from '../services/payin-service';
import { pingTemporal } from '../temporal/connection';
import { InProcessSandboxOperator } from '../operators/sandbox';
import type { ActivityDeps } from '../../activities';

// Builds the API and the worker's dependencies from their connections: the one place that wires.

/** Placeholder until merchant credentials exist: the api_key names the merchant. */
const placeholderAuthenticator: Authenticator = async (apiKey) => apiKey;

export async function buildApi(opts: {
  config: Config;
  mongo: Connection;
  temporal: Client;
  logger: Logger;
}): Promise<Express> {
  const transactions = TransactionStore.on(opts.mongo);
  await transactions.init();
  return createApp({
    logger: opts.logger,
    authenticate: placeholderAuthenticator,
    health: { mongo: () => pingMongo(opts.mongo), temporal: () => pingTemporal(opts.temporal) },
    payins: new PayinService({
      transactions,
      temporal: opts.temporal,
      taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
      payinExpiryMs: opts.config.PAYIN_EXPIRY,
      refundWindowMs: opts.config.REFUND_WINDOW,
    }),
  });
}

export async function buildActivityDeps(opts: { mongo: Connection }): Promise<ActivityDeps> {
  const transactions = TransactionStore.on(opts.mongo);
  await transactions.init();
  return { transactions, operators: new InProcessSandboxOperator() };
}
