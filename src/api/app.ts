import type { KeyRing } from '../security/key-ring';
import express, { type Express, type Router } from 'express';
import type { Logger } from 'pino';
import { requireMerchant, type Authenticator } from './auth';
import { errorHandler, notFoundHandler } from './problem';
import { idempotency } from './idempotency';
import { jsonBody } from './json-body';
import { AddressLimiter, merchantRateLimit, registerAddressLimiter } from './rate-limit';
import { internalAccess } from '../infra/metrics-server';
import type { IdempotencyStore } from '../persistence/idempotency-keys';
import { healthRoutes, type HealthChecks } from './routes/health';
import { docsRoutes } from './routes/docs';
import { observability } from './observability';
import { DatabaseWatch, type DatabaseGuardOptions } from './dependency-guard';
import { payinRoutes } from './routes/payins';
import { accountRoutes } from './routes/accounts';
import type { Ledger } from '../ledger';
import { callbackRoutes } from './routes/callbacks';
import type { CallbackService } from '../operators/callbacks';
import {
  providerRoutes,
  type ConnectorOf,
  type ProviderStates,
  type RouteStatesOf,
} from './routes/providers';
import { recipientRoutes, type RecipientRouteOptions } from './routes/recipient';
import type { RecipientService } from '../services/recipient-service';
import { webhookRoutes, type WebhookApiDeps } from './routes/webhooks';
import { paymentLinkRoutes } from './routes/payment-links';
import { paymentLinkPageRoutes, type LinkPageDeps } from './routes/payment-link-page';
import type { PaymentLinkService } from '../services/payment-link-service';
import { eventRoutes } from './routes/events';
import { realtimeRoutes } from './routes/realtime';
import type { WsTokenStore } from '../persistence/ws-tokens';
import type { PayinService } from '../services/payin-service';
import type { PayoutService } from '../services/payout-service';
import { payoutRoutes } from './routes/payouts';
import type { RefundService } from '../services/refund-service';
import { refundRoutes } from './routes/refunds';
import { transactionRoutes } from './routes/transactions';
import { statementDownloadRoutes, statementRoutes } from './routes/statements';
import { payoutBatchRoutes } from './routes/payout-batches';
import type { PayoutBatchService } from '../services/payout-batch-service';
import type { StatementService } from '../services/statement-service';
import type { TransactionSearch } from '../services/transaction-search';
import { checkoutRoutes, type CheckoutLimits } from './routes/checkout';
import type { CheckoutService } from '../checkout/service';
import { allowedMethods, methodNotAllowed, pathMethods } from './method-not-allowed';
import { assertEveryRouteGuarded, unknownRoutes } from './routing';
import { sandboxRoutes, testModeOnly } from './routes/sandbox';
import type { SandboxHelpers } from '../services/sandbox-helpers';
import { openApiDocument } from './openapi/document';
import { requestLog, type RequestLogOptions } from '../request-log/middleware';

