import { Context } from '@temporalio/activity';

// Errors that retrying cannot fix. Workflows list these types as non-retryable
// (workflows/shared/activity-proxies.ts), so they surface at once instead of retrying for ever in
// silence; the worker's interceptor (src/main/temporal/permanent-error-alert.ts) makes each one a
// metric and an error log line an on-call can alert on.

/** A record an activity needs does not exist: a bug or lost data, never a passing fault. */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
}

/** Attempts (about 4 minutes of backoff) after which a missing record is permanent, not a read that lagged. */
const MISSING_ATTEMPTS = 10;

/**
 * A record an activity needs is missing. The first attempts retry (a database that just restarted
 * or lagged); after them it is a PermanentError, which stops the retries and alerts.
 */
export function missingRecord(message: string): Error {
  return attemptNow() >= MISSING_ATTEMPTS ? new PermanentError(message) : new Error(message);
}

/** The activity's attempt; outside an activity (a direct call in a test) there is no retry to wait for. */
function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return MISSING_ATTEMPTS;
  }
}

export const permanentErrorTypes = ['PermanentError', 'SourceRefConflictError'] as const;
