import type { Client } from '@temporalio/client';
import { NoteStore } from '../dashboard/data/notes';
import { SavedFilterStore } from '../dashboard/data/saved-filters';
import { ConnectionStates, type Connection } from 'mongoose';
import type { Express } from 'express';
import type { Config } from '../config';
import type { Logger } from '../infra/logger';
import { createApp } from '../api/app';
import { dashboardRouter, type DashboardDeps } from '../dashboard/app';
import { MerchantService } from '../merchants';
import { MerchantLogoStore } from '../merchants/logos';
import { Ledger } from '../ledger';
import { RequestLogStore } from '../request-log/store';
import { resolveFeeSchedule } from '../domain/fees';
import { pingMongo } from '../persistence/mongo';
import { SharedLimits } from '../persistence/shared-limits';
import { TransactionStore } from '../persistence/transactions';
import { IdempotencyStore } from '../persistence/idempotency-keys';
import { WorkflowStartLog } from '../persistence/workflow-starts';
import { OtpStore } from '../persistence/otp-store';
import { PayinService } from '../services/payin-service';
import { RefundService } from '../services/refund-service';
import { RefundStore } from '../persistence/refunds';
import { RefundAuditLog } from '../persistence/refund-audit';
import { Hub2JournalStore } from '../persistence/hub2-journal';
import { CallbackReceiptStore } from '../persistence/callback-receipts';
import { CallbackService } from '../operators/callbacks';
import { PayoutService } from '../services/payout-service';
import { TransactionWorkflows } from '../services/transaction-workflows';
import { CheckoutService } from '../checkout/service';
import { PaymentLinkStore } from '../persistence/payment-links';
import { PaymentLinkService } from '../services/payment-link-service';
import { pingTemporal } from './temporal/connection';
import {
  buildOperatorGateway,
  buildOperators,
  providerHealthOf,
  publishedByRoute,
  routeHealthSamples,
  routeStatesOf,
  type Operators,
} from './operators';
import { setRouteHealthSource } from '../infra/metrics';
import type { RefundRulesOf, RulesOf } from '../operators/connectors';
import type { ActivityDeps } from '../../activities';
import type { Authenticator } from '../api/auth';
import type { WebhookApiDeps } from '../api/routes/webhooks';
import { RealtimeHub } from '../api/ws';
import { WsTokenStore } from '../persistence/ws-tokens';
import { EventFeed } from '../events/event-feed';
import { EventStore } from '../events/event-store';
import { DeliveryLog } from '../webhooks/delivery-log';
import { ReadChains } from '../persistence/read-chains';
import { EndpointStore } from '../webhooks/endpoint-store';
import type { KeyRing } from '../security/key-ring';
import type { RecoveryDeps } from '../../activities/operations/recovery-activities';
import type { PayinTiming } from '../domain/payin-timing';
import { buildReconciliationStores } from '../reconciliation';
import { registerRealtime } from '../api/ws';
import { recipientApi } from '../services/recipient-service';
import { TransactionSearch } from '../services/transaction-search';
import { StatementStore } from '../statements/store';
import { PayoutBatchStore } from '../persistence/payout-batches';
import { replayModel } from '../webhooks/replay-store';
import { PayoutBatchService } from '../services/payout-batch-service';
import { payoutBatchWorkflow } from '../../workflows/payout/payout-batch';
import { startOnce } from '../temporal/start-once';
import { payoutBatchWorkflowId, webhookReplayWorkflowId } from '../temporal/workflow-ids';
import { WebhookOperations } from '../services/webhook-operations';
import { webhookReplayWorkflow } from '../../workflows/webhooks/webhook-replay';
import { StatementService } from '../services/statement-service';
import { SandboxHelpers } from '../services/sandbox-helpers';
import { DashboardIdentity } from '../dashboard/identity';
import { AlertReader } from '../dashboard/alerts/alerts';
import { AlertMail } from '../dashboard/alerts/mail';
import { AlertSettingsStore } from '../dashboard/alerts/settings';
import { everyInBackground } from './background';
import { RouteBookStore } from '../operators/routes/book';