export interface AppDeps {
  logger: Logger;
  health: HealthChecks;
  /** Answers 503 at once while MongoDB is unreachable; omitted, requests meet the driver's timeouts. */
  database?: DatabaseGuardOptions;
  authenticate: Authenticator;
  payins: PayinService;
  /** Refunds of payins (endpoint 8, GET /v1/refunds/{reference}); omitted, the routes are absent. */
  refunds?: RefundService;
  /** Payouts (endpoints 4 to 7); omitted, the routes are absent. */
  payouts?: PayoutService;
  /** Bulk payouts (POST /v1/payouts/bulk and its read); omitted, the routes are absent. */
  payoutBatches?: PayoutBatchService;
  /** Statements (POST /v1/statements and reads, the signed download); omitted, the routes are absent. */
  statements?: StatementService;
  /** GET /v1/transactions, the merchant's search; omitted, the route is absent. */
  search?: TransactionSearch;
  /** The merchant ledger behind GET /v1/accounts; omitted, the routes are absent. */
  ledger?: Ledger;
  /** The hosted checkout page of payin sessions (customer-facing, no merchant credentials). */
  checkout: CheckoutService;
  /** Its limits per client address and per session (CHECKOUT_*_PER_MINUTE); omitted, the defaults. */
  checkoutLimits?: CheckoutLimits;
  /**
   * The callback door: real providers' callbacks (POST /provider-callbacks/:name) and the sandbox
   * simulator's (POST /operator-callbacks/:code); omitted, the routes are absent.
   */
  callbacks?: CallbackService;
  /** GET /v1/providers/recipient (recipient checks); omitted, the route is absent. */
  recipients?: RecipientRouteOptions & { service: RecipientService };
  /** Provider states shown by GET /v1/providers; omitted, every provider is operational. */
  providerHealth?: ProviderStates;
  /** The live connector per provider × operation, shown by GET /v1/providers. */
  providerConnectorOf?: ConnectorOf;
  /** Every route of a provider × operation with its measures, shown by GET /v1/providers. */
  providerRouteStates?: RouteStatesOf;
  idempotency: IdempotencyStore;
  /** The test helpers (POST /v1/sandbox/...), test mode only; omitted, the routes are absent. */
  sandbox?: SandboxHelpers;
  /** Requests per merchant per minute; 0 disables the limit. */
  rateLimitPerMinute: number;
  /** Failed authentications per client address per minute, before authenticating; 0 or omitted: none. */
  failedAuthPerAddressPerMinute?: number;
  /** Bearer token for /metrics and readiness details from other hosts (METRICS_TOKEN); loopback always may. */
  metricsToken?: string;
  /** Webhook endpoints, their deliveries and events; omitted, the routes are absent. */
  webhooks?: WebhookApiDeps;
  /** Payment links (/v1/payment-links, docs/payment-links.md); omitted, the routes are absent. */
  paymentLinks?: PaymentLinkService;
  /** What a payment link's public page needs beside the links; omitted, the page is absent. */
  paymentLinkPage?: Omit<LinkPageDeps, 'links'>;
  /** Browser tokens of the WebSocket stream (the stream itself is ws.ts, on the server). */
  wsTokens?: WsTokenStore;
  /** Keys request fingerprints (DATA_ENCRYPTION_KEYS), so bodies with phone numbers or OTPs can't be guessed from them. */
  fingerprintKeys?: KeyRing;
  /**
   * The merchant dashboard's door under /dashboard, built by the wiring (src/main/wiring.ts) from
   * src/dashboard/app.ts: it gets the public API to mount on the member's behalf. Omitted, absent.
   * The API does not import the dashboard (which builds on the API's routing and problems).
   */
  dashboard?: DashboardDoor;
  /** Express `trust proxy` (TRUST_PROXY): which proxies may name the client address; default loopback. */
  trustProxy?: boolean | number | string[];
  /** Every /v1 request of a merchant, kept 30 days for the dashboard (src/request-log); omitted, none. */
  requestLog?: RequestLogOptions;
}

