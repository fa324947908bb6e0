import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { jsonText } from './domain/json-text';
import { feeScheduleJson } from './domain/fees';
import { keyRingSpec, parseKeyRing } from './security/key-ring';
import { operatorRoutesJson, routeTermsJson } from './operators/connectors/routes';
import { mtnConfigShape } from './operators/connectors/mtn/config';
import { pawapayConfigShape } from './operators/connectors/pawapay/config';
import { waveConfigShape } from './operators/connectors/wave/config';
import { hub2ConfigShape } from './operators/connectors/hub2/config';
import { recipientConfigShape } from './services/recipient-service';
import { healthConfigShape } from './operators/health/config';
import { duration } from './infra/duration';
import { configDocs } from './infra/config-docs';
import type { PrivateNetworkAccess } from './webhooks/ssrf';

// Every setting comes from the environment and is validated once, at start-up, by this schema.

/** Development defaults, shared with the simulator that `npm start` runs; production sets its own. */
export const devOperatorCallbackSecrets = {
  ORANGE: 'dev-orange-callback-secret-0001',
  MTN: 'dev-mtn-callback-secret-00000001',
  MOOV: 'dev-moov-callback-secret-0000001',
  WAVE: 'dev-wave-callback-secret-0000001',
};
const secret = z.string().min(16, 'at least 16 characters');
const operatorSecrets = jsonText('JSON such as {"ORANGE":"...","MTN":"...",...}').pipe(
  z.strictObject({ ORANGE: secret, MTN: secret, MOOV: secret, WAVE: secret }),
);

/** Development keys, published here: production refuses them (productionRefusals). */
export const devPayloadCodecKeys = 'dev1:' + '00'.repeat(32);
export const devDataEncryptionKeys = 'dev1:' + '11'.repeat(32);
const keyRing = z.string().transform((text, ctx) => {
  try {
    return parseKeyRing(text);
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      message: `${(err as Error).message} (format: "kid:<64 hex>,older:<64 hex>", newest first)`,
    });
    return z.NEVER;
  }
});

/**
 * Express's `trust proxy`: `false`/`off` (the peer is the client), `true` (every proxy: the
 * leftmost X-Forwarded-For entry, which a client can forge), a hop count, or a comma list of
 * addresses, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`.
 */