const recipientConnectors = (ops: Operators) => ({
  sandbox: ops.sandbox,
  connectorFor: ops.live.connectorFor.bind(ops.live),
});

// Builds the API and the worker's dependencies from their connections: the one place that wires
// (the composition root). Everything below src/main offers plain constructors and factories.

/** A merchant's own refund window (settings.refundWindowDays), which wins over REFUND_WINDOW. */
function refundWindowOf(merchants: MerchantService): PayinTiming['refundWindowMsOf'] {
  return async (merchantId) => {
    const days = (await merchants.settingsOf(merchantId))?.refundWindowDays;
    return typeof days === 'number' ? days * 86_400_000 : null;
  };
}

/** Who pays payin fees by the merchant's setting, when a request does not say (docs/fees.md). */
function payFeeOf(merchants: MerchantService): (merchantId: string) => Promise<boolean> {
  return async (merchantId) => (await merchants.settingsOf(merchantId))?.payFee ?? true;
}

/** How payins run, as the API and the recovery sweep both start them. */
function payinTiming(config: Config, merchants: MerchantService): PayinTiming {
  return {
    payinExpiryMs: config.PAYIN_EXPIRY,
    sessionExpiryMs: config.SESSION_EXPIRY,
    correctionWindowMs: config.PAYIN_CORRECTION_WINDOW,
    partnerCheckIntervalMs: config.PAYIN_PARTNER_CHECK_INTERVAL,
    localActivities: config.PAYIN_LOCAL_ACTIVITIES,
    refundWindowMs: config.REFUND_WINDOW,
    refundWindowMsOf: refundWindowOf(merchants),
  };
}

