import { z } from 'zod';

// Every setting comes from the environment and is validated once, at start-up, by this schema.
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'a duration such as 500ms, 30s, 15m, 48h or 7d')
  .transform(parseDuration);

export const configSchema = z.object({
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
  /** A payin the customer never answers ends `expired` after this long. */
  PAYIN_EXPIRY: duration.prefault('15m'),
  /** How long after success a payin stays refundable (the payin workflow keeps this timer). */
  REFUND_WINDOW: duration.prefault('7d'),
  /** Pre-built workflow bundle (production); without it the worker bundles workflows/ at start. */
  WORKFLOW_BUNDLE_PATH: z.string().optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "48h" -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * unitMs[m[2] as keyof typeof unitMs];
}
