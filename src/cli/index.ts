// Entry point of `npx payments` (bin/payments.js loads it through tsx). Every failure ends as one
// line on stderr and a non-zero exit code, never a stack trace.
import { CommanderError } from 'commander';
import type { Connection } from 'mongoose';
import { ConfigError, loadConfig } from '../config';
import { ApiKeyNotFoundError, MerchantNotFoundError } from '../merchants';
import { LedgerError } from '../ledger';
import { connectMongo } from '../persistence/mongo';
import { buildProgram } from './program';
import { CliError, TimelineNotFoundError } from './errors';
import type { Client } from '@temporalio/client';

/** How long the CLI waits for MongoDB before saying it cannot reach it (PAYMENTS_CLI_CONNECT_TIMEOUT_MS). */
const connectTimeoutMs = Number(process.env.PAYMENTS_CLI_CONNECT_TIMEOUT_MS ?? 3_000);

/** Same default as `npm start`: the embedded FerretDB unless MONGODB_URI points elsewhere. */
export function mongoUriFrom(config: {
  MONGODB_URI?: string | undefined;
  EMBEDDED_MONGODB_PORT: number;
}): string {
  return config.MONGODB_URI ?? `mongodb://127.0.0.1:${config.EMBEDDED_MONGODB_PORT}/payments`;
}

/** Never echo a password from the URI. */
function redact(uri: string): string {
  return uri.replace(/\/\/([^@/]*)@/, '//***@');
}

function oneLine(err: unknown, uri: string | null): string {
  if (
    err instanceof CliError ||
    err instanceof MerchantNotFoundError ||
    err instanceof ApiKeyNotFoundError ||
    err instanceof TimelineNotFoundError
  ) {
    return err.message;
  }
  if (err instanceof ConfigError)
    return err.message
      .split('\n')
      .map((l) => l.trim())
      .join(' ');
  if (err instanceof LedgerError) return `ledger: ${err.message}`;
  const e = err as { name?: string; message?: string; issues?: { path: PropertyKey[]; message: string }[] };
  if (e.name === 'ZodError' && e.issues?.[0]) return e.issues[0].message;
  if (e.name === 'MongooseServerSelectionError' || e.name === 'MongoServerSelectionError') {
    return `cannot reach MongoDB at ${redact(uri ?? '?')} within ${connectTimeoutMs / 1000}s (is \`npm start\` running, or MONGODB_URI set?)`;
  }
  if (e.name === 'MongoParseError') return `invalid MONGODB_URI: ${e.message ?? ''}`;
  return (e.message ?? String(err)).split('\n')[0]!;
}

export async function main(argv: string[]): Promise<number> {
  let conn: Connection | null = null;
  let uri: string | null = null;
  let temporal: Client | null = null;
  let exitCode = 0;
  try {
    const config = loadConfig();
    const program = buildProgram({
      nodeEnv: config.NODE_ENV,
      config,
      setExitCode: (code) => {
        exitCode = code;
      },
      stdout: (text) => process.stdout.write(`${text}\n`),
      mongo: async () => {
        uri ??= mongoUriFrom(config);
        conn ??= await connectMongo(uri, { serverSelectionTimeoutMS: connectTimeoutMs });
        return conn;
      },
      // Same default as `npm start`: the embedded dev server unless TEMPORAL_ADDRESS is set.
      temporal: async () => {
        const address = config.TEMPORAL_ADDRESS ?? `127.0.0.1:${config.EMBEDDED_TEMPORAL_PORT}`;
        // Loaded on use: Temporal's client and the tracing it may carry, for `transactions show` and
        // `reconcile` only (required: under tsx/cjs, import() of a .ts file fails).
        const { connectTemporalClient } =
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          require('../main/temporal/connection') as typeof import('../main/temporal/connection');
        temporal ??= await connectTemporalClient(
          address,
          config.TEMPORAL_NAMESPACE,
          config.PAYLOAD_CODEC_KEYS,
          connectTimeoutMs,
        ).catch((err: unknown) => {
          // The SDK says only "Failed to connect before the deadline": name what was tried, and how to change it.
          throw new CliError(
            `cannot reach Temporal at ${address} within ${connectTimeoutMs / 1000}s (is \`npm start\` running, or TEMPORAL_ADDRESS set?): ${oneLine(err, null)}`,
          );
        });
        return temporal;
      },
    });
    // Commander reports usage errors itself (one line); we only keep its exit code.
    program.exitOverride();
    program.configureOutput({ outputError: (text, write) => write(text.trimEnd().split('\n')[0] + '\n') });
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`error: ${oneLine(err, uri)}\n`);
    return 1;
  } finally {
    await (conn as Connection | null)?.close().catch(() => undefined);
    await (temporal as Client | null)?.connection.close().catch(() => undefined);
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