export async function buildApi(opts: {
  config: Config;
  mongo: Connection;
  temporal: Client;
  logger: Logger;
  /** Where the built dashboard page is (dist/dashboard by default); tests build their own. */
  dashboardStaticDir?: string;
}): Promise<Express> {
  const transactions = TransactionStore.on(opts.mongo);
  await transactions.init();
  const merchants = MerchantService.on(opts.mongo, {
    keyMode: opts.config.NODE_ENV === 'production' ? 'live' : 'test',
    authCacheTtlMs: opts.config.AUTH_CACHE_TTL,
    negativeCacheTtlMs: opts.config.AUTH_NEGATIVE_CACHE_TTL,
  });
  await merchants.init();
  const idempotency = IdempotencyStore.on(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS);
  await idempotency.init();
  const starts = WorkflowStartLog.on(opts.mongo);
  await starts.init();
  const refunds = RefundStore.on(opts.mongo);
  const refundAudit = RefundAuditLog.on(opts.mongo);
  await Promise.all([refunds.init(), refundAudit.init()]);
  const ledger = Ledger.on(opts.mongo);
  await ledger.init();
  await splitSystemAccountsByMode(ledger, transactions, refunds, opts.logger);
  const statements = StatementStore.on(opts.mongo);
  await statements.init();
  const payoutBatches = PayoutBatchStore.on(opts.mongo);
  await payoutBatches.init();
  const otps = OtpStore.on(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS, opts.config.OTP_LIFETIME);
  await otps.init();
  const paymentLinks = PaymentLinkStore.on(opts.mongo);
  await paymentLinks.init();
  const callbackReceipts = CallbackReceiptStore.on(opts.mongo, (err) =>
    opts.logger.warn({ err }, 'operator callback receipts: prune failed'),
  );
  await callbackReceipts.init();
  const operators = buildOperators(opts.config, await operatorRecords(opts.mongo, transactions, refunds));
  // Provider states (src/operators/health): a payin to a closed provider is refused with 503.
  const providerHealth = providerHealthOf(opts.mongo, opts.config, operators);
  setRouteHealthSource(routeHealthSamples(providerHealth, operators));
  // A live request meets the rules of the connector it is routed to; the sandbox imposes none.
  const rulesOf: RulesOf = (mode, operator, country, operation) =>
    mode === 'live' ? operators.live.rulesFor(operator, country, operation) : {};
  // A refund meets the rules of the route that collected its payin (one route book read).
  const liveFollowed = operators.live.withBook({
    book: new RouteBookStore(opts.mongo),
    fenceMs: opts.config.OPERATOR_FAILOVER_FENCE,
  });
  const refundRulesOf: RefundRulesOf = async (mode, payinId, operator, country) =>
    mode === 'live' ? liveFollowed.refundRulesFor(payinId, operator, country) : {};
  const payouts = new PayoutService({
    transactions,
    starts,
    ledger,
    temporal: opts.temporal,
    taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
    payoutExpiryMs: opts.config.PAYOUT_EXPIRY,
    feeSchedule: resolveFeeSchedule(opts.config.FEE_SCHEDULE),
  });
  const eventApi = await buildEventApi({
    ...opts,
    authenticate: (apiKey, apiClient) => merchants.authenticate(apiKey, apiClient),
  });
  const requestLog = RequestLogStore.on(opts.mongo);
  // The limits that protect (sign-in, resets, invitations, checkout, callbacks) count in MongoDB,
  // so every API replica shares them (docs/decisions/api/shared-limit-counters.md).
  const sharedLimits = SharedLimits.on(opts.mongo, { sweepEveryMs: opts.config.RATE_LIMIT_SWEEP_EVERY });
  await sharedLimits.init();
  const dashboardIdentity = DashboardIdentity.on(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS);
  await dashboardIdentity.init();
  const dashboardNotes = NoteStore.on(opts.mongo);
  await dashboardNotes.init();
  const dashboardSavedFilters = SavedFilterStore.on(opts.mongo);
  await dashboardSavedFilters.init();
  const payins = new PayinService({
    transactions,
    starts,
    temporal: opts.temporal,
    taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
    ...payinTiming(opts.config, merchants),
    operatorAnswerWaitMs: opts.config.OPERATOR_ANSWER_WAIT,
    feeSchedule: resolveFeeSchedule(opts.config.FEE_SCHEDULE),
    publicBaseUrl: opts.config.PUBLIC_BASE_URL,
    otps,
    providerHealth,
    payFeeOf: payFeeOf(merchants),
    rulesOf,
  });
  // One use case for both doors: the public API's routes and the dashboard's export of a link.
  const paymentLinkService = new PaymentLinkService({
    links: paymentLinks,
    transactions,
    payins,
    publicBaseUrl: opts.config.PUBLIC_BASE_URL,
  });
  const merchantName = async (id: string) => (await merchants.getMerchant(id))?.name ?? null;
  const logos = MerchantLogoStore.on(opts.mongo);
  const alertSettings = AlertSettingsStore.on(opts.mongo);
  await alertSettings.init();
  const alertReader = new AlertReader({
    endpoints: eventApi.webhooks.endpoints,
    deliveries: eventApi.webhooks.deliveries,
    ledger,
    statements,
    settings: alertSettings,
    health: providerHealth,
    routed: (mode, operator, country, operation) =>
      mode === 'test' || operators.live.connectorFor(operator, country, operation) !== null,
  });
  const alertMail = AlertMail.on(opts.mongo, {
    reader: alertReader,
    settings: alertSettings,
    members: dashboardIdentity.members,
    mailer: dashboardIdentity.mailer,
    merchantName,
    publicBaseUrl: opts.config.PUBLIC_BASE_URL,
  });
  await alertMail.init();
  const dashboard: DashboardDeps = {
    identity: dashboardIdentity,
    merchantName,
    logos,
    alerts: { reader: alertReader, settings: alertSettings },
    merchantActive: async (id) =>
      (await merchants.stillAllowed(id, null, opts.config.AUTH_CACHE_TTL)) === 'allowed',
    publicBaseUrl: opts.config.PUBLIC_BASE_URL,
    signIn: {
      failuresPerAddressPerMinute: opts.config.DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS,
      lockAfter: opts.config.DASHBOARD_LOCKOUT_AFTER,
      lockMs: opts.config.DASHBOARD_LOCKOUT,
      failuresPerAccount: opts.config.DASHBOARD_SIGN_IN_FAILURES_PER_ACCOUNT,
      resetMailsPerAddressPerMinute: opts.config.DASHBOARD_RESET_MAILS_PER_ADDRESS,
      invitationsPerHour: opts.config.DASHBOARD_INVITATIONS_PER_HOUR,
    },
    limits: sharedLimits,
    logger: opts.logger,
    ...(opts.dashboardStaticDir ? { staticDir: opts.dashboardStaticDir } : {}),
    data: {
      mongo: opts.mongo,
      merchants,
      ledger,
      transactions,
      refunds,
      events: eventApi.webhooks.events,
      endpoints: eventApi.webhooks.endpoints,
      deliveries: eventApi.webhooks.deliveries,
      requestLog,
      notes: dashboardNotes,
      savedFilters: dashboardSavedFilters,
      exportMaxRows: opts.config.DASHBOARD_EXPORT_MAX_ROWS,
      paymentLinks: paymentLinkService,
    },
  };
  const app = createApp({
    // The public API is mounted by both doors, as one composition (mountPublicApi of src/api/app.ts).
    dashboard: (mountPublicApi) => dashboardRouter(dashboard, mountPublicApi),
    requestLog: {
      store: requestLog,
      onError: (err) => opts.logger.warn({ err }, 'request log: write failed'),
    },
    webhooks: eventApi.webhooks,
    paymentLinks: paymentLinkService,
    paymentLinkPage: { merchantName, logos },
    wsTokens: eventApi.wsTokens,
    callbacks: new CallbackService({
      connectors: operators.connectors,
      simulatorSecrets: opts.config.OPERATOR_CALLBACK_SECRETS,
      receipts: callbackReceipts,
      transactions,
      refunds,
      temporal: opts.temporal,
      perTransactionPerMinute: opts.config.OPERATOR_CALLBACKS_PER_MINUTE,
      limiterStore: sharedLimits.store('operator-callbacks', { releases: false }),
    }),
    providerHealth,
    // Test helpers: the sandbox simulator test mode always calls (OPERATOR_BASE_URL).
    sandbox: new SandboxHelpers({ transactions, refunds, controls: operators.sandboxControls }),
    providerConnectorOf: (operator, country, operation) =>
      operators.live.connectorFor(operator, country, operation)?.name ?? null,
    providerRouteStates: routeStatesOf(providerHealth, operators),
    idempotency,
    ledger,
    rateLimitPerMinute: opts.config.RATE_LIMIT_PER_MINUTE,
    failedAuthPerAddressPerMinute: opts.config.RATE_LIMIT_FAILED_AUTH_PER_ADDRESS,
    metricsToken: opts.config.METRICS_TOKEN,
    trustProxy: opts.config.TRUST_PROXY,
    fingerprintKeys: opts.config.DATA_ENCRYPTION_KEYS,
    checkoutLimits: {
      perAddressPerMinute: opts.config.CHECKOUT_REQUESTS_PER_MINUTE,
      answersPerMinute: opts.config.CHECKOUT_ANSWERS_PER_MINUTE,
      shared: sharedLimits,
    },
    logger: opts.logger,
    authenticate: (apiKey, apiClient) => merchants.authenticate(apiKey, apiClient),
    health: { mongo: () => pingMongo(opts.mongo), temporal: () => pingTemporal(opts.temporal) },
    database: {
      isConnected: () => opts.mongo.readyState === ConnectionStates.connected,
      probe: () => pingMongo(opts.mongo),
    },
    // Recipient checks: the sandbox in test mode, the routed connector in live mode.
    recipients: {
      ...recipientApi(opts.config, recipientConnectors(operators), (info) =>
        opts.logger.warn(info, 'recipient check failed'),
      ),
      shared: sharedLimits,
    },
    payouts,
    payoutBatches: new PayoutBatchService({
      batches: payoutBatches,
      payouts,
      transactions,
      ledger,
      startWorkflow: (merchantId, batchId) =>
        startOnce(opts.temporal, payoutBatchWorkflow, {
          taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
          workflowId: payoutBatchWorkflowId(merchantId, batchId),
          args: [{ batchId }],
        }),
    }),
    search: new TransactionSearch({ transactions, refunds }),
    statements: new StatementService({
      statements,
      ledger,
      temporal: opts.temporal,
      taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
      keys: opts.config.DATA_ENCRYPTION_KEYS,
      linkTtlMs: opts.config.STATEMENT_LINK_TTL,
      publicBaseUrl: opts.config.PUBLIC_BASE_URL,
    }),
    refunds: new RefundService({
      transactions,
      refunds,
      audit: refundAudit,
      temporal: opts.temporal,
      taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
      decisionWaitMs: opts.config.REFUND_DECISION_WAIT,
      rulesOf: refundRulesOf,
    }),
    payins,
    checkout: new CheckoutService({
      transactions,
      temporal: opts.temporal,
      merchantName: async (id) => (await merchants.getMerchant(id))?.name ?? null,
      decisionWaitMs: opts.config.CHECKOUT_DECISION_WAIT,
      publicBaseUrl: opts.config.PUBLIC_BASE_URL,
      otps,
      providerHealth,
    }),
  });
  // The WebSocket stream needs the listening server: run.ts attaches it (realtimeOf).
  registerRealtime(app, eventApi.hub, {
    maxConnectionsPerMerchant: opts.config.WS_MAX_CONNECTIONS_PER_MERCHANT,
    maxQueuedMessages: opts.config.WS_MAX_QUEUED_MESSAGES,
    // Open streams of a revoked key or a suspended merchant close within AUTH_CACHE_TTL (1 s if 0).
    access: {
      check: (merchantId, apiKey, maxAgeMs) => merchants.stillAllowed(merchantId, apiKey, maxAgeMs),
      withinMs: opts.config.AUTH_CACHE_TTL || 1_000,
    },
  });
  everyInBackground(
    app,
    opts.config.ALERT_MAIL_EVERY,
    () => alertMail.sweep(),
    (err) => opts.logger.warn({ err }, 'dashboard alerts: mail sweep failed'),
  );
  return app;
}

