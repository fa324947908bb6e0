import { z } from 'zod';

// What each environment variable means, beside its validation in the zod schema (src/config.ts and
// the shapes it spreads): docs/configuration.md and .env.example are generated from it
// (scripts/generate-config-docs.ts), so a variable is documented where it is defined, once.

/** The sections of docs/configuration.md and .env.example, in this order. */
export const configGroups = {
  server: 'Server',
  storage: 'Database and Temporal',
  embedded: 'Embedded stack (`npm start`)',
  payments: 'Payments and timers',
  operators: 'Operators',
  pawapay: 'pawaPay connector',
  mtn: 'MTN MoMo connector',
  wave: 'Wave connector',
  hub2: 'Hub2 connector',
  health: 'Provider health',
  recipient: 'Recipient checks',
  webhooks: 'Webhooks and WebSockets',
  limits: 'Authentication and rate limits',
  schedules: 'Scheduled jobs',
  encryption: 'Encryption and the codec server',
  metrics: 'Metrics',
} as const;
export type ConfigGroup = keyof typeof configGroups;

export interface ConfigDoc {
  group: ConfigGroup;
  /** What it does, in Markdown; `docs/….md` references become links in docs/configuration.md. */
  description: string;
  /** Shown as the default when the schema's own is not what a reader should see (computed, development-only). */
  default?: string;
  /** A secret: .env.example leaves it empty and says how to make one (e.g. `openssl rand -hex 32`). */
  secret?: string;
  /** Production's rule: `required` (every process refuses to start without it) or a short note. */
  production?: string;
}

/** Register a field's documentation: `z.string().optional().register(configDocs, { … })`. */
export const configDocs = z.registry<ConfigDoc>();