/** A door that serves the public API too: given how to mount it, the door's router. */
export type DashboardDoor = (mountPublicApi: (router: Router) => void) => Router;

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // req.ip keys the per-address limits: only proxies named here may set it (X-Forwarded-For).
  app.set('trust proxy', deps.trustProxy ?? 'loopback');
  // '/V1/x' is not '/v1/x', nor is '/v1/x/': every router is a newRouter() (src/api/routing.ts).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  // First: request ids, access logs and HTTP metrics for every route; then /metrics, /openapi.json, /docs.
  const internal = internalAccess(deps.metricsToken);
  app.use(observability(deps.logger, internal));
  // A path no row of the route table matches: 404 (or 405) before any session, key or claim.
  const documented = pathMethods(openApiDocument().paths as Record<string, Record<string, unknown>>);
  app.use(unknownRoutes((path) => allowedMethods(documented, path) !== null));
  // A documented path asked with an undocumented method: 405 before any other middleware answers.
  app.use(methodNotAllowed(openApiDocument().paths as Record<string, Record<string, unknown>>));
  const database = deps.database ? new DatabaseWatch(deps.database) : null;
  // Readiness says "MongoDB down" at once while the outage is known, like every other route.
  app.use(
    healthRoutes(database ? { ...deps.health, mongo: () => database.answers() } : deps.health, internal),
  );
  app.use(docsRoutes());
  if (database) app.use(database.guard());
  // Before the JSON parser: signatures cover the raw body, and providers have no merchant credentials.
  if (deps.callbacks) app.use(callbackRoutes(deps.callbacks));
  // The dashboard parses its own bodies, after its session and CSRF checks.
  if (deps.dashboard)
    app.use(
      '/dashboard',
      deps.dashboard((router) => mountPublicApi(router, deps)),
    );
  app.use(jsonBody());
  // Customers reach the hosted checkout page with the link alone: mounted before /v1 authentication.
  app.use(checkoutRoutes(deps.checkout, deps.checkoutLimits));
  // A payment link's page, as public as the checkout's (the slug is the credential).
  if (deps.paymentLinks && deps.paymentLinkPage)
    app.use(
      paymentLinkPageRoutes({ links: deps.paymentLinks, ...deps.paymentLinkPage }, deps.checkoutLimits),
    );

  // An address that keeps failing to authenticate is refused before any credential lookup.
  if (deps.failedAuthPerAddressPerMinute) {
    const limiter = new AddressLimiter(deps.failedAuthPerAddressPerMinute);
    registerAddressLimiter(app, limiter);
    app.use('/v1', limiter.middleware());
  }
  // A signed, short-lived link is its own credential (accounting tools fetch it without the API key).
  if (deps.statements) app.use(statementDownloadRoutes(deps.statements));
  // Every /v1 route is the calling merchant's; routers declare full paths, as the interface writes them.
  app.use('/v1', requireMerchant(deps.authenticate));
  mountPublicApi(app, deps);

  app.use(notFoundHandler);
  if (database) app.use(database.listen());
  app.use(errorHandler((err) => deps.logger.error({ err }, 'unhandled error')));
  // A route registered without its row's guard (not through route()): the server does not start.
  assertEveryRouteGuarded(app);
  return app;
}

/**
 * What runs after a caller is known (req.merchantId set): the rate limit, idempotency and the
 * routers of the public API. The API key door (/v1) and the dashboard's (/dashboard/api/v1) both
 * mount it, so a call made from the dashboard meets the same validation, idempotency and tenant
 * rules as one made with an API key. Routers declare full paths ('/v1/...').
 */
export function mountPublicApi(app: Router, deps: AppDeps): void {
  // Right after the scope is known: it sees every later refusal (throttling, idempotency) and the answer.
  if (deps.requestLog) app.use('/v1', requestLog(deps.requestLog));
  // A live key on a test helper is refused before it is throttled or claims an idempotency key.
  if (deps.sandbox) app.use('/v1/sandbox', testModeOnly);
  // Throttled requests never claim an idempotency key; every POST claims one before any router.
  app.use('/v1', merchantRateLimit(deps.rateLimitPerMinute));
  app.use(
    '/v1',
    idempotency({
      store: deps.idempotency,
      log: (err) => deps.logger.error({ err }, 'idempotency store'),
      ...(deps.fingerprintKeys ? { fingerprintKeys: deps.fingerprintKeys } : {}),
    }),
  );
  app.use(payinRoutes(deps.payins, deps.refunds));
  if (deps.refunds) app.use(refundRoutes(deps.refunds));
  if (deps.payouts) app.use(payoutRoutes(deps.payouts));
  if (deps.payoutBatches) app.use(payoutBatchRoutes(deps.payoutBatches));
  if (deps.ledger) app.use(accountRoutes(deps.ledger));
  if (deps.search) app.use(transactionRoutes(deps.search));
  if (deps.statements) app.use(statementRoutes(deps.statements));
  if (deps.recipients) app.use(recipientRoutes(deps.recipients.service, deps.recipients));
  app.use(providerRoutes(deps.providerHealth, deps.providerConnectorOf, deps.providerRouteStates));
  if (deps.webhooks) app.use(webhookRoutes(deps.webhooks), eventRoutes(deps.webhooks));
  if (deps.paymentLinks) app.use(paymentLinkRoutes(deps.paymentLinks));
  if (deps.wsTokens) app.use(realtimeRoutes(deps.wsTokens));
  if (deps.sandbox) app.use(sandboxRoutes(deps.sandbox));
}