/**
 * The system accounts once shared by test and live money, moved to those of each mode (src/ledger/
 * mode-split.ts): at every API start, a few `_id` reads once done. Each legacy entry's mode is its
 * merchant counterparty's, else its transaction's (a payin or payout, else a refund).
 */
async function splitSystemAccountsByMode(
  ledger: Ledger,
  transactions: TransactionStore,
  refunds: RefundStore,
  logger: Logger,
): Promise<void> {
  const report = await ledger.splitSharedSystemAccounts(
    async (id) =>
      (await transactions.findById(id))?.merchantId ?? (await refunds.findById(id))?.merchantId ?? null,
  );
  if (report.accounts.length === 0) return;
  const moved = report.moved.filter((m) => m.amount !== 0);
  if (moved.length > 0 || report.unresolvedEntries > 0 || report.refused.length > 0)
    logger.warn(
      {
        accounts: report.accounts,
        moved,
        unresolvedEntries: report.unresolvedEntries,
        refused: report.refused,
      },
      'ledger: system accounts shared by both modes split by mode',
    );
}

/**
 * What the live connectors read of our records: a refund's payin (Wave), its payer's number (Hub2
 * refunds by a transfer to it: read here, in the process, never through workflow history), and the
 * Hub2 connector's journal.
 */