const trustProxy = z.string().transform((text, ctx): boolean | number | string[] => {
  const value = text.trim();
  if (value === 'false' || value === 'off') return false;
  if (value === 'true') return true;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter(
    (e) => !['loopback', 'linklocal', 'uniquelocal'].includes(e) && !isAddressOrRange(e),
  );
  if (entries.length === 0 || bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `false, true, a hop count, or addresses/CIDR ranges/loopback/linklocal/uniquelocal separated by commas (not: ${bad.join(', ')})`,
    });
    return z.NEVER;
  }
  return entries;
});
function isAddressOrRange(text: string): boolean {
  const [address = '', bits] = text.split('/', 2);
  // Four-part decimal only: ipaddr.parse would also take `10.1` or `0x0a000001`.
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !ipaddr.IPv6.isValid(address)) return false;
  if (bits === undefined) return true;
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/** Comma-separated values, each checked by `item`. */
const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0),
    )
    .pipe(z.array(item).min(1, 'at least one value'));

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development').register(configDocs, {
      group: 'server',
      description:
        '`production` refuses sandbox funding (every merchant has test and live keys whatever `NODE_ENV` is) and makes every process refuse to start with a development setting: a message names each variable marked "required" or "must be" in the Production column.',
      production: '`production`',
    }),
    PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(3000)
      .register(configDocs, { group: 'server', description: 'Port of the API.' }),
    HOST: z
      .string()
      .default('0.0.0.0')
      .register(configDocs, { group: 'server', description: 'Bind address of the API.' }),
    HTTP_KEEP_ALIVE_TIMEOUT: duration.prefault('65s').register(configDocs, {
      group: 'server',
      description:
        "How long the API keeps an idle connection open for its next request. Longer than the idle timeout of the load balancer in front (60 s for nginx's upstream keep-alive and AWS ALB; set it above 600 s behind Google Cloud's), so the balancer always closes first and never sends a request on a connection the API is closing, which it would answer 502 (docs/decisions/api/keep-alive-outlives-the-balancer.md).",
    }),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .register(configDocs, {
        group: 'server',
        description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
      }),
    OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp', 'zipkin']).default('none').register(configDocs, {
      group: 'server',
      description:
        'Where the API and the worker send OpenTelemetry traces (HTTP requests, Temporal workflows and activities, operator and webhook calls): `none` (no tracing, no cost), `otlp` (OTLP over HTTP to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: a collector, Jaeger, Tempo…) or `zipkin` (to `OTEL_EXPORTER_ZIPKIN_ENDPOINT`: the local viewer of `npm run traces`). Spans carry no personal data (docs/operations.md#traces).',
    }),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional().register(configDocs, {
      group: 'server',
      description: 'OTLP/HTTP traces endpoint, with `OTEL_TRACES_EXPORTER=otlp`.',
      default: 'http://localhost:4318/v1/traces',
    }),
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: z.string().url().optional().register(configDocs, {
      group: 'server',
      description: 'Zipkin spans endpoint, with `OTEL_TRACES_EXPORTER=zipkin`.',
      default: 'http://localhost:9411/api/v2/spans',
    }),
    MONGODB_URI: z.string().url().optional().register(configDocs, {
      group: 'storage',
      description:
        'MongoDB (or FerretDB) connection string. Unset, `npm start` runs an embedded FerretDB and uses it.',
      default: 'embedded FerretDB',
      production: 'required (API and worker)',
    }),
    TEMPORAL_ADDRESS: z.string().min(1).optional().register(configDocs, {
      group: 'storage',
      description:
        'Temporal frontend, `host:port`. Unset, `npm start` runs an embedded Temporal dev server and uses it.',
      default: 'embedded dev server',
      production: 'required (API and worker)',
    }),
    TEMPORAL_NAMESPACE: z
      .string()
      .min(1)
      .default('default')
      .register(configDocs, { group: 'storage', description: 'Temporal namespace.' }),
    TEMPORAL_TASK_QUEUE: z
      .string()
      .min(1)
      .default('payments')
      .register(configDocs, { group: 'storage', description: 'Task queue of the workers.' }),
    DATA_DIR: z.string().default('.data').register(configDocs, {
      group: 'embedded',
      description: 'Where the embedded servers of `npm start` keep their data.',
    }),
    EMBEDDED_MONGODB_PORT: z.coerce
      .number()
      .int()
      .min(1)
      .max(65535)
      .default(27017)
      .register(configDocs, { group: 'embedded', description: 'Port of the embedded FerretDB.' }),
    EMBEDDED_TEMPORAL_PORT: z.coerce
      .number()
      .int()
      .min(1)
      .max(65535)
      .default(7233)
      .register(configDocs, { group: 'embedded', description: 'Port of the embedded Temporal dev server.' }),
    EMBEDDED_TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233).register(configDocs, {
      group: 'embedded',
      description: "Port of the embedded Temporal server's Web UI.",
    }),
    PUBLIC_BASE_URL: z.string().url().optional().register(configDocs, {
      group: 'server',
      description:
        "Public HTTPS address of the API, for links handed to customers (`paymentUrl`) and operator callbacks. Unset, links follow the request's `Host` header.",
      production: 'required',
    }),
    STATEMENT_LINK_TTL: duration.prefault('15m').register(configDocs, {
      group: 'payments',
      description: "How long a statement's signed download link works (docs/statements.md).",
    }),
    PAYIN_EXPIRY: duration.prefault('15m').register(configDocs, {
      group: 'payments',
      description: 'A payin the customer never answers ends `expired` after this long.',
    }),
    REFUND_WINDOW: duration.prefault('7d').register(configDocs, {
      group: 'payments',
      description:
        "How long after success a payin stays refundable, for a merchant without its own `settings.refundWindowDays` (docs/refunds.md); the payin's workflow keeps this timer.",
    }),
    SESSION_EXPIRY: duration.prefault('30m').register(configDocs, {
      group: 'payments',
      description:
        'A payin session nobody confirms or declines on the checkout page ends `expired` after this long.',
    }),
    PAYIN_CORRECTION_WINDOW: duration.prefault('48h').register(configDocs, {
      group: 'payments',
      description:
        'How long after an ambiguous failure the partner check may still turn a payin into `success`.',
    }),
    PAYIN_PARTNER_CHECK_INTERVAL: duration.prefault('5m').register(configDocs, {
      group: 'payments',
      description:
        'First partner check after an ambiguous failure; each next one waits twice as long, at most 24 times this (2 hours by default).',
    }),
    PAYIN_LOCAL_ACTIVITIES: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .prefault('true')
      .register(configDocs, {
        group: 'payments',
        description:
          "A payin's operator calls and record writes run first as one local activity try (a marker in its history instead of six events), then as regular activities with their retries. `false`: regular activities only (docs/benchmarks.md#temporal-where-it-pays).",
      }),
    PAYOUT_EXPIRY: duration.prefault('30m').register(configDocs, {
      group: 'payments',
      description:
        'A payout the operator has not settled after this long ends `expired` and its charged amount is returned.',
    }),
    WORKFLOW_BUNDLE_PATH: z.string().optional().register(configDocs, {
      group: 'storage',
      description:
        'Pre-built workflow bundle for the worker (`npm run build` writes it; the Docker image sets it). Unset, the worker bundles `workflows/` at start.',
    }),
    FEE_SCHEDULE: feeScheduleJson.optional().register(configDocs, {
      group: 'payments',
      description: 'JSON fee schedule per kind, overriding the defaults (docs/fees.md).',
      default: 'payin 1.5 %, payout 1 %, refund 0',
    }),
    // Unset, the default follows NODE_ENV (the transform at the end of the schema).
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
      .enum(['true', 'false', '1', '0', 'loopback'])
      .optional()
      .transform((v): PrivateNetworkAccess | undefined =>
        v === undefined ? undefined : v === 'loopback' ? 'loopback' : v === 'true' || v === '1',
      )
      .register(configDocs, {
        group: 'webhooks',
        description:
          "The SSRF guard of webhook deliveries. `loopback`: webhooks may reach this machine (`127.0.0.1`, `localhost`), so a receiver on a developer's laptop works with `npm start`; `true`: private networks too; `false`: public addresses only (docs/decisions/webhooks/loopback-in-development.md).",
        default: '`loopback` with `NODE_ENV=development`, else `false`',
        production: 'must be `false`',
      }),
    WEBHOOK_TIMEOUT: duration.prefault('10s').register(configDocs, {
      group: 'webhooks',
      description: 'A webhook attempt without a 2xx answer within this long failed.',
    }),
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).max(1000).default(16).register(configDocs, {
      group: 'webhooks',
      description: 'Webhook endpoints one merchant may have; one more answers 409 `WEBHOOK_ENDPOINT_LIMIT`.',
    }),
    WEBHOOK_SECRET_OVERLAP: duration.prefault('24h').register(configDocs, {
      group: 'webhooks',
      description: 'After a secret rotation, the previous webhook secret keeps signing this long by default.',
    }),
    WS_HEARTBEAT: duration.prefault('25s').register(configDocs, {
      group: 'webhooks',
      description: 'Interval of WebSocket heartbeats (and of the ping that drops dead connections).',
    }),
    WS_MAX_CONNECTIONS_PER_MERCHANT: z.coerce.number().int().min(1).default(20).register(configDocs, {
      group: 'webhooks',
      description:
        'Open WebSockets per merchant per API process; one more is refused with a 429 problem before the upgrade.',
    }),
    WS_MAX_QUEUED_MESSAGES: z.coerce.number().int().min(1).default(1000).register(configDocs, {
      group: 'webhooks',
      description:
        'Messages a WebSocket may leave unsent in the API; a slower consumer is closed with 1013 and resumes from its `lastEventId`.',
    }),
    TEMPORAL_METRICS_ADDRESS: z
      .string()
      .regex(/^[\w.-]+:\d{1,5}$/, 'host:port')
      .default('127.0.0.1:9464')
      .register(configDocs, {
        group: 'metrics',
        description:
          "Where the worker's Temporal runtime serves its own Prometheus metrics (`host:port`); `/metrics` appends its series.",
      }),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465).register(configDocs, {
      group: 'metrics',
      description:
        "Port of a standalone worker process's `/metrics` (it has no API to serve them); `0` disables.",
    }),
    OPERATOR_BASE_URL: z.url().optional().register(configDocs, {
      group: 'operators',
      description:
        'The sandbox operator simulator test mode always calls (docs/operators.md). Unset, `npm start` runs the simulator.',
      default: 'embedded simulator',
      production: 'required',
    }),
    OPERATOR_ROUTES: operatorRoutesJson.optional().register(configDocs, {
      group: 'operators',
      description:
        'Live mode\'s connectors of each operator × country × operation, asked in order, JSON such as `{"*":"pawapay","MTN_CI":["mtn","pawapay"],"WAVE_CI":["wave","pawapay"],"ORANGE_CI":["pawapay","hub2"]}` (docs/operators.md#test-mode-live-mode-and-routes). Checked at start: a route to a connector without credentials, or one that does not serve the pair, stops the process. Unset, live mode moves no money (every live transaction is refused as `PROVIDER_UNAVAILABLE`).',
      default: 'none',
      production: 'required',
    }),
    SANDBOX_ROUTES: z.enum(['1', '2']).default('2').transform(Number).register(configDocs, {
      group: 'operators',
      description:
        "Test mode's routes to every pair: `2`, the simulator's two routes (`simulator`, then `simulator-2`, an operator with books of its own) with failover between them as in live mode; `1`, the first only (docs/sandbox.md#two-routes-per-pair).",
    }),
    OPERATOR_TIMEOUT: duration.prefault('10s').register(configDocs, {
      group: 'operators',
      description:
        'An operator call unanswered after this long is abandoned; the activity retries it (same id).',
    }),
    OPERATOR_ROUTE_TERMS: routeTermsJson.optional().register(configDocs, {
      group: 'operators',
      description:
        'Each live connector\'s terms, JSON such as `{"pawapay":{"costPercent":1.5},"mtn":{"costFixed":50,"min":100,"max":1500000}}` (minor units): a route that cannot take an amount is not asked, and between routes as successful as each other the cheaper goes first (docs/operators.md#two-routes-and-failover-that-never-charges-twice).',
      default: 'none (no cost, no limit)',
    }),
    OPERATOR_ROUTE_EXPLORATION: z.coerce.number().min(0).max(0.5).default(0.03).register(configDocs, {
      group: 'operators',
      description:
        'Share of live payins and payouts with several routes sent to a route other than the best ranked, so that a recovered route is noticed (0 to 0.5).',
    }),
    OPERATOR_FAILOVER_FENCE: duration.prefault('60s').register(configDocs, {
      group: 'operators',
      description:
        'With several live routes for a pair: after the route asked first certainly did not take a payin or payout, how long before its status is read again and the next route may take it (docs/decisions/operators/failover-never-twice.md). More than twice `OPERATOR_TIMEOUT`, so that no send to the first route is still in flight.',
    }),
    OPERATOR_ANSWER_WAIT: duration.prefault('10s').register(configDocs, {
      group: 'operators',
      description:
        "Longest a WAVE payin's creation waits for the operator's redirect address (`paymentUrl`); later it is in `GET /v1/payin/{reference}`.",
    }),
    REFUND_DECISION_WAIT: duration.prefault('15s').register(configDocs, {
      group: 'payments',
      description:
        "Longest a refund request waits for its payin's workflow to decide; then 503 `DECISION_PENDING` with `Retry-After` (retry with the same key).",
    }),
    CHECKOUT_DECISION_WAIT: duration.prefault('15s').register(configDocs, {
      group: 'payments',
      description:
        "Longest the checkout page's confirm or decline waits for the session's workflow; then 503 `ANSWER_PENDING` (the answer stays queued; the page follows the session's state).",
    }),
    CHECKOUT_REQUESTS_PER_MINUTE: z.coerce.number().int().min(0).default(300).register(configDocs, {
      group: 'limits',
      description:
        'Checkout page requests and calls per client address per minute, shared by every API replica (429 beyond); `0` disables (docs/payins.md, "Checkout page").',
    }),
    CHECKOUT_ANSWERS_PER_MINUTE: z.coerce.number().int().min(0).default(20).register(configDocs, {
      group: 'limits',
      description:
        'Checkout confirms and declines per session and client address per minute, shared by every API replica (429 beyond); `0` disables.',
    }),
    OTP_LIFETIME: duration.prefault('5m').register(configDocs, {
      group: 'payments',
      description:
        "How long an Orange OTP is kept (sealed, out of workflow history, which holds its id only) for the operator request; then the payin's workflow deletes it (docs/payins.md#otp-handling).",
    }),
    OPERATOR_CALLBACK_BASE_URL: z.url().optional().register(configDocs, {
      group: 'operators',
      description: 'Base URL operators call back (`/operator-callbacks/<CODE>`).',
      default: '`PUBLIC_BASE_URL`',
    }),
    OPERATOR_CALLBACK_SECRETS: operatorSecrets
      .prefault(JSON.stringify(devOperatorCallbackSecrets))
      .register(configDocs, {
        group: 'operators',
        description:
          'Per-operator callback HMAC secrets agreed with each operator, at least 16 characters each: JSON `{"ORANGE":"…","MTN":"…","MOOV":"…","WAVE":"…"}` (in `.env`, in single quotes).',
        default: 'development secrets',
        secret: '`openssl rand -hex 32` per operator, or the one the operator gives',
        production: 'required (a development secret is refused)',
      }),
    OPERATOR_CALLBACKS_PER_MINUTE: z.coerce.number().int().min(0).default(20).register(configDocs, {
      group: 'operators',
      description:
        'Callbacks per signer (simulator operator or provider connector) and transaction per minute, shared by every API replica, at both doors (`/operator-callbacks`, `/provider-callbacks`): 429 beyond; a replay of the same signed callback answers 200 and is not delivered again; `0` disables.',
    }),
    EMBEDDED_SIMULATOR_PORT: z.coerce.number().int().min(1).max(65535).default(4010).register(configDocs, {
      group: 'embedded',
      description: 'Port of the operator simulator `npm start` runs when `OPERATOR_BASE_URL` is unset.',
    }),
    AUTH_CACHE_TTL: duration.prefault('10s').register(configDocs, {
      group: 'limits',
      description:
        'How long the API reuses a successful credential check: a key revoked or a merchant suspended from the CLI keeps working for at most this long; `0ms` disables the cache.',
    }),
    AUTH_NEGATIVE_CACHE_TTL: duration.prefault('60s').register(configDocs, {
      group: 'limits',
      description:
        'How long an unknown or revoked `api_key` is remembered, so repeating it costs no database read (key ids are random: a key issued later is never one remembered); `0ms` disables.',
    }),
    RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: z.coerce.number().int().min(0).default(300).register(configDocs, {
      group: 'limits',
      description:
        'Failed authentications (401, refused WebSocket upgrades) per client address per minute, per API process; past it the address gets 429 before any credential lookup. Successful calls never count; `0` disables.',
    }),
    DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(0).default(20).register(configDocs, {
      group: 'limits',
      description:
        'Failed dashboard sign-ins per client address per minute, counted in MongoDB (shared by every API replica); past it the address gets 429 `RATE_LIMITED`. `0` disables.',
    }),
    DASHBOARD_EXPORT_MAX_ROWS: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(10_000)
      .register(configDocs, {
        group: 'limits',
        description:
          'Rows a dashboard export (CSV or XLSX of the transactions, refunds or payouts list) holds at most; above it the export answers 422 `EXPORT_TOO_LARGE` and the member narrows the filters. The rows are counted before the file starts, then streamed a page at a time (docs/decisions/dashboard/list-exports.md).',
      }),
    DASHBOARD_LOCKOUT_AFTER: z.coerce.number().int().min(1).default(5).register(configDocs, {
      group: 'limits',
      description:
        'Failed dashboard sign-ins for one typed address (member or not) from one client address within a `DASHBOARD_LOCKOUT` window, after which that address is refused from there (429 `SIGN_IN_LOCKED`) until the window ends; shared by every API replica (docs/decisions/dashboard/sign-in-limits-and-lockout.md).',
    }),
    DASHBOARD_SIGN_IN_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(20).register(configDocs, {
      group: 'limits',
      description:
        'Failed dashboard sign-ins for one typed address (member or not) from all client addresses within a `DASHBOARD_LOCKOUT` window, after which it is refused (429 `SIGN_IN_LOCKED`) except from a client address the member signed in from in the current 30-day window; shared by every API replica.',
    }),
    DASHBOARD_LOCKOUT: duration.prefault('15m').register(configDocs, {
      group: 'limits',
      description:
        'The window of the per-account sign-in limits (`DASHBOARD_LOCKOUT_AFTER`, `DASHBOARD_SIGN_IN_FAILURES_PER_ACCOUNT`): a refused address is answered again when it ends.',
    }),
    DASHBOARD_RESET_MAILS_PER_ADDRESS: z.coerce.number().int().min(0).default(10).register(configDocs, {
      group: 'limits',
      description:
        'Password-reset requests per client address per minute, shared by every API replica (429 beyond); `0` disables.',
    }),
    DASHBOARD_INVITATIONS_PER_HOUR: z.coerce.number().int().min(0).default(50).register(configDocs, {
      group: 'limits',
      description:
        "Invitations a merchant's members may send per hour, shared by every API replica (429 beyond); `0` disables.",
    }),
    RATE_LIMIT_SWEEP_EVERY: duration.prefault('5m').register(configDocs, {
      group: 'limits',
      description:
        'How often at most each API process deletes the shared limit counters of windows that ended (`rate_limit_slots`; FerretDB has no TTL index).',
    }),
    METRICS_TOKEN: z
      .preprocess(
        (v) => (v === '' ? undefined : v), // `METRICS_TOKEN=` (an empty compose default) means unset
        z.string().min(32, 'at least 32 characters').optional(),
      )
      .register(configDocs, {
        group: 'metrics',
        description:
          'Bearer token (32+ characters) that lets a remote caller read `/metrics` (API and worker) and the readiness details. Unset, only callers on the same host (loopback, no forwarding header) can.',
        secret: '`openssl rand -hex 32`',
      }),
    TRUST_PROXY: trustProxy.prefault('loopback').register(configDocs, {
      group: 'server',
      description:
        'Which proxies may name the client address through `X-Forwarded-For` (the key of per-address limits): `false`, a hop count, or addresses/CIDR ranges/`loopback`/`linklocal`/`uniquelocal`, comma-separated. `1` behind the shipped gateway (docker-compose.yml sets it), one more per proxy in front of it that appends to the header; `true` trusts a header any client can forge (docs/payins.md, "Checkout page").',
    }),
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600).register(configDocs, {
      group: 'limits',
      description: 'Requests per merchant per minute, per API process (429 beyond); `0` disables.',
    }),
    RECONCILIATION_TIME: z
      .string()
      .regex(/^(off|([01]\d|2[0-3]):[0-5]\d)$/, 'a time of day HH:MM (UTC), or off')
      .default('02:00')
      .register(configDocs, {
        group: 'schedules',
        description:
          'When the daily reconciliation of the day before runs, `HH:MM` UTC (a Temporal schedule, ensured by every worker at start); `off`: none (docs/reconciliation.md).',
      }),
    RECOVERY_GRACE_PERIOD: duration.prefault('60s').register(configDocs, {
      group: 'schedules',
      description:
        'A payin or payout whose workflow never started (a crash between storing and starting it) is started by the recovery sweep once its start marker is this old (docs/operations.md, "Recovery sweep").',
    }),
    RECOVERY_SWEEP_INTERVAL: duration.prefault('1m').register(configDocs, {
      group: 'schedules',
      description:
        'How often the recovery sweep runs (a Temporal schedule, ensured by every worker at start).',
    }),
    ALERT_MAIL_EVERY: duration.prefault('1m').register(configDocs, {
      group: 'schedules',
      description:
        "How often each API process mails the dashboard's new alerts to the owners and admins of the teams that asked for them (once per alert, whichever process sends it; docs/dashboard.md, Alerts); `0s`: never.",
    }),
    PAYLOAD_CODEC_KEYS: keyRing.prefault(devPayloadCodecKeys).register(configDocs, {
      group: 'encryption',
      description:
        'AES-256-GCM keys of the Temporal payload codec, `kid:<64 hex>` comma-separated, newest first: every workflow and activity payload and failure message is sealed with the first, any of them opens (rotation: docs/operations.md#reading-workflow-histories-sealed-payloads). Shared by the API, workers, CLI and codec server.',
      default: 'development key',
      secret: '`echo "k$(date +%Y%m):$(openssl rand -hex 32)"`',
      production: 'required (a published development key is refused)',
    }),
    PAYLOAD_CODEC_KEYS_FILE: z.string().optional().register(configDocs, {
      group: 'encryption',
      description:
        'A file of `PAYLOAD_CODEC_KEYS` lines (e.g. a Docker secret); when set, it wins over `PAYLOAD_CODEC_KEYS`.',
    }),
    DATA_ENCRYPTION_KEYS: keyRing.prefault(devDataEncryptionKeys).register(configDocs, {
      group: 'encryption',
      description:
        'Keys sealing secrets stored in the database (OTPs, webhook signing secrets); same format as `PAYLOAD_CODEC_KEYS`, other keys.',
      default: 'development key',
      secret: '`echo "d$(date +%Y%m):$(openssl rand -hex 32)"`',
      production: 'required (a published development key is refused)',
    }),
    DATA_ENCRYPTION_KEYS_FILE: z.string().optional().register(configDocs, {
      group: 'encryption',
      description: 'A file of `DATA_ENCRYPTION_KEYS` lines; when set, it wins over `DATA_ENCRYPTION_KEYS`.',
    }),
    CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234).register(configDocs, {
      group: 'encryption',
      description:
        'Port of the codec server that decodes payloads for the Temporal UI and CLI (`npm start` runs one).',
    }),
    CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1').register(configDocs, {
      group: 'encryption',
      description:
        'Bind address of the codec server (docker-compose.yml: `0.0.0.0` on its internal network).',
    }),
    CODEC_SERVER_TOKENS: commaList(z.string().min(32, 'each token at least 32 characters'))
      .optional()
      .register(configDocs, {
        group: 'encryption',
        description:
          'Bearer tokens the codec server (`node dist/src/main/codec-server.js`) accepts, comma-separated, 32+ characters each: who may read workflow payloads in clear.',
        secret: '`openssl rand -hex 32`',
        production: 'required by the codec server',
      }),
    CODEC_SERVER_ORIGINS: commaList(z.url().transform((u) => new URL(u).origin))
      .optional()
      .register(configDocs, {
        group: 'encryption',
        description:
          'Origins of the Temporal UI allowed to call the codec server from a browser (CORS), comma-separated.',
        default: 'the embedded UI',
      }),
    // Live mode's connectors: each one's credentials and base URL (docs/connectors/*.md).
    ...pawapayConfigShape,
    ...mtnConfigShape,
    ...waveConfigShape,
    ...hub2ConfigShape,
    ...recipientConfigShape,
    ...healthConfigShape,
  })
  .transform(({ WEBHOOK_ALLOW_PRIVATE_NETWORKS, ...config }) => ({
    ...config,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS:
      WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? defaultPrivateNetworkAccess(config.NODE_ENV),
  }));

