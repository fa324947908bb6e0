import pino, { type Logger } from 'pino';
import { logContext } from './log-context';
import { currentTraceId } from './tracing';
import { censor, maskText, redactPaths } from './log-masking';

// Structured JSON logs. Secrets, OTPs and credentials never reach a log line; phone numbers are
// masked. Every line written while serving a request carries its request id (and merchant and
// workflow ids once known, and its trace id with tracing on), through the async context, whichever
// module logs.
export function createLogger(
  level: string,
  base: Record<string, unknown> = {},
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level,
      base: { service: 'momo-payments', ...base },
      redact: { paths: [...redactPaths, 'req.headers.authorization', 'headers.authorization'], censor },
      // With tracing on, the trace of the request or activity running: a line leads to its trace.
      mixin: () => {
        const traceId = currentTraceId();
        return traceId ? { ...logContext.getStore(), traceId } : { ...logContext.getStore() };
      },
      hooks: {
        // Free text (messages, error strings) may quote a number or a URL with a credential.
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' ? maskText(a) : a)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination,
  );
}
export type { Logger };