async function operatorRecords(
  mongo: Connection,
  transactions: TransactionStore,
  refunds: RefundStore,
): Promise<Parameters<typeof buildOperators>[1]> {
  const hub2Journal = Hub2JournalStore.on(mongo);
  await hub2Journal.init();
  const payinOfRefund = async (id: string) => (await refunds.findById(id))?.payinId ?? null;
  return {
    payinOfRefund,
    payerOfRefund: async (id) => {
      const payinId = await payinOfRefund(id);
      return payinId ? ((await transactions.findById(payinId))?.customer.phoneNumber ?? null) : null;
    },
    hub2Journal,
  };
}

export async function buildActivityDeps(opts: { mongo: Connection; config: Config }): Promise<ActivityDeps> {
  const transactions = TransactionStore.on(opts.mongo);
  await transactions.init();
  const ledger = Ledger.on(opts.mongo);
  await ledger.init();
  const refunds = RefundStore.on(opts.mongo);
  const refundAudit = RefundAuditLog.on(opts.mongo);
  await Promise.all([refunds.init(), refundAudit.init()]);
  const reconciliation = buildReconciliationStores(opts.mongo);
  const operators = buildOperators(opts.config, await operatorRecords(opts.mongo, transactions, refunds));
  const merchantNames = MerchantService.on(opts.mongo);
  // The worker measures live calls and flushes them every 10 s for every process to read.
  const providerHealth = providerHealthOf(opts.mongo, opts.config, operators);
  providerHealth.start();
  const statements = StatementStore.on(opts.mongo);
  await statements.init();
  const payoutBatches = PayoutBatchStore.on(opts.mongo);
  await payoutBatches.init();
  const recovery = await buildRecoveryDeps({
    mongo: opts.mongo,
    config: opts.config,
    transactions,
    ledger,
    refunds,
  });
  const refundFees = resolveFeeSchedule(opts.config.FEE_SCHEDULE);
  return {
    transactions,
    payoutBatches,
    // A bulk payout's watch finishes its items as the request would, with the worker's client.
    payoutBatchWorkOf: (temporal) =>
      new PayoutBatchService({
        batches: payoutBatches,
        transactions,
        ledger,
        payouts: new PayoutService({
          transactions,
          starts: recovery.starts,
          ledger,
          temporal,
          taskQueue: recovery.taskQueue,
          payoutExpiryMs: recovery.payoutExpiryMs,
          feeSchedule: refundFees,
        }),
      }),
    ledger,
    refunds,
    refundAudit,
    statements,
    refundFees,
    otps: OtpStore.on(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS, opts.config.OTP_LIFETIME),
    // Every sandbox id asked of an operator is listed by day first: reconciliation finds "unknown to the operator".
    operators: buildOperatorGateway(
      operators,
      {
        transactions,
        refunds,
        asks: reconciliation.asks,
        routes: {
          book: new RouteBookStore(opts.mongo),
          fenceMs: opts.config.OPERATOR_FAILOVER_FENCE,
          measures: providerHealth.routes,
          published: publishedByRoute(operators),
          terms: opts.config.OPERATOR_ROUTE_TERMS ?? {},
          explorationShare: opts.config.OPERATOR_ROUTE_EXPLORATION,
        },
        merchantName: async (scope) => (await merchantNames.getMerchant(scope))?.name ?? null,
      },
      providerHealth.recorder,
    ),
    // Payouts wait, unsent, while their provider is delayed or closed (docs/payouts.md).
    providerHealth,
    reconciliation,
    recovery,
    ...(await buildEventStores(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS)),
    webhooks: {
      timeoutMs: opts.config.WEBHOOK_TIMEOUT,
      allowPrivateNetworks: opts.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    },
  };
}

