import type { ApiOperationId } from './generated/operations.js';

/**
 * The SDK's method for each operation of the API under /v1/, as `resource.method` on a MomoPayments
 * client. Typed by the generated table: an operation the document adds, or removes, is a compile
 * error here until the SDK follows. manifest.sh reads this table and proves each entry by calling
 * the method and watching which request it makes.
 */
export const sdkMethods = {
  createDirectPayin: 'payins.createDirect',
  createPayinSession: 'payins.createSession',
  getPayin: 'payins.get',
  refundPayin: 'refunds.create',
  getRefund: 'refunds.get',
  createDirectPayout: 'payouts.createDirect',
  createPayout: 'payouts.create',
  getPayout: 'payouts.get',
  getDirectPayout: 'payouts.getDirect',
  cancelPayout: 'payouts.cancel',
  cancelDirectPayout: 'payouts.cancelDirect',
  createPayoutBatch: 'bulkPayouts.create',
  getPayoutBatch: 'bulkPayouts.get',
  listAccounts: 'accounts.list',
  getAccount: 'accounts.get',
  listAccountEntries: 'accounts.listEntries',
  listProviders: 'providers.list',
  predictProvider: 'providers.predict',
  checkRecipient: 'providers.checkRecipient',
  createWebhookEndpoint: 'webhooks.create',
  listWebhookEndpoints: 'webhooks.list',
  getWebhookEndpoint: 'webhooks.get',
  deleteWebhookEndpoint: 'webhooks.delete',
  replayWebhookEvents: 'webhooks.replay',
  sendTestWebhookEvent: 'webhooks.sendTest',
  rotateWebhookSecret: 'webhooks.rotateSecret',
  enableWebhookEndpoint: 'webhooks.enable',
  listWebhookDeliveries: 'webhooks.listDeliveries',
  listEvents: 'events.list',
  getEvent: 'events.get',
  redeliverEvent: 'events.redeliver',
  createWsToken: 'events.createStreamToken',
  openEventStream: 'events.stream',
  listTransactions: 'transactions.list',
  createStatement: 'statements.create',
  getStatement: 'statements.get',
  downloadStatement: 'statements.download',
  sandboxSettlePayin: 'sandbox.settlePayin',
  sandboxPayinCollected: 'sandbox.markPayinCollected',
  sandboxSettlePayout: 'sandbox.settlePayout',
  sandboxSettleRefund: 'sandbox.settleRefund',
} as const satisfies Record<ApiOperationId, string>;

export type SdkMethodName = (typeof sdkMethods)[ApiOperationId];
