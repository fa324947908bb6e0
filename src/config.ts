import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { feeScheduleJson } from './domain/fees';
import { keyRingSpec, parseKeyRing } from './security/key-ring';
import { operatorRoutesJson } from './operators/connectors/routes';
import { mtnConfigShape } from './operators/connectors/mtn/config';
import { pawapayConfigShape } from './operators/connectors/pawapay/config';
import { waveConfigShape } from './operators/connectors/wave/config';
import { recipientConfigShape } from './services/recipient-service';
import { healthConfigShape } from './operators/health/config';
import { duration } from './infra/duration';
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
const operatorSecrets = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'JSON such as {"ORANGE":"...","MTN":"...",...}' });
      return z.NEVER;
    }
  })
  .pipe(z.strictObject({ ORANGE: secret, MTN: secret, MOOV: secret, WAVE: secret }));

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
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** When unset, `npm start` runs an embedded FerretDB and uses it. */
    MONGODB_URI: z.string().url().optional(),
    /** When unset, `npm start` runs an embedded Temporal dev server and uses it. */
    TEMPORAL_ADDRESS: z.string().min(1).optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
    /** Where the embedded servers keep their data (npm start). */
    DATA_DIR: z.string().default('.data'),
    EMBEDDED_MONGODB_PORT: z.coerce.number().int().min(1).max(65535).default(27017),
    EMBEDDED_TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
    EMBEDDED_TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
    /** Public base URL of the API, used to build links such as paymentUrl. */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** How long a statement's download link works (docs/statements.md). */
    STATEMENT_LINK_TTL: duration.prefault('15m'),
    /** A payin the customer never answers ends `expired` after this long. */
    PAYIN_EXPIRY: duration.prefault('15m'),
    /** How long after success a payin stays refundable (the payin workflow keeps this timer). */
    REFUND_WINDOW: duration.prefault('7d'),
    /** A payin session nobody confirms or declines on the checkout page expires after this long. */
    SESSION_EXPIRY: duration.prefault('30m'),
    /** After an ambiguous failure, the partner check may turn a payin into success until this long after. */
    PAYIN_CORRECTION_WINDOW: duration.prefault('48h'),
    /** First partner check after an ambiguous failure; each next one waits twice as long, at most 24 times this. */
    PAYIN_PARTNER_CHECK_INTERVAL: duration.prefault('5m'),
    /** A payout the operator has not settled after this long ends `expired` and is reversed. */
    PAYOUT_EXPIRY: duration.prefault('30m'),
    /** Pre-built workflow bundle (production); without it the worker bundles workflows/ at start. */
    WORKFLOW_BUNDLE_PATH: z.string().optional(),
    /** JSON fee schedule overriding the defaults per kind (docs/fees.md); unset: payin 1.5 %, payout 1 %, refund 0. */
    FEE_SCHEDULE: feeScheduleJson.optional(),
    /**
     * Lets webhooks reach loopback (`loopback`) or loopback and private networks (`true`): development
     * and tests only (SSRF guard). Unset: `loopback` under NODE_ENV=development, so a receiver on the
     * developer's laptop works with `npm start`; `false` otherwise (docs/decisions/webhooks-on-loopback-in-development.md).
     */
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
      .enum(['true', 'false', '1', '0', 'loopback'])
      .optional()
      .transform((v): PrivateNetworkAccess | undefined =>
        v === undefined ? undefined : v === 'loopback' ? 'loopback' : v === 'true' || v === '1',
      ),
    /** A webhook attempt without a 2xx answer within this long failed. */
    WEBHOOK_TIMEOUT: duration.prefault('10s'),
    /** Webhook endpoints one merchant may have; creating one more answers 409 WEBHOOK_ENDPOINT_LIMIT. */
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).max(1000).default(16),
    /** After a secret rotation, the previous secret keeps signing for this long by default. */
    WEBHOOK_SECRET_OVERLAP: duration.prefault('24h'),
    /** Interval of WebSocket heartbeats (and of the ping that drops dead connections). */
    WS_HEARTBEAT: duration.prefault('25s'),
    /** Open WebSockets per merchant in one API process; one more is refused (429 before the upgrade). */
    WS_MAX_CONNECTIONS_PER_MERCHANT: z.coerce.number().int().min(1).default(20),
    /** Messages a WebSocket may leave unsent; a slower consumer is closed (1013) and resumes from its last event id. */
    WS_MAX_QUEUED_MESSAGES: z.coerce.number().int().min(1).default(1000),
    /** Where the Temporal worker's own Prometheus exporter listens (host:port); /metrics appends its series. */
    TEMPORAL_METRICS_ADDRESS: z
      .string()
      .regex(/^[\w.-]+:\d{1,5}$/, 'host:port')
      .default('127.0.0.1:9464'),
    /** Port of the worker process's /metrics (a standalone worker has no API to serve it); 0 disables. */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
    /** The sandbox operator simulator test mode always uses. When unset, `npm start` runs the simulator. */
    OPERATOR_BASE_URL: z.url().optional(),
    /**
     * Live mode's connector of each operator × country × operation (src/operators/connectors/routes.ts),
     * JSON such as {"*":"pawapay","WAVE_CI":"wave"}; unset, live mode moves no money (every live
     * transaction is refused as PROVIDER_UNAVAILABLE).
     */
    OPERATOR_ROUTES: operatorRoutesJson.optional(),
    /** An operator call unanswered after this long is abandoned; the activity retries it (same id). */
    OPERATOR_TIMEOUT: duration.prefault('10s'),
    /** A WAVE payin's creation waits at most this long for the operator's redirect address (paymentUrl). */
    OPERATOR_ANSWER_WAIT: duration.prefault('10s'),
    /** A refund request waits at most this long for its payin's workflow to decide, then answers 503 (retry). */
    REFUND_DECISION_WAIT: duration.prefault('15s'),
    /** The checkout page's confirm/decline waits at most this long for the workflow, then answers 503. */
    CHECKOUT_DECISION_WAIT: duration.prefault('15s'),
    /** Requests to the checkout page and its calls per client address per minute, per API process (429 beyond); 0 disables. */
    CHECKOUT_REQUESTS_PER_MINUTE: z.coerce.number().int().min(0).default(300),
    /** Confirms and declines per session and client address per minute, per API process (429 beyond); 0 disables. */
    CHECKOUT_ANSWERS_PER_MINUTE: z.coerce.number().int().min(0).default(20),
    /** How long an Orange OTP is kept (sealed, out of workflow history) for the operator request; then deleted. */
    OTP_LIFETIME: duration.prefault('5m'),
    /** Base URL operators call back (`/operator-callbacks/<CODE>`); defaults to PUBLIC_BASE_URL. */
    OPERATOR_CALLBACK_BASE_URL: z.url().optional(),
    /** JSON `{ "ORANGE": "...", "MTN": ..., "MOOV": ..., "WAVE": ... }`: per-operator callback HMAC secrets. */
    OPERATOR_CALLBACK_SECRETS: operatorSecrets.prefault(JSON.stringify(devOperatorCallbackSecrets)),
    /** Operator callbacks per operator and transaction per minute, per API process (429 beyond); 0 disables. */
    OPERATOR_CALLBACKS_PER_MINUTE: z.coerce.number().int().min(0).default(20),
    /** Port of the operator simulator that `npm start` runs when OPERATOR_BASE_URL is unset. */
    EMBEDDED_SIMULATOR_PORT: z.coerce.number().int().min(1).max(65535).default(4010),
    /**
     * How long the API reuses a successful credential lookup; a key revoked or a merchant suspended
     * from the CLI keeps working for at most this long. 0ms disables the cache.
     */
    AUTH_CACHE_TTL: duration.prefault('10s'),
    /** How long an unknown or revoked api_key is remembered, so repeating it costs no database read; 0ms disables. */
    AUTH_NEGATIVE_CACHE_TTL: duration.prefault('60s'),
    /** Requests per client address per minute that fail authentication (401); past it, 429 before any lookup. 0 disables. */
    RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: z.coerce.number().int().min(0).default(300),
    /**
     * Bearer token that lets a remote caller read /metrics and the readiness details (API and
     * worker); unset, only loopback callers can. At least 32 characters.
     */
    METRICS_TOKEN: z.preprocess(
      (v) => (v === '' ? undefined : v), // `METRICS_TOKEN=` (an empty compose default) means unset
      z.string().min(32, 'at least 32 characters').optional(),
    ),
    /**
     * Which proxies may name the client address (X-Forwarded-For), for per-address limits; behind the
     * shipped nginx gateway `1` (docs/payins.md, "Checkout page"). Default: loopback proxies only.
     */
    TRUST_PROXY: trustProxy.prefault('loopback'),
    /** Requests per merchant per minute (429 beyond); 0 disables the limit. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
    /** When the daily reconciliation of the day before runs, `HH:MM` UTC (a Temporal schedule); `off`: none. */
    RECONCILIATION_TIME: z
      .string()
      .regex(/^(off|([01]\d|2[0-3]):[0-5]\d)$/, 'a time of day HH:MM (UTC), or off')
      .default('02:00'),
    /** A payin or payout stored this long ago whose workflow never started is started by the recovery sweep. */
    RECOVERY_GRACE_PERIOD: duration.prefault('60s'),
    /** How often the recovery sweep runs (its Temporal schedule, ensured by every worker at start). */
    RECOVERY_SWEEP_INTERVAL: duration.prefault('1m'),
    /**
     * AES-256-GCM keys of the Temporal payload codec (every workflow/activity payload and failure
     * message is encrypted with the first; all of them decode), `kid:<64 hex>` newest first; or a
     * file of such lines in PAYLOAD_CODEC_KEYS_FILE. Shared by the API, workers, CLI and codec server.
     */
    PAYLOAD_CODEC_KEYS: keyRing.prefault(devPayloadCodecKeys),
    /** Keys sealing secrets stored in the database (OTPs, webhook signing secrets); same format, or DATA_ENCRYPTION_KEYS_FILE. */
    DATA_ENCRYPTION_KEYS: keyRing.prefault(devDataEncryptionKeys),
    /** Port of the codec server that decodes payloads for the Temporal UI and CLI (`npm start` runs one). */
    CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234),
    /** Bind address of the codec server (src/main/codec-server.ts); compose: 0.0.0.0 on its internal network. */
    CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
    /** Bearer tokens the codec server accepts (comma-separated, each at least 32 characters); required in production. */
    CODEC_SERVER_TOKENS: commaList(z.string().min(32, 'each token at least 32 characters')).optional(),
    /** Origins of the Temporal UI allowed to call the codec server from a browser (CORS), comma-separated; default: the embedded UI. */
    CODEC_SERVER_ORIGINS: commaList(z.url().transform((u) => new URL(u).origin)).optional(),
    // Live mode's connectors: each one's credentials and base URL (docs/connectors/*.md).
    ...pawapayConfigShape,
    ...mtnConfigShape,
    ...waveConfigShape,
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