/** The worker's recovery sweep dependencies, with the same payin timing the API starts payins with. */
export async function buildRecoveryDeps(opts: {
  mongo: Connection;
  config: Config;
  transactions: TransactionStore;
  ledger: Ledger;
  refunds?: RefundStore;
}): Promise<RecoveryDeps> {
  const starts = WorkflowStartLog.on(opts.mongo);
  await starts.init();
  const { config } = opts;
  const refunds = opts.refunds ?? RefundStore.on(opts.mongo);
  const events = EventStore.on(opts.mongo);
  // A lost entry is listed again from its record; the delivery log and the account index only mark
  // theirs (their readers skip the hole either way).
  const markOnly = (name: string) => () => new ReadChains(opts.mongo, name).repairHoles(async () => null);
  const chains = [
    { chain: 'event_chains', repair: () => events.repairChainHoles() },
    {
      chain: 'transaction_index',
      repair: () =>
        opts.transactions.index.repairHoles(async (m) =>
          m.kind === 'refund'
            ? ((await refunds.findById(m.id))?.createdAt ?? null)
            : ((await opts.transactions.findById(m.id))?.createdAt ?? null),
        ),
    },
    { chain: 'webhook_delivery_chain', repair: markOnly('webhook_delivery_chain') },
    { chain: 'ledger_account_index', repair: markOnly('ledger_account_index') },
  ];
  const payin = payinTiming(config, MerchantService.on(opts.mongo));
  return {
    chains,
    starts,
    transactions: opts.transactions,
    ledger: opts.ledger,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    payin,
    payoutExpiryMs: config.PAYOUT_EXPIRY,
    graceMs: config.RECOVERY_GRACE_PERIOD,
    // The sweep starts a transaction's workflow exactly as the API would.
    startsOf: (temporal) =>
      new TransactionWorkflows({
        temporal,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        starts,
        transactions: opts.transactions,
        ledger: opts.ledger,
        payin,
        payoutExpiryMs: config.PAYOUT_EXPIRY,
      }),
  };
}