/** Loopback receivers work by default in development only; tests and production keep the full guard. */
export function defaultPrivateNetworkAccess(
  nodeEnv: 'development' | 'test' | 'production',
): PrivateNetworkAccess {
  return nodeEnv === 'development' ? 'loopback' : false;
}

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError naming each bad variable. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  refusals: (config: Config, env: NodeJS.ProcessEnv) => string[] = productionRefusals,
): Config {
  let parsed;
  try {
    parsed = configSchema.safeParse(withKeyFiles(env));
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ${(err as Error).message}`);
  }
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const refused = refusals(parsed.data, env);
  if (refused.length > 0) {
    throw new ConfigError(
      `Invalid configuration for NODE_ENV=production:\n${refused.map((r) => `  ${r}`).join('\n')}`,
    );
  }
  return parsed.data;
}

/** Key rings may come from files (`<NAME>_FILE`, e.g. Docker secrets); the file wins. */
function withKeyFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of ['PAYLOAD_CODEC_KEYS', 'DATA_ENCRYPTION_KEYS']) {
    const spec = keyRingSpec(env, name);
    if (spec !== undefined) out[name] = spec;
  }
  return out;
}

/**
 * Settings that are fine in development and tests but unsafe in production: every process that
 * loads the configuration (API, worker, CLI) refuses to start with them rather than run exposed.
 */
export function productionRefusals(config: Config, env: NodeJS.ProcessEnv): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const refusals: string[] = [];
  // The development secrets are published in this repository: anyone could sign a callback.
  if (env.OPERATOR_CALLBACK_SECRETS === undefined) {
    refusals.push('OPERATOR_CALLBACK_SECRETS: required in production (unset, the development secrets apply)');
  } else {
    const published = new Set<string>(Object.values(devOperatorCallbackSecrets));
    const reused = Object.entries(config.OPERATOR_CALLBACK_SECRETS)
      .filter(([, value]) => published.has(value))
      .map(([operator]) => operator);
    if (reused.length > 0)
      refusals.push(
        `OPERATOR_CALLBACK_SECRETS: a development secret is refused in production for ${reused.join(', ')}`,
      );
  }
  // Without it the worker would have no operator to ask: payouts and refunds would never settle.
  if (!config.OPERATOR_BASE_URL)
    refusals.push('OPERATOR_BASE_URL: required in production (the sandbox simulator test mode calls)');
  if (!config.OPERATOR_ROUTES)
    refusals.push('OPERATOR_ROUTES: required in production (the connectors live mode moves money with)');
  if (config.WEBHOOK_ALLOW_PRIVATE_NETWORKS)
    refusals.push(
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS: must be false in production (webhooks could reach internal services)',
    );
  // Published development keys would let anyone reading history or the database decrypt it.
  for (const [name, dev] of [
    ['PAYLOAD_CODEC_KEYS', devPayloadCodecKeys],
    ['DATA_ENCRYPTION_KEYS', devDataEncryptionKeys],
  ] as const) {
    const published = new Set(parseKeyRing(dev).fingerprints());
    if (keyRingSpec(env, name) === undefined)
      refusals.push(`${name}: required in production (unset, the published development keys apply)`);
    else if (config[name].fingerprints().some((f) => published.has(f)))
      refusals.push(`${name}: a published development key is refused in production`);
  }
  // Unset, links (paymentUrl, operator callbacks) would follow the request's Host header.
  if (!config.PUBLIC_BASE_URL)
    refusals.push('PUBLIC_BASE_URL: required in production (links and operator callbacks are built from it)');
  return refusals;
}

/**
 * The codec server's own production refusals (it needs none of the payment settings): the codec
 * keys as for every process, and bearer tokens, without which only the development loopback rule
 * would let anyone in (src/api/codec-server.ts).
 */
export function codecServerRefusals(config: Config, env: NodeJS.ProcessEnv): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const refusals = productionRefusals(config, env).filter((r) => r.startsWith('PAYLOAD_CODEC_KEYS'));
  if (!config.CODEC_SERVER_TOKENS)
    refusals.push('CODEC_SERVER_TOKENS: required in production (who may decode workflow payloads)');
  return refusals;
}
