import pino, { type Logger } from 'pino';

// Structured JSON logs. Secrets, OTPs and credentials never reach a log line.
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'momo-payments', ...base },
    redact: {
      paths: [
        'req.headers.authorization',
        '*.otp',
        '*.*.otp',
        '*.apiClient',
        '*.secret',
        'headers.authorization',
      ],
      censor: '[redacted]',
    },
  });
}
export type { Logger };