/**
 * The stores of events and webhooks, with their indexes (and the capped feed) created; `keys`
 * (DATA_ENCRYPTION_KEYS) seal the webhook signing secrets at rest.
 */
async function buildEventStores(mongo: Connection, keys: KeyRing) {
  const events = EventStore.on(mongo);
  const endpoints = EndpointStore.on(mongo, keys);
  const deliveries = DeliveryLog.on(mongo);
  const webhookReplays = replayModel(mongo);
  await Promise.all([events.init(), endpoints.init(), deliveries.init(), webhookReplays.init()]);
  return { events, endpoints, deliveries, webhookReplays };
}

/** What the API serves of events: webhook and event routes, WebSocket tokens, and the stream hub. */
async function buildEventApi(opts: {
  config: Config;
  mongo: Connection;
  temporal: Client;
  logger: Logger;
  authenticate: Authenticator;
}): Promise<{ webhooks: WebhookApiDeps; wsTokens: WsTokenStore; hub: RealtimeHub }> {
  const stores = await buildEventStores(opts.mongo, opts.config.DATA_ENCRYPTION_KEYS);
  const wsTokens = WsTokenStore.on(opts.mongo);
  await wsTokens.init();
  const hub = new RealtimeHub({
    authenticate: opts.authenticate,
    tokens: wsTokens,
    events: stores.events,
    feed: new EventFeed(opts.mongo, { logger: opts.logger }),
    heartbeatMs: opts.config.WS_HEARTBEAT,
    logger: opts.logger,
  });
  return {
    webhooks: {
      ...stores,
      operations: new WebhookOperations({
        ...stores,
        replays: stores.webhookReplays,
        startReplay: (merchantId, replayId) =>
          startOnce(opts.temporal, webhookReplayWorkflow, {
            taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
            workflowId: webhookReplayWorkflowId(merchantId, replayId),
            args: [{ replayId }],
          }),
      }),
      temporal: opts.temporal,
      taskQueue: opts.config.TEMPORAL_TASK_QUEUE,
      allowPrivateNetworks: opts.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      deliveryTimeoutMs: opts.config.WEBHOOK_TIMEOUT,
      secretOverlapMs: opts.config.WEBHOOK_SECRET_OVERLAP,
      maxEndpoints: opts.config.WEBHOOK_MAX_ENDPOINTS,
    },
    wsTokens,
    hub,
  };
}
